// The example of the README: three ordinary kernels and the host code that
// launches them. `./llmptx.sh example` runs llm-lower on it with the
// replay provider and the answers shipped in cache/ (written by the project,
// labelled "curated"), so it works offline.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // c = a + b
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                   %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "element-wise vector add",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>} {
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

    // y = alpha * x + y, where y is a strided view with a dynamic offset.
    gpu.func @saxpy(%x: memref<?xf32>,
                    %y: memref<?xf32, strided<[?], offset: ?>>, %alpha: f32,
                    %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "saxpy over a strided view; keep mul and add separate (no contraction)",
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

    // out = max(in, 0) in f16 (maximumf: NaN in, NaN out).
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

  func.func @axpy(%x: memref<?xf32>, %y: memref<?xf32, strided<[?], offset: ?>>,
                  %alpha: f32, %n: index) {
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %t = arith.addi %n, %c127 : index
    %blocks = arith.divui %t, %c128 : index
    gpu.launch_func @kernels::@saxpy blocks in (%blocks, %c1, %c1)
        threads in (%c128, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32, strided<[?], offset: ?>>,
             %alpha : f32, %n : index)
    return
  }
}
