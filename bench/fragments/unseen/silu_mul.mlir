// SwiGLU's gate: out[i] = x[i] / (1 + exp(-x[i])) * y[i] in f32, no
// contraction; math.exp is libdevice's expf in the reference, so the
// answer must compute the same bits.
module attributes {gpu.container_module} {
  gpu.module @silu_mul_module {
    gpu.func @silu_mul(%x: memref<?xf32>, %y: memref<?xf32>,
                       %out: memref<?xf32>, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out = silu(x) * y, silu(x) = x / (1 + exp(-x))",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N", "N"],
              grid = ["ceildiv(N, 256)", "1", "1"], facts = {align = 16}>} {
      %one = arith.constant 1.0 : f32
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      scf.if %inb {
        %a = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %y[%i] : memref<?xf32>
        %na = arith.negf %a : f32
        %e = math.exp %na : f32
        %d = arith.addf %one, %e : f32
        %s = arith.divf %a, %d : f32
        %r = arith.mulf %s, %b : f32
        memref.store %r, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
