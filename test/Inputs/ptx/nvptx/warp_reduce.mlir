// Warp-level sum with gpu.shuffle xor, one result per warp via atomics.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warp_reduce(%in: memref<?xf32>, %out: memref<1xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %zero = arith.constant 0.0 : f32
      %cond = arith.cmpi ult, %i, %n : index
      %v = scf.if %cond -> f32 {
        %x = memref.load %in[%i] : memref<?xf32>
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      %c32 = arith.constant 32 : i32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %s16, %p16 = gpu.shuffle xor %v, %o16, %c32 : f32
      %a16 = arith.addf %v, %s16 : f32
      %s8, %p8 = gpu.shuffle xor %a16, %o8, %c32 : f32
      %a8 = arith.addf %a16, %s8 : f32
      %s4, %p4 = gpu.shuffle xor %a8, %o4, %c32 : f32
      %a4 = arith.addf %a8, %s4 : f32
      %s2, %p2 = gpu.shuffle xor %a4, %o2, %c32 : f32
      %a2 = arith.addf %a4, %s2 : f32
      %s1, %p1 = gpu.shuffle xor %a2, %o1, %c32 : f32
      %a1 = arith.addf %a2, %s1 : f32
      %lane = gpu.lane_id
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        %old = memref.atomic_rmw addf %a1, %out[%c0] : (f32, memref<1xf32>) -> f32
      }
      gpu.return
    }
  }
}
