// Row-wise dot products of two i8 matrices: out[r] = sum over k of
// sext(A[r, k]) * sext(B[r, k]) in i32 (exact: i32 sums wrap and commute).
// A warp per row, eight rows per block of 256 threads; the harness states
// 16-byte alignment and K a multiple of 16.
module attributes {gpu.container_module} {
  gpu.module @dot_rows_i8_module {
    gpu.func @dot_rows_i8(%a: memref<?x?xi8>, %b: memref<?x?xi8>,
                          %out: memref<?xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out[r] = sum over k of sext(A[r, k]) * sext(B[r, k]) in i32",
          llmgen.harness = #llmgen.harness<sizes = ["M", "K"],
              shapes = [[1, 16], [3, 32], [8, 48], [9, 512], [17, 528],
                        [100, 1040], [1000, 4112], [8192, 8192]],
              args = ["M, K", "M, K", "M"],
              grid = ["ceildiv(M, 8)", "1", "1"], outputs = [2],
              facts = {align = 16, divisible = {K = 16},
                       range = {arg0 = [-128, 127], arg1 = [-128, 127]}}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0 : i32
      %w32 = arith.constant 32 : i32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %m = memref.dim %a, %c0 : memref<?x?xi8>
      %k = memref.dim %a, %c1 : memref<?x?xi8>
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %first = arith.muli %bid, %c8 : index
      %row = arith.addi %first, %warp : index
      %inb = arith.cmpi ult, %row, %m : index
      scf.if %inb {
        %acc = scf.for %kk = %lane to %k step %c32 iter_args(%s = %zero) -> (i32) {
          %av = memref.load %a[%row, %kk] : memref<?x?xi8>
          %bv = memref.load %b[%row, %kk] : memref<?x?xi8>
          %aw = arith.extsi %av : i8 to i32
          %bw = arith.extsi %bv : i8 to i32
          %p = arith.muli %aw, %bw : i32
          %t = arith.addi %s, %p : i32
          scf.yield %t : i32
        }
        %s16, %p16 = gpu.shuffle xor %acc, %o16, %w32 : i32
        %a16 = arith.addi %acc, %s16 : i32
        %s8, %p8 = gpu.shuffle xor %a16, %o8, %w32 : i32
        %a8 = arith.addi %a16, %s8 : i32
        %s4, %p4 = gpu.shuffle xor %a8, %o4, %w32 : i32
        %a4 = arith.addi %a8, %s4 : i32
        %s2, %p2 = gpu.shuffle xor %a4, %o2, %w32 : i32
        %a2 = arith.addi %a4, %s2 : i32
        %s1, %p1 = gpu.shuffle xor %a2, %o1, %w32 : i32
        %a1 = arith.addi %a2, %s1 : i32
        %lead = arith.cmpi eq, %lane, %c0 : index
        scf.if %lead {
          memref.store %a1, %out[%row] : memref<?xi32>
        }
      }
      gpu.return
    }
  }
}
