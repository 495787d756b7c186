// A 2-D f16 copy whose launch is free (the host launches it with its
// sizes), for the tensor-map requests of test/Target/llm-tensor-maps.mlir:
// rows of 64 halves (128 bytes), base stated 16-byte aligned. @unaligned is
// the same copy without the alignment fact.
module attributes {gpu.container_module} {
  gpu.module @tma_kernels {
    gpu.func @copy2d(%x: memref<?x?xf16>, %y: memref<?x?xf16>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
                    llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
                        shapes = [[64, 64], [128, 192]], args = ["M, N", "M, N"],
                        grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"],
                        facts = {align = 16, divisible = {M = 64, N = 64}}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %m = memref.dim %x, %c0 : memref<?x?xf16>
      %n = memref.dim %x, %c1 : memref<?x?xf16>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tid = gpu.thread_id x
      %row0 = arith.muli %by, %c64 : index
      %col0 = arith.muli %bx, %c64 : index
      scf.for %i = %tid to %c4096 step %c128 {
        %r = arith.divui %i, %c64 : index
        %c = arith.remui %i, %c64 : index
        %row = arith.addi %row0, %r : index
        %col = arith.addi %col0, %c : index
        %rowok = arith.cmpi ult, %row, %m : index
        %colok = arith.cmpi ult, %col, %n : index
        %ok = arith.andi %rowok, %colok : i1
        scf.if %ok {
          %v = memref.load %x[%row, %col] : memref<?x?xf16>
          memref.store %v, %y[%row, %col] : memref<?x?xf16>
        }
      }
      gpu.return
    }
    gpu.func @unaligned(%x: memref<?x?xf16>, %y: memref<?x?xf16>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
                    llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
                        shapes = [[64, 64], [3, 5]], args = ["M, N", "M, N"],
                        grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %m = memref.dim %x, %c0 : memref<?x?xf16>
      %n = memref.dim %x, %c1 : memref<?x?xf16>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tid = gpu.thread_id x
      %row0 = arith.muli %by, %c64 : index
      %col0 = arith.muli %bx, %c64 : index
      scf.for %i = %tid to %c4096 step %c128 {
        %r = arith.divui %i, %c64 : index
        %c = arith.remui %i, %c64 : index
        %row = arith.addi %row0, %r : index
        %col = arith.addi %col0, %c : index
        %rowok = arith.cmpi ult, %row, %m : index
        %colok = arith.cmpi ult, %col, %n : index
        %ok = arith.andi %rowok, %colok : i1
        scf.if %ok {
          %v = memref.load %x[%row, %col] : memref<?x?xf16>
          memref.store %v, %y[%row, %col] : memref<?x?xf16>
        }
      }
      gpu.return
    }
  }

  func.func @run(%x: memref<?x?xf16>, %y: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %m = memref.dim %x, %c0 : memref<?x?xf16>
    %n = memref.dim %x, %c1 : memref<?x?xf16>
    %gx = arith.ceildivui %n, %c64 : index
    %gy = arith.ceildivui %m, %c64 : index
    gpu.launch_func @tma_kernels::@copy2d blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
        args(%x : memref<?x?xf16>, %y : memref<?x?xf16>)
    gpu.launch_func @tma_kernels::@unaligned blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
        args(%x : memref<?x?xf16>, %y : memref<?x?xf16>)
    return
  }
}
