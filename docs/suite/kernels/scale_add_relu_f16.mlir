// An f16 element-wise kernel: out = max(x * alpha + y, 0) in half precision
// (two roundings, maximumf propagates NaN). The harness states 16-byte
// alignment, so a candidate may move eight halves per access and compute
// on packed pairs (f16x2).
module attributes {gpu.container_module} {
  gpu.module @scale_add_relu_f16_module {
    gpu.func @scale_add_relu_f16(%x: memref<?xf16>, %y: memref<?xf16>,
                                 %out: memref<?xf16>, %alpha: f16, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out = relu(x * alpha + y) in f16, no contraction",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N", "0.375", "N"],
              grid = ["ceildiv(N, 256)", "1", "1"], facts = {align = 16}>} {
      %zero = arith.constant 0.0 : f16
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      scf.if %inb {
        %xv = memref.load %x[%i] : memref<?xf16>
        %yv = memref.load %y[%i] : memref<?xf16>
        %m = arith.mulf %xv, %alpha : f16
        %s = arith.addf %m, %yv : f16
        %r = arith.maximumf %s, %zero : f16
        memref.store %r, %out[%i] : memref<?xf16>
      }
      gpu.return
    }
  }
}
