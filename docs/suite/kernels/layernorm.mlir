// Layer normalisation over the rows of an M x N matrix with per-column gain
// and bias: y = (x - mean) * (1 / sqrt(var + eps)) * gamma + beta, the
// variance computed in a second pass around the mean (as PyTorch does), one
// block of 256 threads per row, shared-memory tree reductions. Summation
// order is free, so the harness allows rel = 1e-5 or abs = 1e-5 per
// element: for inputs in [-1, 1) the mean differs by at most about 1e-6
// between two orders and the outputs stay below 4 in magnitude. The inputs
// are stated to lie in [-1, 1] (finite): with the largest finite floats
// among them, two summation orders could overflow differently.
module attributes {gpu.container_module} {
  gpu.module @layernorm_module {
    gpu.func @layernorm(%x: memref<?x?xf32>, %gamma: memref<?xf32>,
                        %beta: memref<?xf32>, %y: memref<?x?xf32>,
                        %eps: f32)
        workgroup(%red: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "layer norm over each row (two-pass variance, biased), then gamma and beta per column",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
              shapes = [[1, 1], [3, 7], [2, 256], [5, 1000], [17, 1024],
                        [7, 4100], [130, 2048], [1000, 513]],
              args = ["M, N", "N", "N", "M, N", "1.0e-5"],
              grid = ["M", "1", "1"], outputs = [3],
              tolerance = {rel = 1.0e-5, abs = 1.0e-5},
              facts = {range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0],
                                arg2 = [-1.0, 1.0]}}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %n = memref.dim %x, %c1 : memref<?x?xf32>
      %ni = arith.index_cast %n : index to i64
      %nf = arith.uitofp %ni : i64 to f32
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      // Pass 1: mean.
      %ps = scf.for %j = %tid to %n step %c256 iter_args(%s = %zero) -> (f32) {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %ss = arith.addf %s, %v : f32
        scf.yield %ss : f32
      }
      memref.store %ps, %red[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
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
      %sum = memref.load %red[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      %mean = arith.divf %sum, %nf : f32
      gpu.barrier
      // Pass 2: variance around the mean.
      %pq = scf.for %j = %tid to %n step %c256 iter_args(%s = %zero) -> (f32) {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %d = arith.subf %v, %mean : f32
        %d2 = arith.mulf %d, %d : f32
        %ss = arith.addf %s, %d2 : f32
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
      %var = arith.divf %sq, %nf : f32
      %ve = arith.addf %var, %eps : f32
      %sd = math.sqrt %ve : f32
      %inv = arith.divf %one, %sd : f32
      // Pass 3: normalise, scale and shift.
      scf.for %j = %tid to %n step %c256 {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %g = memref.load %gamma[%j] : memref<?xf32>
        %b = memref.load %beta[%j] : memref<?xf32>
        %d = arith.subf %v, %mean : f32
        %nrm = arith.mulf %d, %inv : f32
        %t = arith.mulf %nrm, %g : f32
        %o = arith.addf %t, %b : f32
        memref.store %o, %y[%row, %j] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
