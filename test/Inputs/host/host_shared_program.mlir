// gpu.alloc host_shared next to synchronous copies: gpu-async-region makes
// the allocation async, which MLIR 22's gpu-to-llvm does not lower. Used by
// test/Host/host-build-errors.test for host_build's error.
module attributes {gpu.container_module} {
  func.func @stage(%a: memref<?xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %h = gpu.alloc host_shared (%n) : memref<?xf32>
    gpu.memcpy %h, %a : memref<?xf32>, memref<?xf32>
    gpu.dealloc %h : memref<?xf32>
    return
  }
}
