// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// Host memory (memref.alloc) registered with gpu.host_register through an
// unranked cast, written by a gpu.launch body in place, unregistered.

// CHECK: ( 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30 )

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %h = memref.alloc() : memref<16xi32>
    %u = memref.cast %h : memref<16xi32> to memref<*xi32>
    gpu.host_register %u : memref<*xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %i = arith.index_cast %tx : index to i32
      %x = arith.addi %i, %i : i32
      memref.store %x, %h[%tx] : memref<16xi32>
      gpu.terminator
    }
    %t = gpu.wait async
    gpu.wait [%t]
    gpu.host_unregister %u : memref<*xi32>
    %zero = arith.constant 0 : i32
    %v = vector.transfer_read %h[%c0], %zero : memref<16xi32>, vector<16xi32>
    vector.print %v : vector<16xi32>
    return
  }
}
