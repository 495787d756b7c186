// RUN: llmptx-opt %s -llmgen-record-kernels | FileCheck %s

// Only kernels are recorded, with their own SSA names and attributes; helper
// functions are not.
// CHECK-LABEL: gpu.module @kernels
// CHECK-SAME: llmgen.kernels = {
// CHECK-SAME: scale = {source = "gpu.func @scale(%arg0: memref<?xf32>, %arg1: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, llmgen.spec = \22scale in place\22} {\0A
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
    func.func @helper(%v: f32, %a: f32) -> f32 {
      %r = arith.mulf %v, %a : f32
      return %r : f32
    }
  }
}
