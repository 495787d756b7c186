// REQUIRES: ptxas, nvrtc
// language=cuda: the model answers in CUDA C++, NVRTC makes PTX of it in a
// limited child, and that PTX goes through lint, the ABI check and ptxas
// like any PTX answer. Compile errors go back with NVRTC's line and column;
// the source, the compiler and its options are kept in the report and the
// object's properties.
// RUN: rm -rf %t && mkdir -p %t

// The first answer does not compile; the repair names the line and column,
// and the second answer is selected.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/cuda --log %t/requests.jsonl" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=cuda select=llm report=%t/repair.json" -o %t/repair.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPAIR
// RUN: FileCheck %s --input-file=%t/requests.jsonl --check-prefix=PROMPT
// RUN: FileCheck %s --input-file=%t/repair.json --check-prefix=REPORT
// RUN: FileCheck %s --input-file=%t/repair.mlir --check-prefix=OBJECT
// REPAIR: remark: llmgen: @vadd: selected the LLM kernel: select=llm: candidate s0r1, checked at level compile
// PROMPT: "template_version": "llmptx-translate-v1+cuda-v1"
// PROMPT-SAME: ## Kernel prototype to define (use it exactly)\n```cuda\nextern \"C\" __global__ void vadd(\n    float *arg0_allocated,\n    float *arg0,\n    long long arg0_offset,
// PROMPT: "template_version": "llmptx-translate-v1+cuda-v1+repair-v1"
// PROMPT-SAME: candidate.cu:12:32: error: identifier \"stride0\" is undefined
// PROMPT-SAME: in one ```cuda block
// REPORT: "language": "cuda"
// REPORT: "status": "compile-error"
// REPORT: "cuda_compiler": "NVRTC {{[0-9.]+}} -arch=compute_90 -default-device -std=c++17 -lineinfo
// REPORT: "cuda_source": "extern \"C\" __global__ void vadd(
// REPORT: "language": "cuda"
// REPORT: "language": "cuda",
// OBJECT: cuda_compiler = "NVRTC
// OBJECT-SAME: language = "cuda"
// OBJECT-SAME: .file\091 \22candidate.cu\22

// An include outside the allowed set, and an entry whose parameter does not
// match the ABI contract. Each is a clear error that names it.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/cuda-include" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=cuda repairs=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INCLUDE
// INCLUDE: compile-error (candidate.cu:1:1: error: '#include <cstdio>' is not allowed: a candidate may include only cuda_fp16.h, cuda_bf16.h, mma.h, cuda/barrier, cuda/pipeline
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/cuda-abi" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=cuda repairs=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ABI
// ABI: abi-error (candidate.ptx:{{[0-9]+}}:{{[0-9]+}}: error: parameter 16 ('vadd_param_15'): expected .u64 (scalar %arg3), found .u32

// A translation unit NVRTC cannot finish (a preprocessor explosion): killed
// by its limits, a diagnostic, and the build goes on.
// RUN: env LLMPTX_NVRTC_TIMEOUT_S=2 LLMPTX_NVRTC_MEMORY_MB=512 \
// RUN:   LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/cuda-explode" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=cuda repairs=0" -o %t/explode.mlir 2>&1 | FileCheck %s --check-prefix=EXPLODE
// EXPLODE: remark: llmgen: @vadd: using the NVPTX reference: no valid candidate: sample 0: compile-error (candidate.cu: error: NVRTC {{did not finish within 2 s; killed|crashed}}

// A toolkit without NVRTC: language=cuda cannot ask (strict says so as an
// error), language=auto asks every sample for PTX.
// RUN: mkdir -p %t/cuda/bin && ln -s %ptxas %t/cuda/bin/ptxas
// RUN: env CUDA_HOME=%t/cuda LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/cuda" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=cuda" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-NVRTC
// NO-NVRTC: remark: llmgen: using the NVPTX reference: language=cuda needs NVRTC: no NVRTC (libnvrtc.so) in the CUDA toolkit at {{.*}}cuda
// RUN: env CUDA_HOME=%t/cuda LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair --log %t/auto.jsonl" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=auto samples=2 select=llm" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO-PTX
// RUN: not grep -c cuda-v1 %t/auto.jsonl
// AUTO-PTX: remark: llmgen: language=auto: every sample is asked for PTX: no NVRTC
// AUTO-PTX: remark: llmgen: @vadd: selected the LLM kernel

// language=auto with NVRTC: sample 0 in PTX, sample 1 in CUDA C++.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/cuda-auto --log %t/auto2.jsonl" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off language=auto samples=2 select=llm report=%t/auto2.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: grep -o '"template_version": "[^"]*"' %t/auto2.jsonl | sort | FileCheck %s --check-prefix=AUTO-VERSIONS
// AUTO: remark: llmgen: @vadd: selected the LLM kernel
// AUTO-VERSIONS: "template_version": "llmptx-translate-v1"
// AUTO-VERSIONS-NEXT: "template_version": "llmptx-translate-v1+cuda-v1"

// LLMPTX_LANGUAGE gives the language when the option does not; a spelling
// it does not know asks no model.
// RUN: env LLMPTX_LANGUAGE=rust LLMPTX_EXEC_COMMAND=false llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-ENV
// BAD-ENV: remark: llmgen: using the NVPTX reference: LLMPTX_LANGUAGE='rust' is not one of ptx, cuda, auto
