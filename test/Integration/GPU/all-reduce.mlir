// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// gpu.all_reduce with a region inside gpu.launch, on host-shared memory;
// the host prints the sum with vector.print. Built with llm-lower and
// host_build alone; run (with object 0 and object 1) where a GPU answers.

// CHECK: all_reduce sum: 496

module attributes {gpu.container_module} {
  func.func @main() attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %data = gpu.alloc host_shared () : memref<32xf32>
    %sum = gpu.alloc host_shared () : memref<1xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %data[%i] : memref<32xf32>
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %v = memref.load %data[%tx] : memref<32xf32>
      %r = gpu.all_reduce %v {
      ^bb(%lhs : f32, %rhs : f32):
        %s = arith.addf %lhs, %rhs : f32
        "gpu.yield"(%s) : (f32) -> ()
      } : (f32) -> (f32)
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %r, %sum[%c0] : memref<1xf32>
      }
      gpu.terminator
    }
    %t = gpu.wait async
    gpu.wait [%t]
    %r = memref.load %sum[%c0] : memref<1xf32>
    vector.print str "all_reduce sum: "
    vector.print %r : f32
    return
  }
}
