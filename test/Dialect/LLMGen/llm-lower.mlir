// RUN: llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %python -m llmptx.gpu_binary %t.mlir --list | FileCheck %s --check-prefix=OBJECTS
// RUN: llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower="alternate=false chip=sm_90a O=2" | FileCheck %s --check-prefix=SINGLE

// Without a provider every kernel uses the reference and a remark says so, at
// the module (or the gpu.launch it was outlined from).
// REMARK: ordinary.mlir:6:3: remark: llmgen: using the NVPTX reference: no provider configured
// REMARK: ordinary.mlir:69:3: remark: llmgen: using the NVPTX reference: no provider configured
// REMARK: ordinary.mlir:{{[0-9]+}}:5: remark: llmgen: using the NVPTX reference: no provider configured

// Each gpu.module (including the one outlined from gpu.launch) becomes a
// gpu.binary with the selected object first and the other second, both
// carrying #nvvm.target so downstream passes are unchanged.
// CHECK-DAG: gpu.binary @elementwise [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {O = 3 : i32, llmgen.reason = "{{.*}}", llmgen.slot = "selected", llmgen.source = "nvptx"}, kernels = <[#gpu.kernel_metadata<"relu2_f16"{{.*}}"saxpy"{{.*}}"vadd"{{.*}}assembly = "{{.*}}.visible .entry vadd({{.*}}#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {{{.*}}llmgen.slot = "alternate", llmgen.source = "nvptx"}
// CHECK-DAG: gpu.binary @tiled [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">

// Host code is kept as written; launches now refer to the binaries.
// CHECK: func.func @host
// CHECK: gpu.launch_func @elementwise::@vadd blocks in
// CHECK: gpu.launch_func @host_kernel::@host_kernel blocks in
// CHECK-NOT: gpu.launch blocks
// CHECK: return
// CHECK: gpu.binary @host_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">

// OBJECTS: elementwise[0] {{[0-9]+}} bytes: {{.*}}llmgen.slot = "selected", llmgen.source = "nvptx"
// OBJECTS: elementwise[1] {{[0-9]+}} bytes: {{.*}}llmgen.slot = "alternate", llmgen.source = "nvptx"
// OBJECTS: tiled[0]
// OBJECTS: tiled[1]
// OBJECTS: host_kernel[0]
// OBJECTS: host_kernel[1]

// SINGLE: gpu.binary @elementwise [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {O = 2 : i32, {{.*}}llmgen.slot = "selected"{{.*}}]
// SINGLE-NOT: llmgen.slot = "alternate"
