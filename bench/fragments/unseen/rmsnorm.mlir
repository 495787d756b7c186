// RMS normalisation over the rows of an M x N matrix with a per-column
// gain: y = x * rsqrt(mean(x * x) + eps) * g, one block of 256 threads per
// row, a shared-memory tree for the sum of squares. Summation order is
// free: the harness allows rel = 1e-5 or abs = 1e-5 per element, inputs
// stated in [-1, 1].
module attributes {gpu.container_module} {
  gpu.module @rmsnorm_module {
    gpu.func @rmsnorm(%x: memref<?x?xf32>, %g: memref<?xf32>,
                      %y: memref<?x?xf32>, %eps: f32)
        workgroup(%red: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "RMS norm of each row (mean of squares, rsqrt), then g per column",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
              shapes = [[1, 1], [3, 7], [2, 256], [5, 1000], [17, 1024],
                        [7, 4100], [130, 2048], [1000, 513]],
              args = ["M, N", "N", "M, N", "1.0e-6"],
              grid = ["M", "1", "1"], outputs = [2],
              tolerance = {rel = 1.0e-5, abs = 1.0e-5},
              facts = {range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0]}}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %n = memref.dim %x, %c1 : memref<?x?xf32>
      %ni = arith.index_cast %n : index to i64
      %nf = arith.uitofp %ni : i64 to f32
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      %pq = scf.for %j = %tid to %n step %c256 iter_args(%s = %zero) -> (f32) {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %v2 = arith.mulf %v, %v : f32
        %ss = arith.addf %s, %v2 : f32
        scf.yield %ss : f32
      }
      memref.store %pq, %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %stride = arith.shrui %c128, %k : index
        %act = arith.cmpi ult, %tid, %stride : index
        scf.if %act {
          %o = arith.addi %tid, %stride : index
          %p = memref.load %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %q = memref.load %red[%o] : memref<256xf32, #gpu.address_space<workgroup>>
          %r = arith.addf %p, %q : f32
          memref.store %r, %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %sq = memref.load %red[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      %ms = arith.divf %sq, %nf : f32
      %me = arith.addf %ms, %eps : f32
      %inv = math.rsqrt %me : f32
      scf.for %j = %tid to %n step %c256 {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %gv = memref.load %g[%j] : memref<?xf32>
        %nrm = arith.mulf %v, %inv : f32
        %o = arith.mulf %nrm, %gv : f32
        memref.store %o, %y[%row, %j] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
