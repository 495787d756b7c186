// Why a launch stays fixed, one reason per kernel of
// Inputs/launch/refusals.mlir (the report's launch_freedom), and the checks
// of a launch block: @free's launch is free, and each of its answers
// (Inputs/answers/launch-errors/free.r<N>.txt) brings a malformed block,
// which goes back to the model as a repair with the error. No GPU: the
// analysis and the checks happen before any run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/launch-errors --log %t/requests.jsonl" LLMPTX_RUNNER=false \
// RUN:   llmptx-opt %S/Inputs/launch/refusals.mlir --llm-lower="provider=exec cache=off verify=exec repairs=7 report=%t/report.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/report.json
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=REPAIR

// CHECK:      "launch: error: the block is not JSON: [1:2, byte=2]: Invalid JSON value (null?)"
// CHECK:      "launch: error: unknown key 'smem' (only block, grid, dynamic_shared_bytes and tensor_maps)"
// CHECK:      "launch: error: block must be an array of three integers"
// CHECK:      "launch: error: grid[2] must be an expression (a string) or an integer"
// CHECK:      "launch: error: grid[0] 'ceildiv(N,, 256)': column 11: unexpected ','"
// CHECK:      "launch: error: grid[0] = 0 at (N=1) is outside [1, 2147483647]"
// CHECK:      "launch: error: a block of 2048 threads exceeds 1024"
// CHECK:      "launch_freedom": "allowed: 1 host launch(es) of grid (ceildiv(N, 256), 1, 1), block (256, 1, 1)",
// CHECK-NEXT: "module": "kernels",
// CHECK-NEXT: "name": "free",
// CHECK:      "launch_freedom": "fixed: the launch at refusals.mlir:60:5 computes grid dimension 0 as ceildiv(N, 128), which is not verification's ceildiv(N, 256) on every shape",
// CHECK:      "launch_freedom": "fixed: the launch at refusals.mlir:63:5: grid dimension 0 is not an integer expression of the sizes",
// CHECK:      "launch_freedom": "fixed: the launch at refusals.mlir:65:5 has a block size that is not constant",
// CHECK:      "launch_freedom": "fixed: the launch at refusals.mlir:67:5 uses 64 bytes of dynamic shared memory where verification uses 0",
// CHECK:      "launch_freedom": "fixed: size N is neither a scalar argument nor a memref dimension in the harness's args, so a launch cannot compute a grid from it",

// The repair prompt carries the error.
// REPAIR: "template_version": "llmptx-translate-v1+launch-v1+repair-v1"
// REPAIR-SAME: launch: error: the block is not JSON
