// Naive matmul with an scf.for loop over K (2-D grid, f32 accumulate).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %m = memref.dim %a, %c0 : memref<?x?xf32>
      %k = memref.dim %a, %c1 : memref<?x?xf32>
      %n = memref.dim %b, %c1 : memref<?x?xf32>
      %r0 = arith.muli %by, %dy : index
      %row = arith.addi %r0, %ty : index
      %c0i = arith.muli %bx, %dx : index
      %col = arith.addi %c0i, %tx : index
      %okr = arith.cmpi ult, %row, %m : index
      %okc = arith.cmpi ult, %col, %n : index
      %ok = arith.andi %okr, %okc : i1
      scf.if %ok {
        %zero = arith.constant 0.0 : f32
        %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %zero) -> f32 {
          %av = memref.load %a[%row, %kk] : memref<?x?xf32>
          %bv = memref.load %b[%kk, %col] : memref<?x?xf32>
          %p = arith.mulf %av, %bv : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        memref.store %acc, %c[%row, %col] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
