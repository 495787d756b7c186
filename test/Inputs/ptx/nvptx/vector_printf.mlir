// vector<4xf32> loads/stores, gpu.all_reduce (shuffles and shared memory)
// and gpu.printf (a vprintf call).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vector_printf(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %g = arith.addi %t, %tid : index
      %c4 = arith.constant 4 : index
      %i = arith.muli %g, %c4 : index
      %end = arith.addi %i, %c4 : index
      %ok = arith.cmpi ule, %end, %n : index
      scf.if %ok {
        %v = vector.load %in[%i] : memref<?xf32>, vector<4xf32>
        %two = arith.constant dense<2.0> : vector<4xf32>
        %w = arith.mulf %v, %two : vector<4xf32>
        vector.store %w, %out[%i] : memref<?xf32>, vector<4xf32>
        %e = vector.extract %w[0] : f32 from vector<4xf32>
        %s = gpu.all_reduce add %e uniform {} : (f32) -> f32
        %c0 = arith.constant 0 : index
        %first = arith.cmpi eq, %g, %c0 : index
        scf.if %first {
          gpu.printf "sum %f\n", %s : f32
        }
      }
      gpu.return
    }
  }
}
