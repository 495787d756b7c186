// Fused bias + GELU (erf form, as torch.nn.functional.gelu) + dropout with
// the keep-mask as an input: out = mask != 0 ? gelu(x + bias) * scale : 0,
// over an M x N activation with the bias broadcast along rows. One thread per
// element on a 2-D grid (columns in x, rows in y). The operations carry no
// fastmath flags, so a candidate must give the same bits (erf included).
// Shapes mix widths that are multiples of 4 (where 128-bit accesses fit a
// row) with widths that are not.
module attributes {gpu.container_module} {
  gpu.module @bias_gelu_dropout_module {
    gpu.func @bias_gelu_dropout(%x: memref<?x?xf32>, %bias: memref<?xf32>,
                                %mask: memref<?x?xi8>, %out: memref<?x?xf32>,
                                %scale: f32) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out = mask != 0 ? gelu(x + bias) * scale : 0 with the exact (erf) GELU",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
              shapes = [[1, 1], [3, 7], [2, 256], [17, 999], [5, 1024],
                        [64, 4100], [1031, 260], [4096, 1024]],
              args = ["M, N", "N", "M, N", "M, N", "1.25"],
              grid = ["ceildiv(N, 256)", "M", "1"],
              facts = {align = 16}>} {
      %c1 = arith.constant 1 : index
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %rsqrt2 = arith.constant 0.707106781186547524 : f32
      %zero = arith.constant 0.0 : f32
      %zero8 = arith.constant 0 : i8
      %n = memref.dim %x, %c1 : memref<?x?xf32>
      %row = gpu.block_id y
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %col = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %col, %n : index
      scf.if %in {
        %xv = memref.load %x[%row, %col] : memref<?x?xf32>
        %bv = memref.load %bias[%col] : memref<?xf32>
        %v = arith.addf %xv, %bv : f32
        %h = arith.mulf %v, %half : f32
        %t = arith.mulf %v, %rsqrt2 : f32
        %e = math.erf %t : f32
        %u = arith.addf %e, %one : f32
        %g = arith.mulf %h, %u : f32
        %m = memref.load %mask[%row, %col] : memref<?x?xi8>
        %keep = arith.cmpi ne, %m, %zero8 : i8
        %s = arith.mulf %g, %scale : f32
        %r = arith.select %keep, %s, %zero : f32
        memref.store %r, %out[%row, %col] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
