// A 256-bin histogram of bytes: bins[zext(in[i])] += 1 for every i (bins
// are read-modify-write: the harness fills them and checks the sums).
module attributes {gpu.container_module} {
  gpu.module @byte_histogram_module {
    gpu.func @byte_histogram(%in: memref<?xi8>, %bins: memref<256xi32>,
                             %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "bins[zext(in[i])] += 1 for every byte i",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "", "N"], grid = ["ceildiv(N, 256)", "1", "1"],
              outputs = [1]>} {
      %one = arith.constant 1 : i32
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      scf.if %inb {
        %v = memref.load %in[%i] : memref<?xi8>
        %b = arith.extui %v : i8 to i32
        %bi = arith.index_cast %b : i32 to index
        %old = memref.atomic_rmw addi %one, %bins[%bi] : (i32, memref<256xi32>) -> i32
      }
      gpu.return
    }
  }
}
