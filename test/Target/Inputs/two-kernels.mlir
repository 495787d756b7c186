// Two kernels in one gpu.module, plus host code that launches them with
// constant sizes.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>} {
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
    gpu.func @scale(%x: memref<1024xf32>, %alpha: f32) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<1024xf32>
      %r = arith.mulf %v, %alpha : f32
      memref.store %r, %x[%i] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @host(%x: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %alpha = arith.constant 2.5 : f32
    gpu.launch_func @kernels::@scale blocks in (%c8, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%x : memref<1024xf32>, %alpha : f32)
    return
  }
}
