// The f16 GEMM of the Hopper model study (docs/benchmarks.md, "Hopper"):
// fragments/proofs/hgemm_tma.mlir's program with the kernel named @hgemm,
// lowered for sm_90a in optimize mode, answered by a model through the
// model bridge. C = A x B, A (M x K) and B (K x N) f16, C f32; 16-byte
// aligned bases, N and K multiples of 8; timed at 4096^3.
module attributes {gpu.container_module} {
  gpu.module @hgemm_module {
    gpu.func @hgemm(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
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
    gpu.launch_func @hgemm_module::@hgemm blocks in (%gx, %gy, %c1)
        threads in (%c128, %c1, %c1)
        args(%a : memref<?x?xf16>, %b : memref<?x?xf16>, %c : memref<?x?xf32>)
    return
  }
}
