// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// A thread-block cluster launch (sm_90): gpu.launch with clusters, a grid
// of 4x2 blocks in clusters of 2x2; each block records its cluster id and
// its rank in the cluster (gpu.cluster_id, gpu.cluster_block_id,
// gpu.cluster_dim_blocks) in host_shared memory.

// CHECK: ( 0, 1, 2, 3, 10, 11, 12, 13 )
// CHECK-NEXT: ( 4, 4, 4, 4, 4, 4, 4, 4 )

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ids = gpu.alloc host_shared () : memref<8xi32>
    %sizes = gpu.alloc host_shared () : memref<8xi32>
    gpu.launch clusters(%cx, %cy, %cz) in (%ncx = %c2, %ncy = %c2, %ncz = %c1)
               blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %cidx = gpu.cluster_id x
      %cidy = gpu.cluster_id y
      %rx = gpu.cluster_block_id x
      %ry = gpu.cluster_block_id y
      %dx = gpu.cluster_dim_blocks x
      %dy = gpu.cluster_dim_blocks y
      // 2 * (the cluster's linear id) + rank x + 10 * rank y
      %ten = arith.constant 10 : index
      %a = arith.muli %cidy, %c2 : index
      %b = arith.addi %a, %cidx : index
      %c = arith.muli %b, %c2 : index
      %rank_y = arith.muli %ry, %ten : index
      %d = arith.addi %c, %rx : index
      %value = arith.addi %d, %rank_y : index
      %row = arith.muli %by, %c4 : index
      %slot = arith.addi %row, %bx : index
      %vi = arith.index_cast %value : index to i32
      memref.store %vi, %ids[%slot] : memref<8xi32>
      %n = arith.muli %dx, %dy : index
      %ni = arith.index_cast %n : index to i32
      memref.store %ni, %sizes[%slot] : memref<8xi32>
      gpu.terminator
    }
    %zero = arith.constant 0 : i32
    %v = vector.transfer_read %ids[%c0], %zero : memref<8xi32>, vector<8xi32>
    vector.print %v : vector<8xi32>
    %s = vector.transfer_read %sizes[%c0], %zero : memref<8xi32>, vector<8xi32>
    vector.print %s : vector<8xi32>
    return
  }
}
