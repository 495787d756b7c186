// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// A wmma f64 matmul (gpu.subgroup_mma_* on f64, m8n8k4: D = A B + C with
// A[i][k] = i + k, B[k][j] = k - j, C = 1) on host-shared memory, the rows
// printed with vector.print.

// CHECK:      ( 15, 9, 3, -3, -9, -15, -21, -27 )
// CHECK-NEXT: ( 21, 11, 1, -9, -19, -29, -39, -49 )
// CHECK-NEXT: ( 27, 13, -1, -15, -29, -43, -57, -71 )
// CHECK-NEXT: ( 33, 15, -3, -21, -39, -57, -75, -93 )
// CHECK-NEXT: ( 39, 17, -5, -27, -49, -71, -93, -115 )
// CHECK-NEXT: ( 45, 19, -7, -33, -59, -85, -111, -137 )
// CHECK-NEXT: ( 51, 21, -9, -39, -69, -99, -129, -159 )
// CHECK-NEXT: ( 57, 23, -11, -45, -79, -113, -147, -181 )

module attributes {gpu.container_module} {
  func.func @main() attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc host_shared () : memref<8x4xf64>
    %b = gpu.alloc host_shared () : memref<4x8xf64>
    %d = gpu.alloc host_shared () : memref<8x8xf64>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %s = arith.addi %i, %k : index
        %si = arith.index_cast %s : index to i64
        %v = arith.sitofp %si : i64 to f64
        memref.store %v, %a[%i, %k] : memref<8x4xf64>
        %t = arith.subi %k, %i : index
        %ti = arith.index_cast %t : index to i64
        %w = arith.sitofp %ti : i64 to f64
        memref.store %w, %b[%k, %i] : memref<4x8xf64>
      }
      scf.for %j = %c0 to %c8 step %c1 {
        %one = arith.constant 1.0 : f64
        memref.store %one, %d[%i, %j] : memref<8x8xf64>
      }
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 4 : index} : memref<8x4xf64> -> !gpu.mma_matrix<8x4xf64, "AOp">
      %B = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 8 : index} : memref<4x8xf64> -> !gpu.mma_matrix<4x8xf64, "BOp">
      %C = gpu.subgroup_mma_load_matrix %d[%c0, %c0] {leadDimension = 8 : index} : memref<8x8xf64> -> !gpu.mma_matrix<8x8xf64, "COp">
      %D = gpu.subgroup_mma_compute %A, %B, %C : !gpu.mma_matrix<8x4xf64, "AOp">, !gpu.mma_matrix<4x8xf64, "BOp"> -> !gpu.mma_matrix<8x8xf64, "COp">
      gpu.subgroup_mma_store_matrix %D, %d[%c0, %c0] {leadDimension = 8 : index} : !gpu.mma_matrix<8x8xf64, "COp">, memref<8x8xf64>
      gpu.terminator
    }
    %t = gpu.wait async
    gpu.wait [%t]
    scf.for %i = %c0 to %c8 step %c1 {
      %zero = arith.constant 0.0 : f64
      %row = vector.transfer_read %d[%i, %c0], %zero : memref<8x8xf64>, vector<8xf64>
      vector.print %row : vector<8xf64>
    }
    return
  }
}
