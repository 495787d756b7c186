// Two kernels in one gpu.module: fill and integer bit tricks.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<?xi32>, %v: i32, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        memref.store %v, %out[%i] : memref<?xi32>
      }
      gpu.return
    }
    gpu.func @bits(%in: memref<?xi32>, %out: memref<?xi32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        %x = memref.load %in[%i] : memref<?xi32>
        %p = math.ctpop %x : i32
        %l = math.ctlz %x : i32
        %c3 = arith.constant 3 : i32
        %s = arith.shrui %x, %c3 : i32
        %a = arith.andi %s, %p : i32
        %o = arith.ori %a, %l : i32
        %q = arith.divsi %o, %c3 : i32
        %r = arith.xori %q, %x : i32
        memref.store %r, %out[%i] : memref<?xi32>
      }
      gpu.return
    }
  }
}
