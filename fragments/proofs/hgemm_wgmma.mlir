// The proof kernel of fragments/wgmma-tile-f16.ptx: docs/suite/kernels/hgemm.mlir
// (same computation, harness and launch) under its own name, answered for
// sm_90a with a Hopper warpgroup MMA main loop (fragments/proofs/hgemm_wgmma.txt).
//
// C = A x B with A (M x K) and B (K x N) in f16 and C (M x N) in f32: each
// term widened to f32 (arith.extf), multiplied and added in f32, k = 0, 1,
// ..., K - 1. Each block of 128 threads owns a 64 x 64 tile of C; thread t
// computes column t mod 64 of the tile for the 32 rows t / 64 + 2i, one dot
// product after the other, straight from global memory. The launch is the
// one a tensor-core kernel uses (4 warps, each 32 x 32 of the tile), so an
// answer may keep it.
//
// The facts are those of such a kernel: pointers 16-byte aligned, M and N
// multiples of the tile (64) and K of its K step (32), so 128-bit loads of
// A and B rows never straddle an edge. The inputs lie in [-1, 1], where
// the product of two halves is exact in f32 (11 x 11 significand bits), so
// only the order of the additions is free: one f32 rounding per term here,
// a tensor core's exact sums of 16 products rounded (truncated) into the
// accumulator there. The error of either order grows with the magnitude of
// the partial sums (about sqrt(K) / 3, up to 64 at K = 4096): a simulation
// of both orders on 300 dot products of inputs in [-1, 1] (truncation after
// every 16 terms) gave differences up to 1.1e-4 at K = 1024 and 4.1e-4 at
// K = 4096, with outputs up to 32 and 64. rel = 1e-3 (large outputs) or
// abs = 1e-3 (outputs near zero) allows that with room to spare, and a
// missing or wrong term (a product of typical size 0.25) still fails.
module attributes {gpu.container_module} {
  gpu.module @hgemm_wgmma_module {
    gpu.func @hgemm_wgmma(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                    %c: memref<?x?xf32>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "C = A * B: f16 inputs widened to f32, f32 products summed in f32 in k order",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N", "K"],
              shapes = [[64, 64, 32], [64, 128, 32], [128, 64, 96],
                        [192, 320, 160], [320, 192, 512],
                        [1024, 1024, 1024]],
              args = ["M, K", "K, N", "M, N"],
              grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"],
              tolerance = {rel = 1.0e-3, abs = 1.0e-3},
              facts = {align = 16, divisible = {M = 64, N = 64, K = 32},
                       range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0]}},
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
          memref.store %acc, %c[%row, %col] : memref<?x?xf32>
        }
      }
      gpu.return
    }
  }
}
