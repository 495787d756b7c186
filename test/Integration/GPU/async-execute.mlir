// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// The async dialect around GPU work: a task copies host data to the device,
// two tasks fork from it (each its own device copy), a third joins them in a
// kernel that writes registered host memory; the host awaits it. GPU ops
// inside async.execute run on their own stream (gpu-async-region), the tasks
// on the runtime's worker threads.

// CHECK: [84, 84, 84, 84, 84, 84, 84, 84, 84, 84, 84, 84, 84, 84, 84, 84]

module attributes {gpu.container_module} {
  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %count = arith.constant 16 : index
    %h0 = memref.alloc(%count) : memref<?xi32>
    %h0_unranked = memref.cast %h0 : memref<?xi32> to memref<*xi32>
    gpu.host_register %h0_unranked : memref<*xi32>
    %v0 = arith.constant 42 : i32
    scf.for %i = %c0 to %count step %c1 {
      memref.store %v0, %h0[%i] : memref<?xi32>
    }

    %t0, %f0 = async.execute () -> !async.value<memref<?xi32>> {
      %b0 = gpu.alloc(%count) : memref<?xi32>
      gpu.memcpy %b0, %h0 : memref<?xi32>, memref<?xi32>
      async.yield %b0 : memref<?xi32>
    }
    %t1, %f1 = async.execute [%t0] (%f0 as %b0 : !async.value<memref<?xi32>>)
        -> !async.value<memref<?xi32>> {
      %b1 = gpu.alloc(%count) : memref<?xi32>
      gpu.memcpy %b1, %b0 : memref<?xi32>, memref<?xi32>
      async.yield %b1 : memref<?xi32>
    }
    %t2, %f2 = async.execute [%t0] (%f0 as %b0 : !async.value<memref<?xi32>>)
        -> !async.value<memref<?xi32>> {
      %b2 = gpu.alloc(%count) : memref<?xi32>
      gpu.memcpy %b2, %b0 : memref<?xi32>, memref<?xi32>
      async.yield %b2 : memref<?xi32>
    }
    %t3 = async.execute [%t1, %t2] (%f1 as %b1 : !async.value<memref<?xi32>>,
                                    %f2 as %b2 : !async.value<memref<?xi32>>) {
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %count, %sy = %c1, %sz = %c1) {
        %v1 = memref.load %b1[%tx] : memref<?xi32>
        %v2 = memref.load %b2[%tx] : memref<?xi32>
        %sum = arith.addi %v1, %v2 : i32
        memref.store %sum, %h0[%tx] : memref<?xi32>
        gpu.terminator
      }
      async.yield
    }
    async.await %t3 : !async.token
    call @printMemrefI32(%h0_unranked) : (memref<*xi32>) -> ()
    return
  }
}
