// The proof kernel of fragments/redux-sum-i32.ptx: row sums of an i32
// matrix, out[r] = sum over j of x[r, j] (i32 wraps, so exact in any
// order), a warp per row and eight rows per block of 256 threads; the
// warp's 32 partial sums are added with xor shuffles. The harness states
// 16-byte alignment and N a multiple of 4.
module attributes {gpu.container_module} {
  gpu.module @rowsum_i32_module {
    gpu.func @rowsum_i32(%x: memref<?x?xi32>, %out: memref<?xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out[r] = i32 sum of row r of x",
          llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
              shapes = [[1, 4], [3, 8], [8, 124], [9, 512], [17, 516],
                        [100, 1028], [1000, 4100], [8192, 8192]],
              args = ["M, N", "M"],
              grid = ["ceildiv(M, 8)", "1", "1"], outputs = [1],
              facts = {align = 16, divisible = {N = 4}}>} {
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
      %m = memref.dim %x, %c0 : memref<?x?xi32>
      %n = memref.dim %x, %c1 : memref<?x?xi32>
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %first = arith.muli %bid, %c8 : index
      %row = arith.addi %first, %warp : index
      %inb = arith.cmpi ult, %row, %m : index
      scf.if %inb {
        %acc = scf.for %j = %lane to %n step %c32 iter_args(%s = %zero) -> (i32) {
          %v = memref.load %x[%row, %j] : memref<?x?xi32>
          %t = arith.addi %s, %v : i32
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
