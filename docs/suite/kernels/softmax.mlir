// Row softmax of an M x N matrix, one block of 256 threads per row, written
// the way a tutorial writes it: three strided passes over the row (max, sum
// of exponentials, normalise) with shared-memory tree reductions in between.
// The max is exact in any order; the sum is not, so the harness allows
// rel = 1e-5 per element (both sides sum at most ceil(N / 256) + 8 terms in
// sequence, a bound of about 1.5e-6 each for the shapes below) and abs = 1e-9
// for results that underflow. The inputs are stated finite, in [-4, 4]:
// with the largest finite floats among them two summation orders could
// overflow differently, which the semantics allow but no tolerance covers.
module attributes {gpu.container_module} {
  gpu.module @softmax_module {
    gpu.func @softmax(%x: memref<?x?xf32>, %y: memref<?x?xf32>)
        workgroup(%red: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "row softmax: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max))",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
              shapes = [[1, 1], [3, 7], [2, 256], [5, 1000], [17, 1024],
                        [7, 4100], [130, 2048], [1000, 513]],
              args = ["M, N", "M, N"],
              grid = ["M", "1", "1"], outputs = [1],
              tolerance = {rel = 1.0e-5, abs = 1.0e-9},
              facts = {range = {arg0 = [-4.0, 4.0]}}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %ninf = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %n = memref.dim %x, %c1 : memref<?x?xf32>
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      // Pass 1: the row's maximum.
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
      %max = memref.load %red[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      // Pass 2: the sum of exponentials.
      %ps = scf.for %j = %tid to %n step %c256 iter_args(%s = %zero) -> (f32) {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %d = arith.subf %v, %max : f32
        %e = math.exp %d : f32
        %ss = arith.addf %s, %e : f32
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
      // Pass 3: normalise.
      scf.for %j = %tid to %n step %c256 {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %d = arith.subf %v, %max : f32
        %e = math.exp %d : f32
        %q = arith.divf %e, %sum : f32
        memref.store %q, %y[%row, %j] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
