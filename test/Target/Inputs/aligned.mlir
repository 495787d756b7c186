// A kernel whose module states no alignment: its pointers are known to be
// aligned to 4 bytes (the element size) and no more. The answer in
// Inputs/answers/aligned uses 128-bit accesses without checking the
// addresses, which pays off only when the pointers happen to be 16-byte
// aligned; verification runs it on pointers aligned to exactly 4 bytes.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd4(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                    %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              shapes = [[1], [3], [4], [5], [97], [1000], [4099], [1048583], [67108864]],
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
  }
}
