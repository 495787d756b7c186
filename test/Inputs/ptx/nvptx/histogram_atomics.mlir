// Integer histogram with atomic adds, integer division and remainder.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @histogram(%in: memref<?xi32>, %bins: memref<?xi32>, %n: index, %nbins: i32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        %x = memref.load %in[%i] : memref<?xi32>
        %b = arith.remui %x, %nbins : i32
        %bi = arith.index_cast %b : i32 to index
        %one = arith.constant 1 : i32
        %old = memref.atomic_rmw addi %one, %bins[%bi] : (i32, memref<?xi32>) -> i32
        %m = memref.atomic_rmw maxs %x, %bins[%bi] : (i32, memref<?xi32>) -> i32
      }
      gpu.return
    }
  }
}
