// The proof kernel of the Hopper GEMM fragments (TMA tile loads with
// mbarrier transaction counts, 128B-swizzled wgmma descriptors,
// producer/consumer warpgroups with setmaxnreg, a persistent tile loop):
// fragments/proofs/hgemm_wgmma.mlir's computation (C = A x B, f16 in, f32
// out, the terms widened to f32) inside a host program that holds its only
// launch, so a candidate may bring its own launch, dynamic shared memory
// and tensor maps (docs/pipeline.md, "Tensor maps"). The answer
// (hgemm_tma.txt) is bench/hopper/hgemm_tma.cu. Facts: 16-byte aligned
// bases, N and K multiples of 8 (rows of a multiple of 16 bytes, which
// tensor maps need); M, N and K otherwise free, the shapes include partial
// tiles. Timed at 4096^3.
module attributes {gpu.container_module} {
  gpu.module @hgemm_tma_module {
    gpu.func @hgemm_tma(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                    %c: memref<?x?xf32>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "C = A * B: f16 inputs widened to f32, f32 products summed in f32 in k order",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N", "K"],
              shapes = [[64, 64, 32], [200, 264, 72], [320, 192, 512],
                        [128, 256, 64], [1000, 1000, 1000],
                        [1024, 1024, 1024]],
              args = ["M, K", "K, N", "M, N"],
              grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"],
              tolerance = {rel = 1.0e-3, abs = 1.0e-3},
              facts = {align = 16, divisible = {N = 8, K = 8},
                       range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0]}},
              flops = "2 * M * N * K", timing = [4096, 4096, 4096]>} {
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

  // C = A x B on the GPU (A is M x K, B is K x N, C is M x N).
  func.func @run_hgemm(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                       %c: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %m = memref.dim %a, %c0 : memref<?x?xf16>
    %k = memref.dim %a, %c1 : memref<?x?xf16>
    %n = memref.dim %b, %c1 : memref<?x?xf16>
    %gx = arith.ceildivui %n, %c64 : index
    %gy = arith.ceildivui %m, %c64 : index
    gpu.launch_func @hgemm_tma_module::@hgemm_tma blocks in (%gx, %gy, %c1)
        threads in (%c128, %c1, %c1)
        args(%a : memref<?x?xf16>, %b : memref<?x?xf16>, %c : memref<?x?xf32>)
    return
  }
}
