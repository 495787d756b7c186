// C = relu(A x B + bias), the f16 linear layer with its epilogue fused: A
// (M x K), B (K x N) and bias (N) in f16, C (M x N) in f16. Each term is
// widened to f32 (arith.extf), multiplied and added in f32 in k order; the
// bias, widened, is added to the sum, then max with 0, and the result is
// rounded to f16 once. That is what torch._addmm_activation(bias, A, B)
// (cuBLASLt with its bias + ReLU epilogue) and relu(addmm(bias, A, B))
// compute, up to the order of the additions. Each block of 128 threads owns
// a 64 x 64 tile of C; thread t computes column t mod 64 of the tile for the
// 32 rows t / 64 + 2i, one dot product after the other, straight from global
// memory. The launch is the one a tensor-core kernel uses (4 warps, each
// 32 x 32 of the tile), so an answer may keep it.
//
// The facts are those of such a kernel (as for hgemm): pointers 16-byte
// aligned, M and N multiples of the tile (64) and K of its K step (32), and
// inputs in [-1, 1], where the product of two halves is exact in f32, so
// only the order of the additions is free. Its effect before rounding is
// below 4.1e-4 at K = 4096 (hgemm.mlir); the f16 rounding of C can turn that
// into one f16 ulp, at most 2^-10 relative (9.8e-4), and ReLU near 0 into
// an absolute difference of the same size. rel = 2e-3 and abs = 2e-3 allow
// that, and a missing or wrong term (a product of typical size 0.25) or a
// missing bias (typical size 0.5) still fails.
module attributes {gpu.container_module} {
  gpu.module @hgemm_bias_relu_f16_module {
    gpu.func @hgemm_bias_relu_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                                  %bias: memref<?xf16>, %c: memref<?x?xf16>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "C = f16(max(A * B + bias, 0)): f16 inputs widened to f32, f32 products summed in f32 in k order, bias per column added after the sum, one rounding to f16",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N", "K"],
              shapes = [[64, 64, 32], [64, 128, 32], [128, 64, 96],
                        [192, 320, 160], [320, 192, 512],
                        [1024, 1024, 1024]],
              args = ["M, K", "K, N", "N", "M, N"],
              grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"],
              outputs = [3],
              tolerance = {rel = 2.0e-3, abs = 2.0e-3},
              facts = {align = 16, divisible = {M = 64, N = 64, K = 32},
                       range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0],
                                arg2 = [-1.0, 1.0]}},
              flops = "2 * M * N * K">} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %m = memref.dim %a, %c0 : memref<?x?xf16>
      %k = memref.dim %a, %c1 : memref<?x?xf16>
      %n = memref.dim %b, %c1 : memref<?x?xf16>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tcol = arith.remui %tid, %c64 : index
      %trow = arith.divui %tid, %c64 : index
      %cbase = arith.muli %bx, %c64 : index
      %col = arith.addi %cbase, %tcol : index
      %rbase = arith.muli %by, %c64 : index
      %rfirst = arith.addi %rbase, %trow : index
      %colok = arith.cmpi ult, %col, %n : index
      scf.for %i = %c0 to %c32 step %c1 {
        %roff = arith.muli %i, %c2 : index
        %row = arith.addi %rfirst, %roff : index
        %rowok = arith.cmpi ult, %row, %m : index
        %ok = arith.andi %rowok, %colok : i1
        scf.if %ok {
          %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %zero) -> (f32) {
            %x = memref.load %a[%row, %kk] : memref<?x?xf16>
            %y = memref.load %b[%kk, %col] : memref<?x?xf16>
            %xf = arith.extf %x : f16 to f32
            %yf = arith.extf %y : f16 to f32
            %p = arith.mulf %xf, %yf : f32
            %q = arith.addf %s, %p : f32
            scf.yield %q : f32
          }
          %bh = memref.load %bias[%col] : memref<?xf16>
          %bf = arith.extf %bh : f16 to f32
          %sum = arith.addf %acc, %bf : f32
          %r = arith.maximumf %sum, %zero : f32
          %rh = arith.truncf %r : f32 to f16
          memref.store %rh, %c[%row, %col] : memref<?x?xf16>
        }
      }
      gpu.return
    }
  }
}
