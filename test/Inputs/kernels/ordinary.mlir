// Ordinary kernels of the kinds kernel authors write: element-wise with
// scalars, strided and offset memrefs, 2-D memrefs through shared memory,
// warp shuffles with atomics, integer and f16 arithmetic, and a gpu.launch
// that still has to be outlined. Host code is kept by llm-lower.
module attributes {gpu.container_module} {
  gpu.module @elementwise {
    // c[i] = a[i] + b[i]
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                   %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
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

    // y[i] = alpha * x[i] + y[i] over a strided view with a dynamic offset.
    gpu.func @saxpy(%x: memref<?xf32>,
                    %y: memref<?xf32, strided<[?], offset: ?>>, %alpha: f32,
                    %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
                    llmgen.spec = "y = alpha * x + y; y may be a strided view"} {
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

    // Packed-half friendly f16 kernel: out[i] = max(in[i] * 2, 0).
    gpu.func @relu2_f16(%in: memref<?xf16>, %out: memref<?xf16>, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in_range = arith.cmpi ult, %i, %n : index
      scf.if %in_range {
        %v = memref.load %in[%i] : memref<?xf16>
        %two = arith.constant 2.0 : f16
        %zero = arith.constant 0.0 : f16
        %d = arith.mulf %v, %two : f16
        %r = arith.maximumf %d, %zero : f16
        memref.store %r, %out[%i] : memref<?xf16>
      }
      gpu.return
    }
  }

  gpu.module @tiled {
    // out = transpose(in) through a 32x33 shared-memory tile (padded to avoid
    // bank conflicts), 2-D dynamic memrefs, 32x8 threads.
    gpu.func @transpose(%in: memref<?x?xf32>, %out: memref<?x?xf32>,
                        %rows: index, %cols: index)
        workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %col0 = arith.muli %bx, %c32 : index
      %row0 = arith.muli %by, %c32 : index
      %col = arith.addi %col0, %tx : index
      scf.for %k = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %k : index
        %row = arith.addi %row0, %r : index
        %ok_r = arith.cmpi ult, %row, %rows : index
        %ok_c = arith.cmpi ult, %col, %cols : index
        %ok = arith.andi %ok_r, %ok_c : i1
        scf.if %ok {
          %v = memref.load %in[%row, %col] : memref<?x?xf32>
          memref.store %v, %tile[%r, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %ocol = arith.addi %row0, %tx : index
      scf.for %k = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %k : index
        %orow = arith.addi %col0, %r : index
        %ok_r = arith.cmpi ult, %orow, %cols : index
        %ok_c = arith.cmpi ult, %ocol, %rows : index
        %ok = arith.andi %ok_r, %ok_c : i1
        scf.if %ok {
          %v = memref.load %tile[%tx, %r] : memref<32x33xf32, #gpu.address_space<workgroup>>
          memref.store %v, %out[%orow, %ocol] : memref<?x?xf32>
        }
      }
      gpu.return
    }

    // sum += x[i] over the grid: warp reduction with shuffles, one atomic per
    // warp.
    gpu.func @sum(%x: memref<?xf32>, %sum: memref<1xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      %v = scf.if %in -> f32 {
        %l = memref.load %x[%i] : memref<?xf32>
        scf.yield %l : f32
      } else {
        scf.yield %zero : f32
      }
      %width = arith.constant 32 : i32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %s16, %v16 = gpu.shuffle down %v, %o16, %width : f32
      %a16 = arith.addf %v, %s16 : f32
      %s8, %v8 = gpu.shuffle down %a16, %o8, %width : f32
      %a8 = arith.addf %a16, %s8 : f32
      %s4, %v4 = gpu.shuffle down %a8, %o4, %width : f32
      %a4 = arith.addf %a8, %s4 : f32
      %s2, %v2 = gpu.shuffle down %a4, %o2, %width : f32
      %a2 = arith.addf %a4, %s2 : f32
      %s1, %v1 = gpu.shuffle down %a2, %o1, %width : f32
      %a1 = arith.addf %a2, %s1 : f32
      %lane = gpu.lane_id
      %c0i = arith.constant 0 : index
      %first = arith.cmpi eq, %lane, %c0i : index
      scf.if %first {
        %old = memref.atomic_rmw addf %a1, %sum[%c0] : (f32, memref<1xf32>) -> f32
      }
      gpu.return
    }

    // Integer histogram with atomics: bins[v[i] mod nbins] += 1.
    gpu.func @histogram(%v: memref<?xi32>, %bins: memref<?xi32>, %n: index,
                        %nbins: i32) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %v[%i] : memref<?xi32>
        %m = arith.remui %x, %nbins : i32
        %b = arith.index_cast %m : i32 to index
        %one = arith.constant 1 : i32
        %old = memref.atomic_rmw addi %one, %bins[%b] : (i32, memref<?xi32>) -> i32
      }
      gpu.return
    }
  }

  func.func @host(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                  %n: index) {
    %c1 = arith.constant 1 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %t = arith.addi %n, %c255 : index
    %blocks = arith.divui %t, %c256 : index
    gpu.launch_func @elementwise::@vadd blocks in (%blocks, %c1, %c1)
        threads in (%c256, %c1, %c1)
        args(%a : memref<?xf32>, %b : memref<?xf32>, %c : memref<?xf32>,
             %n : index)
    // A launch region the pipeline outlines into its own gpu.module.
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %c[%i] : memref<?xf32>
      }
      gpu.terminator
    }
    return
  }
}
