// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/llm-answer" \
// RUN:   llmptx-opt %s --llm-lower="chip=sm_90 provider=exec cache=off select=llm" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// memcpy-memset.mlir's program with the model's answer for its kernel
// (Inputs/llm-answer, a scripted exec provider): object 0 is the LLM
// kernel (select=llm), object 1 the NVPTX reference; both must print the
// same.

// REMARK: remark: llmgen: @add_index: selected the LLM kernel: select=llm: candidate s0r0
// CHECK: ( 7, 8, 9, 10, 11, 12, 13, 14 )

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add_index(%x: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xf32>
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %s = arith.addf %v, %f : f32
      memref.store %s, %x[%i] : memref<?xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %seven = arith.constant 7.0 : f32
    %d = gpu.alloc (%c8) : memref<?xf32>
    gpu.memset %d, %seven : memref<?xf32>, f32
    %n = memref.dim %d, %c0 : memref<?xf32>
    gpu.launch_func @kernels::@add_index blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%d : memref<?xf32>)
    %h = memref.alloc(%c8) : memref<?xf32>
    gpu.memcpy %h, %d : memref<?xf32>, memref<?xf32>
    gpu.dealloc %d : memref<?xf32>
    %zero = arith.constant 0.0 : f32
    %v = vector.transfer_read %h[%c0], %zero : memref<?xf32>, vector<8xf32>
    vector.print %v : vector<8xf32>
    memref.dealloc %h : memref<?xf32>
    return
  }
}
