// Elementwise f32 add with a bounds check on a dynamic size.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @elementwise_add(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %z = arith.addf %x, %y : f32
        memref.store %z, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
