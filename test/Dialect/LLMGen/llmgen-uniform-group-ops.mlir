// RUN: llmptx-opt %s --llmgen-uniform-group-ops | FileCheck %s
// RUN: sed '/^ *[/][/] BEGIN-NOT-UNIFORM/,/^ *[/][/] END-NOT-UNIFORM/d' %s | llmptx-opt --llm-lower 2>/dev/null | FileCheck %s --check-prefix=LOWERED
//
// A gpu.all_reduce in the entry block of a gpu.launch is uniform: its folder
// marks it so, as -gpu-lower-to-nvvm-pipeline's first conversion does before
// outlining. Without it, --llm-lower failed: "failed to legalize operation
// 'gpu.all_reduce' that was explicitly marked illegal". One nested in a
// conditional is left alone (neither pipeline lowers it), and so is the
// host code.

// CHECK-LABEL: func.func @main
// CHECK: memref.alloc() : memref<32xf32>
// CHECK: gpu.all_reduce %{{.*}} uniform {
// CHECK: scf.if
// CHECK: gpu.all_reduce add %{{.*}} {
// CHECK-NOT: uniform

// LOWERED: gpu.binary @main_kernel
// LOWERED: shfl.sync.bfly.b32
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c0 = arith.constant 0 : index
    %data = memref.alloc() : memref<32xf32>
    %sum = memref.alloc() : memref<1xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %v = memref.load %data[%tx] : memref<32xf32>
      %r = gpu.all_reduce %v {
      ^bb(%lhs : f32, %rhs : f32):
        %s = arith.addf %lhs, %rhs : f32
        "gpu.yield"(%s) : (f32) -> ()
      } : (f32) -> (f32)
      memref.store %r, %sum[%c0] : memref<1xf32>
      gpu.terminator
    }
    // BEGIN-NOT-UNIFORM
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %first = arith.cmpi eq, %bx, %c0 : index
      scf.if %first {
        %v = memref.load %data[%tx] : memref<32xf32>
        %r = gpu.all_reduce add %v {} : (f32) -> (f32)
        memref.store %r, %sum[%c0] : memref<1xf32>
      }
      gpu.terminator
    }
    // END-NOT-UNIFORM
    return
  }
}
