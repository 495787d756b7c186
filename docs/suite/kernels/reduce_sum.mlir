// First stage of a sum reduction, the way CUDA programmers write it: each
// thread accumulates a grid-stride slice, the warp combines with xor
// shuffles, the block combines the eight warp sums through shared memory,
// and thread 0 writes the block's partial sum (the second stage sums the
// partials). The number of blocks G is a size of its own: the kernel is
// right for any G, the shapes below test several, and the benchmark caps it
// at 1024 so that large inputs give every thread many elements. Summation
// order is free: the harness allows rel = 1e-5 or abs = 1e-4 (a partial of
// the shapes below adds at most about 1600 inputs of magnitude below 1; two
// orders of such a sum differ by about 1e-6). The
// input is stated 16-byte aligned, as framework allocations are, and its
// values finite in [-1, 1]: with the largest finite floats among them, two
// summation orders could overflow differently.
module attributes {gpu.container_module} {
  gpu.module @reduce_sum_module {
    gpu.func @reduce_sum(%in: memref<?xf32>, %partial: memref<?xf32>,
                         %n: index)
        workgroup(%warps: memref<8xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "partial[b] = sum of the elements block b visits in a grid-stride loop",
          llmgen.harness = #llmgen.harness<sizes = ["N", "G"],
              shapes = [[1, 1], [7, 3], [97, 1], [1000, 4], [4099, 17],
                        [100003, 64], [1048583, 1024], [262147, 1000]],
              args = ["N", "G", "N"],
              grid = ["G", "1", "1"],
              outputs = [1],
              tolerance = {rel = 1.0e-5, abs = 1.0e-4},
              facts = {align = 16, range = {arg0 = [-1.0, 1.0]}}>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c8 = arith.constant 8 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
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
      %acc = scf.for %i = %start to %n step %step iter_args(%s = %zero) -> (f32) {
        %v = memref.load %in[%i] : memref<?xf32>
        %t = arith.addf %s, %v : f32
        scf.yield %t : f32
      }
      %s16, %p16 = gpu.shuffle xor %acc, %o16, %w32 : f32
      %a16 = arith.addf %acc, %s16 : f32
      %s8, %p8 = gpu.shuffle xor %a16, %o8, %w32 : f32
      %a8 = arith.addf %a16, %s8 : f32
      %s4, %p4 = gpu.shuffle xor %a8, %o4, %w32 : f32
      %a4 = arith.addf %a8, %s4 : f32
      %s2, %p2 = gpu.shuffle xor %a4, %o2, %w32 : f32
      %a2 = arith.addf %a4, %s2 : f32
      %s1, %p1 = gpu.shuffle xor %a2, %o1, %w32 : f32
      %a1 = arith.addf %a2, %s1 : f32
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %lead = arith.cmpi eq, %lane, %c0 : index
      scf.if %lead {
        memref.store %a1, %warps[%warp] : memref<8xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %w0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %w0 {
        %have = arith.cmpi ult, %lane, %c8 : index
        %v = scf.if %have -> (f32) {
          %x = memref.load %warps[%lane] : memref<8xf32, #gpu.address_space<workgroup>>
          scf.yield %x : f32
        } else {
          scf.yield %zero : f32
        }
        %t4, %q4 = gpu.shuffle xor %v, %o4, %w32 : f32
        %b4 = arith.addf %v, %t4 : f32
        %t2, %q2 = gpu.shuffle xor %b4, %o2, %w32 : f32
        %b2 = arith.addf %b4, %t2 : f32
        %t1, %q1 = gpu.shuffle xor %b2, %o1, %w32 : f32
        %b1 = arith.addf %b2, %t1 : f32
        %only = arith.cmpi eq, %tid, %c0 : index
        scf.if %only {
          memref.store %b1, %partial[%bid] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
