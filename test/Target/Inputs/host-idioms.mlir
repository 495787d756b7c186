// Host code written the way MLIR's GPU integration tests write it: sizes
// computed with arith (casts, products, ceildiv) and read back with
// memref.dim, buffers from gpu.alloc (async with tokens, host_shared, sync)
// and memref.alloc through memref.cast, an async launch and gpu.wait. Every
// launch fact is still a constant.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) kernel {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c250_i32 = arith.constant 250 : i32
    %c4_i32 = arith.constant 4 : i32
    %n_i32 = arith.muli %c250_i32, %c4_i32 : i32
    %n = arith.index_cast %n_i32 : i32 to index
    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %b = gpu.alloc host_shared (%n) : memref<?xf32>
    %static = memref.alloc() : memref<1000xf32>
    %c = memref.cast %static : memref<1000xf32> to memref<?xf32>
    %size = memref.dim %a, %c0 : memref<?xf32>
    %grid = arith.ceildivui %size, %c256 : index
    %t2 = gpu.launch_func async [%t1] @kernels::@vadd blocks in (%grid, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%a : memref<?xf32>, %b : memref<?xf32>, %c : memref<?xf32>, %size : index)
    gpu.wait [%t2]
    return
  }
}
