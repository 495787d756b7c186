// A candidate that is faster only on aligned inputs is rejected when the
// module does not state the alignment. Inputs/aligned.mlir states none; the
// answer (Inputs/answers/aligned) uses 128-bit loads and stores without
// checking the addresses. The runner gives each pointer exactly the
// element's alignment (4 bytes) and no more, so on an H200 the first shape
// with a full vector faults (Inputs/h200/aligned: the runner's results,
// handed back by results_replay). The prompt says what may be assumed.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/aligned --log %t/requests.jsonl" \
// RUN:   LLMPTX_RUNNER="%python -m llmptx.testing.results_replay --results %S/Inputs/h200/aligned/results.json --ran %S/Inputs/h200/aligned/bundles" \
// RUN:   llmptx-opt %S/Inputs/aligned.mlir --llm-lower="provider=exec cache=off verify=exec repairs=0 emit-bundles=%t/bundles" \
// RUN:   -o %t/out.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT
// RUN: FileCheck %s --input-file=%t/bundles/kernels.vadd4.bundle.json --check-prefix=BUNDLE
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --summary | FileCheck %s --check-prefix=OBJECTS

// CHECK: remark: llmgen: @vadd4: using the NVPTX reference: every candidate failed verification by execution: s0r0: illegal-address at shape (N=4) offset 0: kernel execution: CUDA_ERROR_MISALIGNED_ADDRESS (716): misaligned address

// PROMPT: ## Stated facts (the only assumptions allowed)\n%arg0: memref<?xf32>; its aligned pointer is only known to be aligned to its element size

// BUNDLE-NOT: "alignment"

// OBJECTS: kernels[0] slot=selected source=nvptx
