// Out-of-place transpose of an R x C matrix through a 32 x 33 shared tile
// (the padding column keeps the column reads free of bank conflicts), blocks
// of 32 x 8 threads, each thread moving four elements of the tile.
module attributes {gpu.container_module} {
  gpu.module @transpose_module {
    gpu.func @transpose(%in: memref<?x?xf32>, %out: memref<?x?xf32>)
        workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 32, 8, 1>,
          llmgen.spec = "out[c, r] = in[r, c] through a padded shared tile",
          llmgen.harness = #llmgen.harness<sizes = ["R", "C"],
              shapes = [[1, 1], [3, 7], [32, 32], [33, 65], [100, 37],
                        [257, 1000], [1024, 1024], [2048, 4100]],
              args = ["R, C", "C, R"],
              grid = ["ceildiv(C, 32)", "ceildiv(R, 32)", "1"],
              outputs = [1]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %rows = memref.dim %in, %c0 : memref<?x?xf32>
      %cols = memref.dim %in, %c1 : memref<?x?xf32>
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %r0 = arith.muli %by, %c32 : index
      %k0 = arith.muli %bx, %c32 : index
      %col = arith.addi %k0, %tx : index
      %colok = arith.cmpi ult, %col, %cols : index
      scf.for %j = %c0 to %c32 step %c8 {
        %ly = arith.addi %ty, %j : index
        %r = arith.addi %r0, %ly : index
        %rok = arith.cmpi ult, %r, %rows : index
        %ok = arith.andi %rok, %colok : i1
        scf.if %ok {
          %v = memref.load %in[%r, %col] : memref<?x?xf32>
          memref.store %v, %tile[%ly, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %ocol = arith.addi %r0, %tx : index
      %ocolok = arith.cmpi ult, %ocol, %rows : index
      scf.for %j = %c0 to %c32 step %c8 {
        %ly = arith.addi %ty, %j : index
        %orow = arith.addi %k0, %ly : index
        %rok = arith.cmpi ult, %orow, %cols : index
        %ok = arith.andi %rok, %ocolok : i1
        scf.if %ok {
          %v = memref.load %tile[%tx, %ly] : memref<32x33xf32, #gpu.address_space<workgroup>>
          memref.store %v, %out[%orow, %ocol] : memref<?x?xf32>
        }
      }
      gpu.return
    }
  }
}
