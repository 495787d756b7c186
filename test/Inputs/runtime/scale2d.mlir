module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale2d(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, %c: memref<?x?xf32, strided<[?, 1], offset: ?>>, %s: f32) kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %m = memref.dim %c, %c0 : memref<?x?xf32, strided<[?, 1], offset: ?>>
      %n = memref.dim %c, %c1 : memref<?x?xf32, strided<[?, 1], offset: ?>>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %j0 = arith.muli %bx, %dx : index
      %j = arith.addi %j0, %tx : index
      %i0 = arith.muli %by, %dy : index
      %i = arith.addi %i0, %ty : index
      %inj = arith.cmpi ult, %j, %n : index
      %ini = arith.cmpi ult, %i, %m : index
      %in = arith.andi %inj, %ini : i1
      scf.if %in {
        %x = memref.load %a[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
        %y = arith.mulf %x, %s : f32
        memref.store %y, %c[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
      }
      gpu.return
    }
  }
}
