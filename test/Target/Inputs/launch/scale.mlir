// Launch freedom: the host code below holds every launch of @scale, each
// computes its grid from the size, and the harness states the launch that
// verification runs, so a candidate may bring its own launch. @scale_block
// is launched with another block than verification runs and
// @scale_elsewhere is not launched here: their launches stay fixed.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              shapes = [[1], [7], [255], [256], [257], [1000], [1023], [1025], [4099], [1048583], [67108864]],
              args = ["N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %two = arith.constant 2.0 : f32
        %r = arith.mulf %v, %two : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }

    gpu.func @scale_block(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"],
              block = [256, 1, 1]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %two = arith.constant 2.0 : f32
        %r = arith.mulf %v, %two : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }

    gpu.func @scale_elsewhere(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %two = arith.constant 2.0 : f32
        %r = arith.mulf %v, %two : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @run(%x: memref<?xf32>, %y: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %t = arith.addi %n, %c255 : index
    %g = arith.divui %t, %c256 : index
    gpu.launch_func @kernels::@scale blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    // x = 2 * y, with the grid computed another way.
    %g2 = arith.ceildivui %n, %c256 : index
    gpu.launch_func @kernels::@scale blocks in (%g2, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%y : memref<?xf32>, %x : memref<?xf32>, %n : index)
    %g3 = arith.ceildivui %n, %c128 : index
    gpu.launch_func @kernels::@scale_block blocks in (%g3, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    return
  }
}
