// RUN: llmptx-opt %s --llm-lower=chip=sm_90 -o %t.mlir 2>/dev/null
// RUN: %python -m llmptx.host_build %t.mlir -o %t.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t.mlir --llmgen-select-object=index=1 -o %t.1.mlir
// RUN: %python -m llmptx.host_build %t.1.mlir -o %t.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ not --crash %t.0 2>&1 | FileCheck %s --implicit-check-not="thread: [0" --implicit-check-not="thread: [1" --implicit-check-not="host:" %}
// RUN: %if cuda %{ not --crash %t.1 2>&1 | FileCheck %s --implicit-check-not="thread: [0" --implicit-check-not="thread: [1" --implicit-check-not="host:" %}
//
// A device assertion (cf.assert in a gpu.launch body): threads 0 and 1 pass
// it, threads 2 and 3 fail it. The failing threads report the message with
// the op's location, the kernel stops, and the runtime reports the assert
// error at the next synchronization and aborts: nothing after it runs. (A
// kernel stopped by an assertion loses its gpu.printf output, so the
// passing threads print nothing that could be checked.)

// CHECK-DAG: assert.mlir:{{[0-9]+}}: {{.*}} block: [0,0,0], thread: [2,0,0] Assertion `only threads 0 and 1 pass` failed.
// CHECK-DAG: assert.mlir:{{[0-9]+}}: {{.*}} block: [0,0,0], thread: [3,0,0] Assertion `only threads 0 and 1 pass` failed.
// CHECK-DAG: llmptx gpu runtime: cuStreamSynchronize failed with CUDA_ERROR_ASSERT

module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %ok = arith.cmpi ult, %tx, %c2 : index
      cf.assert %ok, "only threads 0 and 1 pass"
      gpu.terminator
    }
    %t = gpu.wait async
    gpu.wait [%t]
    vector.print str "host: after the kernel\n"
    return
  }
}
