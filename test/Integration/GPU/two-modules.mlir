// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// Two gpu.modules, each with a kernel, launched one after the other on
// host-shared memory; each module becomes its own gpu.binary.

// CHECK: ( 3, 5, 7, 9 )

module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @twice(%x: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xi32>
      %s = arith.addi %v, %v : i32
      memref.store %s, %x[%i] : memref<4xi32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @plus_three(%x: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xi32>
      %three = arith.constant 3 : i32
      %s = arith.addi %v, %three : i32
      memref.store %s, %x[%i] : memref<4xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = gpu.alloc host_shared () : memref<4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      memref.store %ii, %x[%i] : memref<4xi32>
    }
    gpu.launch_func @first::@twice blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<4xi32>)
    gpu.launch_func @second::@plus_three blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<4xi32>)
    %t = gpu.wait async
    gpu.wait [%t]
    %zero = arith.constant 0 : i32
    %v = vector.transfer_read %x[%c0], %zero : memref<4xi32>, vector<4xi32>
    vector.print %v : vector<4xi32>
    return
  }
}
