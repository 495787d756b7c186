// C = relu(A * B + bias): A (M x K) and B (K x N) f16, widened to f32,
// products summed in f32 in k order, bias (N) f32 added after the sum,
// then max with 0. The launch of a tensor-core kernel: 128 threads per
// 64 x 64 tile of C; the harness states tile multiples, 16-byte alignment
// and inputs in [-1, 1], in which f16 products are exact in f32.
module attributes {gpu.container_module} {
  gpu.module @hgemm_bias_relu_module {
    gpu.func @hgemm_bias_relu(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                              %bias: memref<?xf32>, %c: memref<?x?xf32>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "C = max(A * B + bias, 0): f16 inputs widened to f32, f32 sum in k order, bias per column",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N", "K"],
              shapes = [[64, 64, 32], [64, 128, 32], [128, 64, 96],
                        [192, 320, 160], [320, 192, 512],
                        [1024, 1024, 1024]],
              args = ["M, K", "K, N", "N", "M, N"],
              grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"],
              outputs = [3],
              tolerance = {rel = 1.0e-3, abs = 1.0e-3},
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
          %bv = memref.load %bias[%col] : memref<?xf32>
          %sum = arith.addf %acc, %bv : f32
          %r = arith.maximumf %sum, %zero : f32
          memref.store %r, %c[%row, %col] : memref<?x?xf32>
        }
      }
      gpu.return
    }
  }
}
