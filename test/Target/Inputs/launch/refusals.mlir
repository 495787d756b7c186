// Launches that fix a kernel's launch configuration, one reason per kernel
// (test/Target/llm-launch-refusals.mlir), and @free, whose launch is free
// and whose answers bring malformed launch blocks.
#scale_harness = #llmgen.harness<sizes = ["N"], shapes = [[1], [300], [70000]],
    args = ["N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @free(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    llmgen.harness = #scale_harness} {
      %i = gpu.global_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        memref.store %v, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @other_grid(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    llmgen.harness = #scale_harness} {
      gpu.return
    }
    gpu.func @loaded_grid(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    llmgen.harness = #scale_harness} {
      gpu.return
    }
    gpu.func @dynamic_block(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    llmgen.harness = #scale_harness} {
      gpu.return
    }
    gpu.func @shared(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    llmgen.harness = #scale_harness} {
      gpu.return
    }
    gpu.func @unreadable(%x: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    llmgen.harness = #llmgen.harness<sizes = ["N"],
                        shapes = [[1], [300]], args = ["2 * N", "N - 1"],
                        grid = ["ceildiv(N, 256)", "1", "1"]>} {
      gpu.return
    }
  }

  func.func @run(%x: memref<?xf32>, %y: memref<?xf32>, %grids: memref<1xindex>,
                 %threads: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c64 = arith.constant 64 : i32
    %n = memref.dim %x, %c0 : memref<?xf32>
    %g = arith.ceildivui %n, %c256 : index
    gpu.launch_func @kernels::@free blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    %g128 = arith.ceildivui %n, %c128 : index
    gpu.launch_func @kernels::@other_grid blocks in (%g128, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    %loaded = memref.load %grids[%c0] : memref<1xindex>
    gpu.launch_func @kernels::@loaded_grid blocks in (%loaded, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    gpu.launch_func @kernels::@dynamic_block blocks in (%g, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    gpu.launch_func @kernels::@shared blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
        dynamic_shared_memory_size %c64
        args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    %m = arith.subi %n, %c1 : index
    gpu.launch_func @kernels::@unreadable blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%x : memref<?xf32>, %m : index)
    return
  }
}
