// Block reduction through a workgroup (shared memory) attribution and barriers.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @block_reduce(%in: memref<?xf32>, %out: memref<?xf32>, %n: index)
        workgroup(%smem: memref<256xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c256 = arith.constant 256 : index
      %t = arith.muli %bid, %c256 : index
      %i = arith.addi %t, %tid : index
      %zero = arith.constant 0.0 : f32
      %cond = arith.cmpi ult, %i, %n : index
      %v = scf.if %cond -> f32 {
        %x = memref.load %in[%i] : memref<?xf32>
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v, %smem[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      scf.for %s = %c0 to %c128 step %c1 {
        %stride = arith.shrui %c128, %s : index
        %active = arith.cmpi ult, %tid, %stride : index
        %nz = arith.cmpi ugt, %stride, %c0 : index
        %both = arith.andi %active, %nz : i1
        scf.if %both {
          %j = arith.addi %tid, %stride : index
          %a = memref.load %smem[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %b = memref.load %smem[%j] : memref<256xf32, #gpu.address_space<workgroup>>
          %sum = arith.addf %a, %b : f32
          memref.store %sum, %smem[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        %r = memref.load %smem[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %r, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
