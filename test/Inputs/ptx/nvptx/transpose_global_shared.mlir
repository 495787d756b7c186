// 2-D tiled transpose through a memref.global in address space 3.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tile : memref<32x33xf32, #gpu.address_space<workgroup>>
    gpu.func @transpose(%in: memref<?x?xf32>, %out: memref<?x?xf32>) kernel
        attributes {known_block_size = array<i32: 32, 32, 1>} {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c32 = arith.constant 32 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %rows = memref.dim %in, %c0 : memref<?x?xf32>
      %cols = memref.dim %in, %c1 : memref<?x?xf32>
      %tile = memref.get_global @tile : memref<32x33xf32, #gpu.address_space<workgroup>>
      %r0 = arith.muli %by, %c32 : index
      %c0i = arith.muli %bx, %c32 : index
      %r = arith.addi %r0, %ty : index
      %c = arith.addi %c0i, %tx : index
      %inr = arith.cmpi ult, %r, %rows : index
      %inc = arith.cmpi ult, %c, %cols : index
      %ok = arith.andi %inr, %inc : i1
      scf.if %ok {
        %v = memref.load %in[%r, %c] : memref<?x?xf32>
        memref.store %v, %tile[%ty, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %orow = arith.addi %c0i, %ty : index
      %ocol = arith.addi %r0, %tx : index
      %inr2 = arith.cmpi ult, %orow, %cols : index
      %inc2 = arith.cmpi ult, %ocol, %rows : index
      %ok2 = arith.andi %inr2, %inc2 : i1
      scf.if %ok2 {
        %v = memref.load %tile[%tx, %ty] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%orow, %ocol] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
