// Static shapes lowered with the bare-pointer calling convention.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale_static(%in: memref<4096xf32>, %out: memref<4096xf32>, %s: f32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %c4096 = arith.constant 4096 : index
      %cond = arith.cmpi ult, %i, %c4096 : index
      scf.if %cond {
        %x = memref.load %in[%i] : memref<4096xf32>
        %y = arith.mulf %x, %s : f32
        memref.store %y, %out[%i] : memref<4096xf32>
      }
      gpu.return
    }
  }
}
