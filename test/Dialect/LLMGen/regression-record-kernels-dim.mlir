// RUN: llmptx-opt %s -llmgen-record-kernels | FileCheck %s
// memref.dim reads no element: an input whose size is queried stays "read".
// CHECK: llmgen.kernels = {copy = {access = ["read", "write"]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %n = memref.dim %in, %c0 : memref<?xf32>
      %i = gpu.thread_id x
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        %v = memref.load %in[%i] : memref<?xf32>
        memref.store %v, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
