// SAXPY in place, y = alpha * x + y. Nothing is stated about alignment, so a
// candidate may use wide accesses only after checking the addresses at run
// time. The multiply and the add are separate operations without fastmath
// flags: the result must be the two roundings, not a fused multiply-add.
module attributes {gpu.container_module} {
  gpu.module @saxpy_module {
    gpu.func @saxpy(%x: memref<?xf32>, %y: memref<?xf32>, %alpha: f32,
                    %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "y = alpha * x + y in place; no contraction",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "1.75", "N"],
              grid = ["ceildiv(N, 256)", "1", "1"]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %xv = memref.load %x[%i] : memref<?xf32>
        %yv = memref.load %y[%i] : memref<?xf32>
        %m = arith.mulf %alpha, %xv : f32
        %s = arith.addf %m, %yv : f32
        memref.store %s, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
