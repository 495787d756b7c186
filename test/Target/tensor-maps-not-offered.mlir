// On sm_90a a kernel's prompt offers tensor maps, dynamic shared memory and
// a launch of its own only where the pipeline can rewrite the host side
// (the module holds every launch of the kernel, and execution verifies the
// choice). Elsewhere a remark says why they are not offered, once per
// kernel; before sm_90a nothing is said.
// RUN: llmptx-opt %s --llm-lower="chip=sm_90a provider=exec exec-command=false mode=optimize cache=off verify=exec runner=false" -o /dev/null 2>&1 | FileCheck %s
// RUN: llmptx-opt %s --llm-lower="chip=sm_90 provider=exec exec-command=false mode=optimize cache=off verify=exec runner=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90

// CHECK: remark: llmgen: @copy: tensor maps, dynamic shared memory and a launch of its own are not offered: {{.*}}no grid
// CHECK-NOT: are not offered
// SM90-NOT: are not offered

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @copy(%x: memref<?xf32>, %y: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %y[%i] : memref<?xf32>
      gpu.return
    }
  }
}
