// f64 arithmetic, i64 shifts, integer compare/select and conversions.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mix(%x: memref<?xf64>, %k: memref<?xi64>, %out: memref<?xf64>, %n: index, %shift: i64) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        %xv = memref.load %x[%i] : memref<?xf64>
        %kv = memref.load %k[%i] : memref<?xi64>
        %sh = arith.shli %kv, %shift : i64
        %sr = arith.shrsi %kv, %shift : i64
        %mx = arith.maxsi %sh, %sr : i64
        %f = arith.sitofp %mx : i64 to f64
        %p = arith.mulf %xv, %f : f64
        %neg = arith.negf %p : f64
        %lt = arith.cmpf olt, %p, %xv : f64
        %r = arith.select %lt, %neg, %p : f64
        %sq = math.sqrt %r : f64
        memref.store %sq, %out[%i] : memref<?xf64>
      }
      gpu.return
    }
  }
}
