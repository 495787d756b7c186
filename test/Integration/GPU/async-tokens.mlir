// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// Explicit async token chains, as upstream's programs write them: an
// initial gpu.wait async, gpu.alloc async of device and host_shared memory,
// gpu.memset/gpu.memcpy async, a gpu.launch async depending on two tokens,
// gpu.dealloc async, and a final gpu.wait on the joined tokens.

// CHECK: ( 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 )

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %three = arith.constant 3.0 : f32
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    %out, %t2 = gpu.alloc async [%t0] host_shared () : memref<16xf32>
    %t3 = gpu.memset async [%t1] %dev, %three : memref<16xf32>, f32
    %t4 = gpu.launch async [%t2, %t3]
        blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
        threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %v = memref.load %dev[%tx] : memref<16xf32>
      %i = arith.index_cast %tx : index to i32
      %f = arith.sitofp %i : i32 to f32
      %s = arith.addf %v, %f : f32
      memref.store %s, %dev[%tx] : memref<16xf32>
      gpu.terminator
    }
    %t5 = gpu.memcpy async [%t4] %out, %dev : memref<16xf32>, memref<16xf32>
    %t6 = gpu.dealloc async [%t5] %dev : memref<16xf32>
    gpu.wait [%t5, %t6]
    %pad = arith.constant 0.0 : f32
    %v = vector.transfer_read %out[%c0], %pad : memref<16xf32>, vector<16xf32>
    vector.print %v : vector<16xf32>
    return
  }
}
