// chip=sm_90a with features=+ptx78 (PTX ISA 7.8 predates sm_90a) aborted
// llmptx-opt inside the NVPTX backend ("LLVM ERROR: PTX version 7.8 does not
// support target 'sm_90a'"); the reference build now reports it on the
// module and the pass fails cleanly.
// RUN: not llmptx-opt %S/Inputs/vadd.mlir --llm-lower="chip=sm_90a features=+ptx78" -o /dev/null 2>&1 | FileCheck %s
// RUN: llmptx-opt %S/Inputs/vadd.mlir --llm-lower="chip=sm_90a features=+ptx80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX80

// CHECK: vadd.mlir:2:3: error: features '+ptx78' ask for PTX ISA 7.8, older than the 8.0 that sm_90a needs: leave the +ptx feature out (the backend then picks the chip's minimum) or raise it
// CHECK-NOT: LLVM ERROR

// PTX80: remark: llmgen: using the NVPTX reference: no provider configured
