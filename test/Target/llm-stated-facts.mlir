// What the module states about a kernel reaches the prompt as the only
// assumptions allowed, and verification tests exactly at its edge.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/host --log %t/requests.jsonl" \
// RUN:   llmptx-opt %S/Inputs/facts.mlir --llm-lower="provider=exec cache=off repairs=0 emit-bundles=%t" -o %t/out.mlir
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT
// RUN: %python -m json.tool %t/kernels.vadd.bundle.json | FileCheck %s --check-prefix=BUNDLE

// PROMPT: Stated facts (the only assumptions allowed)
// PROMPT-SAME: %arg0: memref<?xf32>; its aligned pointer is 16-byte aligned
// PROMPT-SAME: %arg1: memref<?xf32>; its aligned pointer is only known to be aligned to its element size
// PROMPT-SAME: N is a multiple of 4
// PROMPT-SAME: the values of %arg1 lie in [0, 1]

// BUNDLE: "shapes": [
// BUNDLE-NEXT: {
// BUNDLE-NEXT: "N": 4
// BUNDLE: "N": 1048584
// BUNDLE: "buffers": [
// BUNDLE: "name": "arg0",
// BUNDLE: "init": {
// BUNDLE: "special": true
// BUNDLE: "alignment": 16
// BUNDLE: "name": "arg1",
// BUNDLE: "init": {
// BUNDLE-NEXT: "kind": "uniform",
// BUNDLE-NEXT: "lo": 0.0,
// BUNDLE-NEXT: "hi": 1.0
// BUNDLE-NEXT: }
// BUNDLE: "name": "arg2",
// BUNDLE-NOT: "alignment": 16
// BUNDLE: "params"
