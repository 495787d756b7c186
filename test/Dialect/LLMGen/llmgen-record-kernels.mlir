// RUN: llmptx-opt %s -llmgen-record-kernels | FileCheck %s

// Only kernels are recorded, with their own SSA names and attributes; helper
// functions are not.
// CHECK-LABEL: gpu.module @kernels
// CHECK-SAME: llmgen.kernels = {
// CHECK-SAME: copy = {access = ["read", "write", "none"], align = array<i64: 16, 8, 0>, function_type = (memref<?xf32>, memref<8x?xf32, strided<[?, 1], offset: ?>>, memref<4xi32>) -> ()
// CHECK-SAME: scale = {access = ["readwrite", "value"], align = array<i64: 0, 0>, function_type = (memref<?xf32>, f32) -> (), source = "gpu.func @scale(%arg0: memref<?xf32>, %arg1: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, llmgen.spec = \22scale in place\22} {\0A
// CHECK-SAME: memref.store
// CHECK-NOT: helper = {
// CHECK: gpu.func @scale
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %a: f32) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
                    llmgen.spec = "scale in place"} {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xf32>
      %r = func.call @helper(%v, %a) : (f32, f32) -> f32
      memref.store %r, %x[%i] : memref<?xf32>
      gpu.return
    }
    // Writes through a subview count as writes of the argument.
    // llvm.align states 16-byte alignment of %src, memref.assume_alignment
    // 8-byte alignment of %dst (whose writes go through the assumption).
    gpu.func @copy(%src: memref<?xf32> {llvm.align = 16 : i64},
                   %dst: memref<8x?xf32, strided<[?, 1], offset: ?>>,
                   %unused: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = memref.load %src[%i] : memref<?xf32>
      %d = memref.assume_alignment %dst, 8 : memref<8x?xf32, strided<[?, 1], offset: ?>>
      %row = memref.subview %d[0, 0] [1, 4] [1, 1] : memref<8x?xf32, strided<[?, 1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
      memref.store %v, %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
      gpu.return
    }
    func.func @helper(%v: f32, %a: f32) -> f32 {
      %r = arith.mulf %v, %a : f32
      return %r : f32
    }
  }
}
