// verify=exec builds one verification bundle per kernel from what the module
// states and hands it to llmptx-runner. Without a GPU the runner says so,
// llm-lower says it once and keeps the compile level; emit-bundles keeps the
// bundles. (On a GPU machine the same command verifies by execution: see
// test/Runtime.)
// UNSUPPORTED: cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/two" \
// RUN:   llmptx-opt %S/Inputs/two-kernels.mlir --llm-lower="provider=exec cache=off verify=exec repairs=0 emit-bundles=%t/bundles report=%t/report.json" -o %t/out.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: %python -m json.tool %t/bundles/kernels.vadd.bundle.json | FileCheck %s --check-prefix=BUNDLE
// RUN: FileCheck %s --input-file=%t/report.json --check-prefix=REPORT
// RUN: not test -e %t/bundles/kernels.scale.bundle.json

// REMARK: remark: llmgen: verify=exec: {{.*}}; candidates are verified at the compile level only
// REMARK-NOT: verify=exec:
// REMARK: remark: llmgen: @vadd: using the NVPTX reference: select=auto needs verification by execution, which did not run for candidate s0r0:

// The bundle says what the module states: the harness's sizes and grid,
// known_block_size, the memref types (f32, dynamic size N), which argument
// is written, and the ABI role of every lowered parameter.
// BUNDLE: "format": "llmptx-verification-bundle"
// BUNDLE: "kernel": "vadd"
// BUNDLE: "sizes": [
// BUNDLE-NEXT: "N"
// BUNDLE: "shapes": [
// BUNDLE: "N": 1
// BUNDLE: "N": 1048583
// BUNDLE: "launch": {
// BUNDLE-NEXT: "grid": [
// BUNDLE-NEXT: "ceildiv(N, 256)"
// BUNDLE: "block": [
// BUNDLE-NEXT: 256
// BUNDLE: "buffers": [
// BUNDLE: "name": "arg0"
// BUNDLE-NEXT: "element": "f32"
// BUNDLE-NEXT: "shape": [
// BUNDLE-NEXT: "N"
// BUNDLE: "role": "input"
// BUNDLE: "name": "arg2"
// BUNDLE: "role": "output"
// BUNDLE: "params": [
// BUNDLE: "role": "allocated_ptr"
// BUNDLE: "role": "aligned_ptr"
// BUNDLE: "role": "offset"
// BUNDLE: "role": "size"
// BUNDLE: "role": "stride"
// BUNDLE: "role": "scalar"
// BUNDLE: "value": "N"
// BUNDLE: "reference": {
// BUNDLE: "name": "nvptx"
// BUNDLE: "candidates": [
// BUNDLE: "name": "s0r0"

// REPORT: "exec_note":
