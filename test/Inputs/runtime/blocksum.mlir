module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @blocksum(%a: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%sh: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant 0.0 : f32
      %n = memref.dim %a, %c0 : memref<?xf32>
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      %v = scf.if %inb -> (f32) {
        %x = memref.load %a[%i] : memref<?xf32>
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v, %sh[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %stride = arith.shrui %c128, %k : index
        %act = arith.cmpi ult, %tid, %stride : index
        scf.if %act {
          %o = arith.addi %tid, %stride : index
          %p = memref.load %sh[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %q = memref.load %sh[%o] : memref<256xf32, #gpu.address_space<workgroup>>
          %r = arith.addf %p, %q : f32
          memref.store %r, %sh[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %t = memref.load %sh[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %t, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
