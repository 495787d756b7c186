// ReLU, exp, tanh, sqrt and fma on f32.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @activations(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        %x = memref.load %in[%i] : memref<?xf32>
        %zero = arith.constant 0.0 : f32
        %r = arith.maximumf %x, %zero : f32
        %e = math.exp %r : f32
        %th = math.tanh %x : f32
        %ax = math.absf %x : f32
        %sq = math.sqrt %ax : f32
        %f = math.fma %e, %th, %sq : f32
        %d = arith.divf %f, %e : f32
        memref.store %d, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
