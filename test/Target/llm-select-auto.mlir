// select=auto selects an LLM kernel only after verification by execution.
// Without it (verify=compile) the reference is selected, and the valid
// candidate is kept as the alternate object for A/B.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o %t/out.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: %python -m llmptx.gpu_binary %t/out.mlir --list | FileCheck %s --check-prefix=OBJECTS

// select=nvptx keeps the reference but still asks, for the alternate.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off select=nvptx" -o %t/nvptx.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NVPTX
// RUN: %python -m llmptx.gpu_binary %t/nvptx.mlir --list | FileCheck %s --check-prefix=OBJECTS

// REMARK: remark: llmgen: @vadd: using the NVPTX reference: select=auto needs verification by execution, which did not run for candidate s0r1: verify=compile
// NVPTX: remark: llmgen: @vadd: using the NVPTX reference: select=nvptx

// OBJECTS: kernels[0] {{.*}}llmgen.slot = "selected", llmgen.source = "nvptx"}
// OBJECTS: kernels[1] {{.*}}llmgen.kernels = {vadd = {{{.*}}candidate = "s0r1"{{.*}}reason = "alternate: candidate s0r1, not selected", source = "llm"{{.*}}llmgen.slot = "alternate", llmgen.source = "llm"}
