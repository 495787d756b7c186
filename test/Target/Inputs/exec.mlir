// Kernels verified by execution on a GPU (see llm-exec-h200.mlir): a vector
// add whose module states 16-byte alignment (so a candidate may use 128-bit
// accesses), a strided saxpy with a dynamic offset, and an f16 ReLU whose
// first candidate gets NaN wrong.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd4(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                    %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              shapes = [[1], [3], [4], [5], [97], [1000], [4099], [1048583], [67108864]],
              args = ["N", "N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"],
              facts = {align = 16}>} {
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

    gpu.func @saxpy(%x: memref<?xf32>,
                    %y: memref<?xf32, strided<[?], offset: ?>>, %alpha: f32,
                    %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "1.5", "N"], grid = ["ceildiv(N, 128)", "1", "1"]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %xv = memref.load %x[%i] : memref<?xf32>
        %yv = memref.load %y[%i] : memref<?xf32, strided<[?], offset: ?>>
        %m = arith.mulf %alpha, %xv : f32
        %s = arith.addf %m, %yv : f32
        memref.store %s, %y[%i] : memref<?xf32, strided<[?], offset: ?>>
      }
      gpu.return
    }

    gpu.func @relu_f16(%in: memref<?xf16>, %out: memref<?xf16>, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in_range = arith.cmpi ult, %i, %n : index
      scf.if %in_range {
        %v = memref.load %in[%i] : memref<?xf16>
        %zero = arith.constant 0.0 : f16
        %r = arith.maximumf %v, %zero : f16
        memref.store %r, %out[%i] : memref<?xf16>
      }
      gpu.return
    }
  }
}
