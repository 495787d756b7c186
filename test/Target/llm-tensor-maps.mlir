// REQUIRES: ptxas, nvrtc
// Tensor maps in a candidate's ABI (sm_90a): the launch choice offers them,
// a candidate's launch block asks for them over its memref arguments, the
// request is checked against the driver's limits and the module's facts
// (each refusal names the field), the candidate's entry is held to the
// reference's ABI plus one `.param .align 64 .b8 NAME[128]` per map, and
// the bundle carries the maps for the runner to build per shape. No GPU
// here: the runner's half is test/Runtime (and the GPU test of
// Integration/GPU); the checks happen before any run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/tma --log %t/requests.jsonl" LLMPTX_RUNNER=false \
// RUN:   llmptx-opt %S/Inputs/launch/tma.mlir --llm-lower="chip=sm_90a provider=exec cache=off verify=exec language=cuda repairs=0 emit-bundles=%t/bundles report=%t/report.json" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARKS
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT
// RUN: FileCheck %s --input-file=%t/bundles/tma_kernels.copy2d.bundle.json --check-prefix=BUNDLE
// RUN: FileCheck %s --input-file=%t/report.json --check-prefix=REPORT
// REMARKS-DAG: @copy2d: using the NVPTX reference: candidate s0r0 brings its own launch, which is taken only after verification by execution, and that did not run
// REMARKS-DAG: @unaligned: using the NVPTX reference: no valid candidate: sample 0: launch-error (launch: error: tensor_maps[0]: a tensor map needs the base of %arg0 16-byte aligned, and the module states only its element size
// PROMPT: "template_version": "llmptx-translate-v1+launch-v1+tma-v1+cuda-v1"
// PROMPT-SAME: #include <cuda_fp16.h>\nextern \"C\" __global__ void
// PROMPT-SAME: \"tensor_maps\": TMA descriptors (CUtensorMap)
// BUNDLE:      "name": "s0r0",
// BUNDLE:      "launch": {
// BUNDLE:      "dynamic_shared_bytes": 0
// BUNDLE:      "tensor_maps": [
// BUNDLE-NEXT:   {
// BUNDLE-NEXT:     "name": "tmX",
// BUNDLE-NEXT:     "buffer": "arg0",
// BUNDLE-NEXT:     "box": [
// BUNDLE-NEXT:       64,
// BUNDLE-NEXT:       64
// BUNDLE-NEXT:     ],
// BUNDLE-NEXT:     "swizzle": "none",
// BUNDLE-NEXT:     "interleave": "none",
// BUNDLE-NEXT:     "l2_promotion": "128B",
// BUNDLE-NEXT:     "oob_fill": "none"
// REPORT: "launch": {
// REPORT: "tensor_maps": [
// REPORT: "level": "compile",
// REPORT: at (M=3, N=5) a step of dimension 0 of %arg0 is 10 bytes, not a multiple of 16

// Requests the driver or the kernel refuse go back to the model, each with
// the field named; the third answer's is taken.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/tma-errors --log %t/errors.jsonl" LLMPTX_RUNNER=false \
// RUN:   llmptx-opt %S/Inputs/launch/tma.mlir --llm-lower="chip=sm_90a provider=exec cache=off verify=exec language=cuda repairs=2 report=%t/errors.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/errors.json --check-prefix=ERRORS
// ERRORS: "launch: error: tensor_maps[0].box[1]: the innermost box is 256 bytes, wider than the 128B swizzle span"
// ERRORS: "launch: error: tensor_maps[0].arg: %arg7 is not a memref argument of the kernel"
// ERRORS: "status": "compiled"

// Without an arch-specific Hopper chip the prompt offers no tensor maps and
// a request is refused.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/tma --log %t/sm90.jsonl" LLMPTX_RUNNER=false \
// RUN:   llmptx-opt %S/Inputs/launch/tma.mlir --llm-lower="chip=sm_90 provider=exec cache=off verify=exec language=cuda repairs=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not grep -c tma-v1 %t/sm90.jsonl
// SM90: @copy2d: using the NVPTX reference: no valid candidate: sample 0: launch-error (launch: error: tensor_maps: tensor maps are offered for sm_90a and later arch-specific chips; the target is sm_90)
