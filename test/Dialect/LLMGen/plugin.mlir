// REQUIRES: system-mlir-opt
// Debian's own mlir-opt loads the plugin: #llmgen.target then works in the
// stock gpu-module-to-binary, and the llm-lower pipeline is available
// through --pass-pipeline (plugin passes are not accepted as --flags there).
// RUN: %system_mlir_opt --load-dialect-plugin=%mlir_opt_plugin --load-pass-plugin=%mlir_opt_plugin %s \
// RUN:   --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf, convert-gpu-to-nvvm{index-bitwidth=64}, reconcile-unrealized-casts), gpu-module-to-binary{format=isa})' \
// RUN:   2>&1 | FileCheck %s --check-prefix=STOCK
// RUN: %system_mlir_opt --load-dialect-plugin=%mlir_opt_plugin --load-pass-plugin=%mlir_opt_plugin %s \
// RUN:   --pass-pipeline='builtin.module(llm-lower{chip=sm_90 alternate=false})' 2>&1 | FileCheck %s --check-prefix=PIPELINE

// STOCK: remark: llmgen: using the NVPTX reference
// STOCK: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {{{.*}}llmgen.source = "nvptx"}{{.*}}assembly = "{{.*}}.visible .entry scale(
// STOCK: func.func @host

// PIPELINE: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {{{.*}}llmgen.source = "nvptx"}
// PIPELINE-NOT: #gpu.object
// PIPELINE: func.func @host

module attributes {gpu.container_module} {
  gpu.module @kernels [#llmgen.target<chip = "sm_90">] {
    gpu.func @scale(%x: memref<?xf32>, %a: f32, %n: index) kernel {
      %i = gpu.thread_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.mulf %v, %a : f32
        memref.store %r, %x[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @host(%x: memref<?xf32>, %a: f32, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%x : memref<?xf32>, %a : f32, %n : index)
    return
  }
}
