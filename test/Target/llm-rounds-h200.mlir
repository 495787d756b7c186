// Optimization rounds with launch freedom, with results from an H200.
// Inputs/host/sgemm_program.mlir holds the only launch of @sgemm (16 x 16
// shared-memory tiles; its largest checked shape is M = N = K = 2048, and
// speed is decided at the production shape 4096^3, 137 GFLOP). The scripted answers
// (Inputs/answers/rounds): the first search gives the suite's 64 x 64 tile
// under the original launch; round 1 a 128 x 128 register-tiled kernel
// with its own launch (block 256, grid ceildiv(N, 128) x ceildiv(M, 128));
// round 2 the same kernel again. Each round's bundle holds its candidates
// and the incumbent, re-timed; llmptx-runner ran the three bundles on an
// H200 (Inputs/h200/rounds, with SASS statistics from ptxas and nvdisasm
// there; Nsight Compute counters in prompts are covered by CountersTest)
// and results_replay hands the results back, refusing bundles that differ
// by one byte.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/rounds --log %t/requests.jsonl" \
// RUN:   LLMPTX_RUNNER="%python -m llmptx.testing.results_replay --results %S/Inputs/h200/rounds/results.json --ran %S/Inputs/h200/rounds/bundles" \
// RUN:   llmptx-opt %S/../Inputs/host/sgemm_program.mlir --llm-lower="provider=exec cache=off mode=optimize rounds=2 verify=exec emit-bundles=%t/bundles report=%t/report.json" \
// RUN:   -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: ls %t/bundles | FileCheck %s --check-prefix=BUNDLES
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT
// RUN: FileCheck %s --input-file=%t/report.json --check-prefix=REPORT
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --summary | FileCheck %s --check-prefix=OBJECTS
// RUN: FileCheck %s --input-file=%t/out.mlir --check-prefix=HOST
// RUN: llmptx-opt %t/out.mlir --llmgen-select-object=index=1 | FileCheck %s --check-prefix=ALTERNATE

// Rounds need measurements: without a runner there are none.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/rounds --log %t/noexec.jsonl" LLMPTX_RUNNER=false \
// RUN:   llmptx-opt %S/../Inputs/host/sgemm_program.mlir --llm-lower="provider=exec cache=off mode=optimize rounds=2 verify=exec report=%t/noexec.json" \
// RUN:   -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/noexec.json --check-prefix=NOEXEC
// RUN: not grep -q optimization_round %t/noexec.jsonl

// Round 1 gains beyond the noise; round 2's kernel is the same one, whose
// interval overlaps the incumbent's, so the rounds stop there.
// REMARK:      remark: llmgen: @sgemm: optimization round 1: o1s0r0 4.303x (95% CI 4.302..4.306) beats s0r0 3.774x (95% CI 3.772..3.776)
// REMARK:      remark: llmgen: @sgemm: optimization round 2: gained nothing beyond the noise: o2s0r0 4.304x (95% CI 4.302..4.306) against o1s0r0 4.303x (95% CI 4.302..4.304) (a gain needs an interval 2% above the incumbent's)
// REMARK:      remark: llmgen: @sgemm: selected the LLM kernel: candidate o1s0r0 verified by execution, 4.30x the reference (95% CI 4.30..4.30, faster); under its own launch grid (ceildiv(N, 128), ceildiv(M, 128), 1), block (256, 1, 1)

// BUNDLES:      sgemm_module.sgemm.bundle.json
// BUNDLES-NEXT: sgemm_module.sgemm.o1.bundle.json
// BUNDLES-NEXT: sgemm_module.sgemm.o2.bundle.json

