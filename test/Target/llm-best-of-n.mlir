// Best-of-N: sample 0 answers in prose, sample 1 with a wrong signature,
// sample 2 with a valid kernel, which is selected; all three are asked in
// parallel and reported.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/bestofn" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off select=llm samples=3 repairs=0 report=%t/report.json" -o %t/out.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/report.json
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --list | FileCheck %s --check-prefix=OBJECTS

// REMARK: remark: llmgen: @vadd: selected the LLM kernel: select=llm: candidate s2r0

// CHECK: "attempts": [
// CHECK-DAG: "status": "no-ptx"
// CHECK-DAG: "status": "abi-error"
// CHECK-DAG: "status": "{{compiled|lint-ok}}"
// CHECK: "candidate": "s2r0",
// CHECK: "candidates": [
// CHECK-NEXT: {
// CHECK: "name": "s2r0"
// CHECK: "samples": 3,

// OBJECTS: kernels[0] {{.*}}attempts = 3 : i64, candidate = "s2r0"{{.*}}llmgen.source = "llm"
