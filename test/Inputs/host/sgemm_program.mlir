// A host program around the shared-memory tiled SGEMM of the kernel suite
// (docs/suite/kernels/sgemm.mlir; timed at M = N = K = 2048): @run_sgemm
// copies A and B to the GPU, launches @sgemm with a grid computed from the
// matrix sizes and copies C back. The module holds the only launch of
// @sgemm, so a candidate may choose its own launch (docs/pipeline.md);
// test/Inputs/host/sgemm_driver.c calls it.
module attributes {gpu.container_module} {
  gpu.module @sgemm_module {
    gpu.func @sgemm(%a: memref<?x?xf32>, %b: memref<?x?xf32>,
                    %c: memref<?x?xf32>)
        workgroup(%as: memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %bs: memref<16x16xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 16, 16, 1>,
          llmgen.spec = "C = A * B, fused multiply-add per term, k in increasing order",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N", "K"],
              shapes = [[1, 1, 1], [3, 5, 7], [16, 16, 16], [17, 33, 15],
                        [64, 64, 64], [100, 70, 130], [127, 129, 257],
                        [130, 260, 33], [512, 512, 512], [2048, 2048, 2048]],
              args = ["M, K", "K, N", "M, N"],
              grid = ["ceildiv(N, 16)", "ceildiv(M, 16)", "1"],
              flops = "2 * M * N * K">} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0.0 : f32
      %m = memref.dim %a, %c0 : memref<?x?xf32>
      %k = memref.dim %a, %c1 : memref<?x?xf32>
      %n = memref.dim %b, %c1 : memref<?x?xf32>
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %rbase = arith.muli %by, %c16 : index
      %row = arith.addi %rbase, %ty : index
      %cbase = arith.muli %bx, %c16 : index
      %col = arith.addi %cbase, %tx : index
      %rowok = arith.cmpi ult, %row, %m : index
      %colok = arith.cmpi ult, %col, %n : index
      %acc = scf.for %t = %c0 to %k step %c16 iter_args(%s = %zero) -> (f32) {
        %ka = arith.addi %t, %tx : index
        %kaok = arith.cmpi ult, %ka, %k : index
        %aok = arith.andi %rowok, %kaok : i1
        %av = scf.if %aok -> (f32) {
          %v = memref.load %a[%row, %ka] : memref<?x?xf32>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        memref.store %av, %as[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %kb = arith.addi %t, %ty : index
        %kbok = arith.cmpi ult, %kb, %k : index
        %bok = arith.andi %kbok, %colok : i1
        %bv = scf.if %bok -> (f32) {
          %v = memref.load %b[%kb, %col] : memref<?x?xf32>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        memref.store %bv, %bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %inner = scf.for %kk = %c0 to %c16 step %c1 iter_args(%u = %s) -> (f32) {
          %x = memref.load %as[%ty, %kk] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %y = memref.load %bs[%kk, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %y fastmath<contract> : f32
          %q = arith.addf %u, %p fastmath<contract> : f32
          scf.yield %q : f32
        }
        gpu.barrier
        scf.yield %inner : f32
      }
      %ok = arith.andi %rowok, %colok : i1
      scf.if %ok {
        memref.store %acc, %c[%row, %col] : memref<?x?xf32>
      }
      gpu.return
    }
  }

  // C = A x B on the GPU (A is M x K, B is K x N, C is M x N).
  func.func @run_sgemm(%a: memref<?x?xf32>, %b: memref<?x?xf32>,
                       %c: memref<?x?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %m = memref.dim %a, %c0 : memref<?x?xf32>
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %n = memref.dim %b, %c1 : memref<?x?xf32>
    %da = gpu.alloc (%m, %k) : memref<?x?xf32>
    %db = gpu.alloc (%k, %n) : memref<?x?xf32>
    %dc = gpu.alloc (%m, %n) : memref<?x?xf32>
    gpu.memcpy %da, %a : memref<?x?xf32>, memref<?x?xf32>
    gpu.memcpy %db, %b : memref<?x?xf32>, memref<?x?xf32>
    %gx = arith.ceildivui %n, %c16 : index
    %gy = arith.ceildivui %m, %c16 : index
    gpu.launch_func @sgemm_module::@sgemm blocks in (%gx, %gy, %c1)
        threads in (%c16, %c16, %c1)
        args(%da : memref<?x?xf32>, %db : memref<?x?xf32>,
             %dc : memref<?x?xf32>)
    gpu.memcpy %c, %dc : memref<?x?xf32>, memref<?x?xf32>
    gpu.dealloc %da : memref<?x?xf32>
    gpu.dealloc %db : memref<?x?xf32>
    gpu.dealloc %dc : memref<?x?xf32>
    return
  }
}
