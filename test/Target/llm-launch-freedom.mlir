// Launch configurations chosen with the kernel (docs/pipeline.md, "Launch
// configurations"). Inputs/launch/scale.mlir holds every launch of @scale;
// @scale_block is launched with another block than verification runs and
// @scale_elsewhere not at all, so their launches are fixed. The answers in
// Inputs/answers/launch: @scale s0 handles four elements per thread under
// grid ceildiv(N, 1024); s1 claims ceildiv(N, 2048) and leaves elements
// unwritten; s2 uses a size that does not exist, then a block over 1024
// threads; s3 keeps the original launch but declares .maxntid 128. Every
// answer for the fixed kernels brings a launch block first (their s3 is a
// failed call).
// The bundles were run by llmptx-runner on an H200 (Inputs/h200/launch);
// results_replay hands the results back and refuses changed bundles.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/launch --log %t/requests.jsonl" \
// RUN:   LLMPTX_RUNNER="%python -m llmptx.testing.results_replay --results %S/Inputs/h200/launch/results.json --ran %S/Inputs/h200/launch/bundles" \
// RUN:   llmptx-opt %S/Inputs/launch/scale.mlir --llm-lower="provider=exec cache=off verify=exec samples=4 repairs=1 emit-bundles=%t/bundles report=%t/report.json" \
// RUN:   -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT
// RUN: FileCheck %s --input-file=%t/report.json --check-prefix=REPORT
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --summary | FileCheck %s --check-prefix=OBJECTS
// RUN: FileCheck %s --input-file=%t/out.mlir --check-prefix=HOST
// RUN: llmptx-opt %t/out.mlir --llmgen-select-object=index=1 | FileCheck %s --check-prefix=ALTERNATE

// Without verification by execution (the runner fails) a candidate with its
// own launch is never taken, whatever the policy asks.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/launch" LLMPTX_RUNNER=false \
// RUN:   llmptx-opt %S/Inputs/launch/scale.mlir --llm-lower="provider=exec cache=off verify=exec select=llm samples=3 repairs=1" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOEXEC

// REMARK-DAG: remark: llmgen: @scale: selected the LLM kernel: candidate s0r0 verified by execution, 1.54x the reference (95% CI 1.54..1.54, faster); under its own launch grid (ceildiv(N, 1024), 1, 1), block (256, 1, 1)
// REMARK-DAG: remark: llmgen: @scale_block: selected the LLM kernel: candidate s2r1 verified by execution
// REMARK-DAG: remark: llmgen: @scale_elsewhere: selected the LLM kernel: candidate s1r1 verified by execution

// Only @scale's prompts offer the choice.
// PROMPT-NOT: "template_version": "llmptx-translate-v1+launch-v1"
// PROMPT:     "kernel": "scale", "sample_index": {{[0-9]}}, "template_version": "llmptx-translate-v1+launch-v1"
// PROMPT-NOT: "kernel": "scale_{{block|elsewhere}}", "sample_index": {{[0-9]}}, "template_version": "llmptx-translate-v1+launch-v1"
// PROMPT:     ## Launch configuration (yours to choose)\nThe host code launches this kernel with grid (ceildiv(N, 256), 1, 1), block (256, 1, 1) (2 launch(es), all in this module)

// REPORT:      "launch: error: grid[0] uses 'M', which is not a size (sizes: N)"
// REPORT:      "launch: error: block[0] = 2048 is outside [1, 1024]",
// REPORT:      "candidate.ptx:18:1: error: .maxntid 128, 1, 1 allows fewer threads than the block the kernel is launched with (256, 1, 1)"
// REPORT:      "exec_details": "unwritten at shape (N=1025) offset 0: 1 elements unwritten; arg1[1024] expected 6.56900692, got nan(0x7fbadbad)
// REPORT-NEXT: "exec_verdict": "unwritten",
// REPORT-NEXT: "launch": {
// REPORT:        "ceildiv(N, 2048)",
// REPORT:      "launch_freedom": "allowed: 2 host launch(es) of grid (ceildiv(N, 256), 1, 1), block (256, 1, 1)"
// REPORT-NEXT: "module": "kernels",
// REPORT-NEXT: "name": "scale",
// REPORT:      "launch_freedom": "fixed: the launch at scale.mlir:83:5 has block (128, 1, 1) where verification runs (256, 1, 1)"
// REPORT:      "launch_freedom": "fixed: the module has no gpu.launch_func of @scale_elsewhere (its launches are elsewhere)"

// Both objects record the launch they need.
// OBJECTS: kernels[0] slot=selected source=llm {{.*}}@scale=llm(s0r0)[block 256, 1, 1 grid ceildiv(N, 1024), 1, 1], @scale_block=llm(s2r1), @scale_elsewhere=llm(s1r1)
// OBJECTS: kernels[1] slot=alternate source=nvptx {{.*}}@scale=nvptx[block 256, 1, 1 grid ceildiv(N, 256), 1, 1], @scale_block=nvptx, @scale_elsewhere=nvptx

// Both launches of @scale now compute ceildiv(N, 1024) from the N each one
// passes (the second passes %arg1 first); @scale_block keeps its own.
// HOST:      %[[N0:.*]] = memref.dim %arg0, %c0_{{[0-9]+}} : memref<?xf32>
// HOST:      %[[G0:.*]] = arith.ceildivsi %[[N0]], %c1024 : index
// HOST:      gpu.launch_func @kernels::@scale blocks in (%[[G0]], %{{.*}}, %{{.*}}) threads in (%c256{{.*}}, %{{.*}}, %{{.*}}) args(%arg0 : memref<?xf32>, %arg1 : memref<?xf32>
// HOST:      %[[N1:.*]] = memref.dim %arg1, %c0_{{[0-9]+}} : memref<?xf32>
// HOST:      %[[G1:.*]] = arith.ceildivsi %[[N1]], %c1024{{.*}} : index
// HOST:      gpu.launch_func @kernels::@scale blocks in (%[[G1]], %{{.*}}, %{{.*}}) threads in (%c256{{.*}}, %{{.*}}, %{{.*}}) args(%arg1 : memref<?xf32>, %arg0 : memref<?xf32>
// HOST:      gpu.launch_func @kernels::@scale_block blocks in (%{{.*}}, %c1, %c1) threads in (%c128, %c1, %c1)

// The alternate object is launched as the reference needs.
// ALTERNATE: %[[G:.*]] = arith.ceildivsi %{{.*}}, %c256{{.*}} : index
// ALTERNATE: gpu.launch_func @kernels::@scale blocks in (%[[G]], %{{.*}}, %{{.*}}) threads in (%c256

// NOEXEC: remark: llmgen: @scale: using the NVPTX reference: candidates s0r0, s1r0 bring their own launch, which is taken only after verification by execution, and that did not run: the runner failed (exit status 1) and said nothing
