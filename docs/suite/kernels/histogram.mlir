// A 256-bin histogram of the low byte of 32-bit integers, one global atomic
// add per element. The bins are read-modify-write (they accumulate into what
// is there), so the harness names them as the output; integer atomics
// commute, so the result is exact in any order.
module attributes {gpu.container_module} {
  gpu.module @histogram_module {
    gpu.func @histogram(%in: memref<?xi32>, %bins: memref<256xi32>,
                        %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "bins[in[i] & 255] += 1 for every i",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "", "N"], grid = ["ceildiv(N, 256)", "1", "1"],
              outputs = [1]>} {
      %mask = arith.constant 255 : i32
      %one = arith.constant 1 : i32
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      scf.if %inb {
        %v = memref.load %in[%i] : memref<?xi32>
        %b = arith.andi %v, %mask : i32
        %bi = arith.index_cast %b : i32 to index
        %old = memref.atomic_rmw addi %one, %bins[%bi] : (i32, memref<256xi32>) -> i32
      }
      gpu.return
    }
  }
}
