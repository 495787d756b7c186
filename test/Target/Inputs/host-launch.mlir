// No harness: the facts for verification come from the host code, which
// launches the kernel with constant grid, block and scalar operands on
// buffers it allocates with constant sizes.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) kernel {
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
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    %a = memref.alloc(%c1000) : memref<?xf32>
    %b = memref.alloc(%c1000) : memref<?xf32>
    %c = memref.alloc(%c1000) : memref<?xf32>
    gpu.launch_func @kernels::@vadd blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%a : memref<?xf32>, %b : memref<?xf32>, %c : memref<?xf32>, %c1000 : index)
    return
  }
}
