// REQUIRES: ptxas
// Per-kernel choices combine into one object: @vadd comes from the model,
// @scale (prose only) from the reference, in one PTX module that ptxas
// accepts. The alternate object is the reference.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/two" \
// RUN:   llmptx-opt %S/Inputs/two-kernels.mlir --llm-lower="provider=exec cache=off select=llm repairs=0" -o %t/out.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --list | FileCheck %s --check-prefix=OBJECTS
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --object 0 -o %t/selected.ptx
// RUN: %ptxas -arch=sm_90 %t/selected.ptx -o %t/selected.cubin
// RUN: FileCheck %s --input-file=%t/selected.ptx --check-prefix=PTX
// RUN: FileCheck %s --input-file=%t/out.mlir --check-prefix=HOST

// REMARK-DAG: remark: llmgen: @vadd: selected the LLM kernel: select=llm: candidate s0r0, checked at level compile
// REMARK-DAG: remark: llmgen: @scale: using the NVPTX reference: no valid candidate: sample 0: no-ptx

// OBJECTS: kernels[0] {{.*}}llmgen.kernels = {scale = {attempts = 1 : i64, reason = "no valid candidate: {{.*}}", source = "nvptx"}, vadd = {attempts = 1 : i64, candidate = "s0r0", {{.*}}source = "llm", verification = "compile"}}, {{.*}}llmgen.reason = "1 of 2 kernel(s) from the LLM", llmgen.slot = "selected", llmgen.source = "llm"}
// OBJECTS: kernels[1] {{.*}}llmgen.slot = "alternate", llmgen.source = "nvptx"}

// The reference's @scale stays, its @vadd is replaced by the model's.
// PTX: .version 8.0
// PTX: .visible .entry scale(
// PTX-NOT: .visible .entry vadd(
// PTX: // llmgen: LLM kernel 'vadd'
// PTX: .visible .entry vadd(
// PTX: mad.wide.u32

// HOST: func.func @host
// HOST: gpu.launch_func @kernels::@scale
