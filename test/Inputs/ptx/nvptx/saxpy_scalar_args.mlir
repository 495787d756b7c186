// saxpy with f32, i32 and i1 scalar arguments.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @saxpy(%alpha: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: i32, %accumulate: i1) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %ni = arith.index_cast %n : i32 to index
      %cond = arith.cmpi slt, %i, %ni : index
      scf.if %cond {
        %xv = memref.load %x[%i] : memref<?xf32>
        %yv = memref.load %y[%i] : memref<?xf32>
        %ax = arith.mulf %alpha, %xv : f32
        %s = arith.addf %ax, %yv : f32
        %r = arith.select %accumulate, %s, %ax : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
