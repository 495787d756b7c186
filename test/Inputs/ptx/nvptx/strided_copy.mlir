// Copy between strided memrefs with dynamic offsets.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @strided_copy(%src: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dst: memref<?x?xf32, strided<[?, 1], offset: ?>>) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %bdim = gpu.block_dim x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %rows = memref.dim %src, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
      %cols = memref.dim %src, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
      %t = arith.muli %bx, %bdim : index
      %i = arith.addi %t, %tx : index
      %total = arith.muli %rows, %cols : index
      %ok = arith.cmpi ult, %i, %total : index
      scf.if %ok {
        %r = arith.divui %i, %cols : index
        %c = arith.remui %i, %cols : index
        %v = memref.load %src[%r, %c] : memref<?x?xf32, strided<[?, ?], offset: ?>>
        memref.store %v, %dst[%r, %c] : memref<?x?xf32, strided<[?, 1], offset: ?>>
      }
      gpu.return
    }
  }
}
