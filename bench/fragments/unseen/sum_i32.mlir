// Per-block partial sums of an i32 vector in a grid-stride loop:
// partial[b] = sum of in[i] over the i that block b visits (i = 256 b +
// t + 256 G s), i32 wrapping, so exact in any order. A warp-shuffle
// reduction and a shared exchange of the eight warp sums.
module attributes {gpu.container_module} {
  gpu.module @sum_i32_module {
    gpu.func @sum_i32(%in: memref<?xi32>, %partial: memref<?xi32>,
                      %n: index)
        workgroup(%warps: memref<8xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "partial[b] = i32 sum of the elements block b visits in a grid-stride loop",
          llmgen.harness = #llmgen.harness<sizes = ["N", "G"],
              shapes = [[1, 1], [7, 3], [97, 1], [1000, 4], [4099, 17],
                        [100003, 64], [1048583, 1024], [262147, 1000]],
              args = ["N", "G", "N"],
              grid = ["G", "1", "1"], outputs = [1],
              facts = {align = 16}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0 : i32
      %w32 = arith.constant 32 : i32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %bid = gpu.block_id x
      %grid = gpu.grid_dim x
      %tid = gpu.thread_id x
      %first = arith.muli %bid, %c256 : index
      %start = arith.addi %first, %tid : index
      %step = arith.muli %grid, %c256 : index
      %acc = scf.for %i = %start to %n step %step iter_args(%s = %zero) -> (i32) {
        %v = memref.load %in[%i] : memref<?xi32>
        %t = arith.addi %s, %v : i32
        scf.yield %t : i32
      }
      %s16, %p16 = gpu.shuffle xor %acc, %o16, %w32 : i32
      %a16 = arith.addi %acc, %s16 : i32
      %s8, %p8 = gpu.shuffle xor %a16, %o8, %w32 : i32
      %a8 = arith.addi %a16, %s8 : i32
      %s4, %p4 = gpu.shuffle xor %a8, %o4, %w32 : i32
      %a4 = arith.addi %a8, %s4 : i32
      %s2, %p2 = gpu.shuffle xor %a4, %o2, %w32 : i32
      %a2 = arith.addi %a4, %s2 : i32
      %s1, %p1 = gpu.shuffle xor %a2, %o1, %w32 : i32
      %a1 = arith.addi %a2, %s1 : i32
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %lead = arith.cmpi eq, %lane, %c0 : index
      scf.if %lead {
        memref.store %a1, %warps[%warp] : memref<8xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %t0 {
        %tot = scf.for %w = %c0 to %c8 step %c1 iter_args(%s = %zero) -> (i32) {
          %v = memref.load %warps[%w] : memref<8xi32, #gpu.address_space<workgroup>>
          %t = arith.addi %s, %v : i32
          scf.yield %t : i32
        }
        memref.store %tot, %partial[%bid] : memref<?xi32>
      }
      gpu.return
    }
  }
}
