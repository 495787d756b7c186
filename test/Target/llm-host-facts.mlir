// Bundles from host code: without #llmgen.harness, the constant operands of
// the gpu.launch_func and the constant sizes of the buffers it allocates give
// one shape, the grid and the block.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/host" \
// RUN:   llmptx-opt %S/Inputs/host-launch.mlir --llm-lower="provider=exec cache=off repairs=0 emit-bundles=%t" -o %t/out.mlir
// RUN: %python -m json.tool %t/kernels.vadd.bundle.json | FileCheck %s

// The prompt's launch facts also come from the host launch.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/host --log %t/requests.jsonl" \
// RUN:   llmptx-opt %S/Inputs/host-launch.mlir --llm-lower="provider=exec cache=off repairs=0" -o %t/out2.mlir
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT

// CHECK: "sizes": [],
// CHECK: "shapes": [
// CHECK-NEXT: {}
// CHECK: "launch": {
// CHECK-NEXT: "grid": [
// CHECK-NEXT: 4,
// CHECK: "block": [
// CHECK-NEXT: 256,
// CHECK: "name": "arg0",
// CHECK: "shape": [
// CHECK-NEXT: 1000
// CHECK: "role": "scalar",
// CHECK-NEXT: "type": "i64",
// CHECK-NEXT: "value": 1000

// PROMPT: host launch: grid (4, 1, 1), block (256, 1, 1)
