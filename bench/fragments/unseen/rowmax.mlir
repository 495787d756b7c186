// Row maximum of an M x N f32 matrix: out[r] = max over j of x[r, j]
// (arith.maximumf: NaN propagates, -0 < +0), one block of 256 threads per
// row, a shared-memory tree. The maximum is exact in any order.
module attributes {gpu.container_module} {
  gpu.module @rowmax_module {
    gpu.func @rowmax(%x: memref<?x?xf32>, %out: memref<?xf32>)
        workgroup(%red: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out[r] = maximumf over the row r of x",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
              shapes = [[1, 1], [3, 7], [2, 256], [5, 1000], [17, 1024],
                        [7, 4100], [130, 2048], [1000, 513]],
              args = ["M, N", "M"], grid = ["M", "1", "1"], outputs = [1]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %ninf = arith.constant 0xFF800000 : f32
      %n = memref.dim %x, %c1 : memref<?x?xf32>
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      %pm = scf.for %j = %tid to %n step %c256 iter_args(%m = %ninf) -> (f32) {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %mm = arith.maximumf %m, %v : f32
        scf.yield %mm : f32
      }
      memref.store %pm, %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %stride = arith.shrui %c128, %k : index
        %act = arith.cmpi ult, %tid, %stride : index
        scf.if %act {
          %o = arith.addi %tid, %stride : index
          %p = memref.load %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %q = memref.load %red[%o] : memref<256xf32, #gpu.address_space<workgroup>>
          %r = arith.maximumf %p, %q : f32
          memref.store %r, %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %lead = arith.cmpi eq, %tid, %c0 : index
      scf.if %lead {
        %m = memref.load %red[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %m, %out[%row] : memref<?xf32>
      }
      gpu.return
    }
  }
}
