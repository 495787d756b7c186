// chip=auto takes the chip of the GPU the runner reaches (`<runner>
// --probe`), with 'a' from Hopper on, and says so; when no GPU answers it
// falls back to sm_90. The report's settings record the chip used.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_RUNNER="sh %S/Inputs/probe-h200.sh" llmptx-opt %S/Inputs/vadd.mlir --llm-lower="chip=auto provider=replay cache=off report=%t/h200.json" -o %t/h200.mlir 2>&1 | FileCheck %s --check-prefix=H200
// RUN: FileCheck %s --input-file=%t/h200.mlir --check-prefix=H200-OBJECT
// RUN: FileCheck %s --input-file=%t/h200.json --check-prefix=H200-REPORT
// H200: remark: llmgen: chip=auto: sm_90a (the runner's GPU: NVIDIA H200)
// H200-OBJECT: #gpu.object<#nvvm.target<O = 3, chip = "sm_90a">
// H200-REPORT: "chip": "sm_90a"
// RUN: env LLMPTX_RUNNER=false llmptx-opt %S/Inputs/vadd.mlir --llm-lower="chip=auto" -o %t/none.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: FileCheck %s --input-file=%t/none.mlir --check-prefix=NONE-OBJECT
// NONE: remark: llmgen: chip=auto: no GPU answered (`false --probe` answered with status 1); using sm_90
// NONE-OBJECT: #gpu.object<#nvvm.target<O = 3, chip = "sm_90">
