// f16 loads, math in f32, f16 stores; an f16 scalar argument.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @f16_scale(%in: memref<?xf16>, %out: memref<?xf16>, %scale: f16, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %cond = arith.cmpi ult, %i, %n : index
      scf.if %cond {
        %x = memref.load %in[%i] : memref<?xf16>
        %y = arith.mulf %x, %scale : f16
        %xf = arith.extf %y : f16 to f32
        %e = math.exp %xf : f32
        %h = arith.truncf %e : f32 to f16
        %z = arith.addf %h, %x : f16
        memref.store %z, %out[%i] : memref<?xf16>
      }
      gpu.return
    }
  }
}
