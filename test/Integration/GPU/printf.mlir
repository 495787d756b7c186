// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t.0 | FileCheck %s %}
// RUN: %if cuda %{ %t.1 | FileCheck %s %}
//
// gpu.printf from a kernel: the device's printf buffer reaches stdout when
// the host synchronizes.

// CHECK-DAG: thread 0 of 4
// CHECK-DAG: thread 1 of 4
// CHECK-DAG: thread 2 of 4
// CHECK-DAG: thread 3 of 4

module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %i = arith.index_cast %tx : index to i32
      %n = arith.index_cast %sx : index to i32
      gpu.printf "thread %d of %d\n", %i, %n : i32, i32
      gpu.terminator
    }
    %t = gpu.wait async
    gpu.wait [%t]
    return
  }
}
