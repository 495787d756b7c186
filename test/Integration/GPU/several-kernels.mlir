// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// Three gpu.launch bodies in one function (three kernels of one module),
// on one host_shared buffer: a fill, a scale, and a block-wide inclusive
// prefix sum through workgroup memory and gpu.barrier.

// CHECK: ( 2, 6, 12, 20, 30, 42, 56, 72, 90, 110, 132, 156, 182, 210, 240, 272 )

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %buf = gpu.alloc host_shared () : memref<16xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %i = arith.index_cast %tx : index to i32
      %one = arith.constant 1 : i32
      %v = arith.addi %i, %one : i32
      memref.store %v, %buf[%tx] : memref<16xi32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %v = memref.load %buf[%tx] : memref<16xi32>
      %two = arith.constant 2 : i32
      %s = arith.muli %v, %two : i32
      memref.store %s, %buf[%tx] : memref<16xi32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
               workgroup(%shared : memref<16xi32, #gpu.address_space<workgroup>>) {
      %v = memref.load %buf[%tx] : memref<16xi32>
      memref.store %v, %shared[%tx] : memref<16xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %zero = arith.constant 0 : i32
      %end = arith.addi %tx, %c1 : index
      %sum = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> i32 {
        %x = memref.load %shared[%j] : memref<16xi32, #gpu.address_space<workgroup>>
        %n = arith.addi %acc, %x : i32
        scf.yield %n : i32
      }
      memref.store %sum, %buf[%tx] : memref<16xi32>
      gpu.terminator
    }
    %zero = arith.constant 0 : i32
    %v = vector.transfer_read %buf[%c0], %zero : memref<16xi32>, vector<16xi32>
    vector.print %v : vector<16xi32>
    return
  }
}