// Each round starts a conversation that shows the incumbent and what was
// measured of it and of the reference in the same run.
// PROMPT:      "kernel": "sgemm", "sample_index": 0, "template_version": "llmptx-optimize-v1+launch-v1"
// PROMPT:      "kernel": "sgemm", "optimization_round": 1, "sample_index": 0, "template_version": "llmptx-improve-v1+launch-v1"
// PROMPT-SAME: ## Best kernel so far: candidate s0r0 (verified by execution; make it faster)
// PROMPT-SAME: ## What was measured on the GPU and by ptxas\nspeed: 3.77x the reference (95% CI 3.77..3.78, faster)\nspeed at the largest checked shape (K=2048, M=2048, N=2048): 3.61x the reference\ntime: 4.5380 ms median over 91 runs
// PROMPT-SAME: at (K=4096, M=4096, N=4096)
// PROMPT-SAME: compute: 30286 GFLOP/s, 45% of the device's fp32 peak of 66908 GFLOP/s
// PROMPT-SAME: as the driver loaded it: 77 registers per thread, 0 B of local memory per thread, 8448 B of static shared memory per block
// PROMPT-SAME: SASS 587 instructions (FFMA 256, IADD3 65, ISETP 58, LDS.128 32,
// PROMPT-SAME: occupancy: 3 block(s) of 256 threads per SM, 38% of the SM's threads
// PROMPT-SAME: the reference, in the same run:\ntime: 17.1241 ms
// PROMPT-SAME: SASS 131 instructions (IMAD 19, FFMA 16, LDS 16,
// PROMPT-SAME: ptxas -v here: registers
// PROMPT-SAME: This is optimization round 1.
// PROMPT:      "kernel": "sgemm", "optimization_round": 2, "sample_index": 0, "template_version": "llmptx-improve-v1+launch-v1"
// PROMPT-SAME: ## Best kernel so far: candidate o1s0r0
// PROMPT-SAME: ## Its launch\n```launch\n{\"block\":[256,1,1],\"grid\":[\"ceildiv(N, 128)\",\"ceildiv(M, 128)\",\"1\"]}\n```
// PROMPT-SAME: SASS 1910 instructions (FFMA 1024,
// PROMPT-SAME: occupancy: 2 block(s) of 256 threads per SM, 25% of the SM's threads

// REPORT:      "rounds": [
// REPORT-NEXT:   {
// REPORT-NEXT:     "best": "o1s0r0",
// REPORT-NEXT:     "candidates": [
// REPORT-NEXT:       "o1s0r0"
// REPORT-NEXT:     ],
// REPORT-NEXT:     "gained": true,
// REPORT-NEXT:     "incumbent": "s0r0",
// REPORT:          "round": 1
// REPORT:          "best": "o2s0r0",
// REPORT:          "gained": false,
// REPORT-NEXT:     "incumbent": "o1s0r0",
// REPORT:          "round": 2
// REPORT:      "rounds_note": "stopped after round 2: gained nothing beyond the noise

// OBJECTS: sgemm_module[0] slot=selected source=llm {{.*}}@sgemm=llm(o1s0r0)[block 256, 1, 1 grid ceildiv(N, 128), ceildiv(M, 128), 1]
// OBJECTS: sgemm_module[1] slot=alternate source=nvptx {{.*}}@sgemm=nvptx[block 16, 16, 1 grid ceildiv(N, 16), ceildiv(M, 16), 1]

// The launch reads N and M from the device buffers it passes.
// HOST:      %[[A:[a-z0-9_]+]] = gpu.alloc (%{{.*}}, %{{.*}}) : memref<?x?xf32>
// HOST:      %[[B:[a-z0-9_]+]] = gpu.alloc (%{{.*}}, %{{.*}}) : memref<?x?xf32>
// HOST:      %[[C:[a-z0-9_]+]] = gpu.alloc (%{{.*}}, %{{.*}}) : memref<?x?xf32>
// HOST:      %[[M:[a-z0-9_]+]] = memref.dim %[[A]], %c0_{{[0-9]+}} : memref<?x?xf32>
// HOST:      %[[N:[a-z0-9_]+]] = memref.dim %[[B]], %c1_{{[0-9]+}} : memref<?x?xf32>
// HOST:      %[[GX:.*]] = arith.ceildivsi %[[N]], %c128{{.*}} : index
// HOST:      %[[GY:.*]] = arith.ceildivsi %[[M]], %c128{{.*}} : index
// HOST:      gpu.launch_func @sgemm_module::@sgemm blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in (%c256, %{{.*}}, %{{.*}}) args(%[[A]] : memref<?x?xf32>, %[[B]] : memref<?x?xf32>, %[[C]] : memref<?x?xf32>)

// ALTERNATE: %[[GX:.*]] = arith.ceildivsi %{{.*}}, %c16{{.*}} : index
// ALTERNATE: %[[GY:.*]] = arith.ceildivsi %{{.*}}, %c16{{.*}} : index
// ALTERNATE: gpu.launch_func @sgemm_module::@sgemm blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in (%c16{{.*}}, %c16{{.*}}, %{{.*}})

// NOEXEC: "rounds_note": "no optimization rounds: they need the kernel verified and timed by execution first (the runner failed (exit status 1) and said nothing)"
