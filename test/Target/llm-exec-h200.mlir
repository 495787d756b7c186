// Verification by execution with results from an H200. The bundles that
// llm-lower writes for Inputs/exec.mlir were run by llmptx-runner on an H200
// (Inputs/h200/bundles, Inputs/h200/results.json: the runner's own output);
// results_replay hands those results back to llm-lower and refuses bundles
// that differ by one byte, so this test fails if the bundles change.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/exec --log %t/requests.jsonl" \
// RUN:   LLMPTX_RUNNER="%python -m llmptx.testing.results_replay --results %S/Inputs/h200/results.json --ran %S/Inputs/h200/bundles" \
// RUN:   llmptx-opt %S/Inputs/exec.mlir --llm-lower="provider=exec cache=off verify=exec repairs=1 emit-bundles=%t/bundles report=%t/report.json" \
// RUN:   -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --summary | FileCheck %s --check-prefix=OBJECTS
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=MISMATCH
// RUN: FileCheck %s --input-file=%t/report.json --check-prefix=REPORT

// saxpy passed every check and is as fast as the reference: selected.
// vadd4 (128-bit accesses by a quarter of the threads) passed but is slower
// under the fixed launch: the reference stays. relu_f16's first answer uses
// max.f16, which drops NaN where arith.maximumf propagates it: the runner's
// mismatch goes back to the model, whose second answer (max.NaN.f16) passes
// the second runner call and is selected.
// REMARK-DAG: remark: llmgen: @saxpy: selected the LLM kernel: candidate s0r0 verified by execution, {{[0-9.]+}}x the reference
// REMARK-DAG: remark: llmgen: @vadd4: using the NVPTX reference: candidate s0r0 passed but is slower: 0.{{[0-9]+}}x the reference
// REMARK-DAG: remark: llmgen: @relu_f16: selected the LLM kernel: candidate s0r1 verified by execution

// OBJECTS: kernels[0] slot=selected source=llm {{.*}}@relu_f16=llm(s0r1), @saxpy=llm(s0r0), @vadd4=nvptx
// OBJECTS: kernels[1] slot=alternate source=nvptx

// MISMATCH: "template_version": "llmptx-translate-v1+mismatch-v1"
// MISMATCH-SAME: does not compute what the reference computes
// MISMATCH-SAME: mismatch at shape (N=97) offset 0: {{.*}}arg1[28] expected nan(0x7fff), got 0

// REPORT: "exec_verdict": "mismatch",
// REPORT: "name": "s0r0"
// REPORT: "exec_verdict": "pass",
// REPORT: "name": "s0r1"
// REPORT: "name": "relu_f16",
