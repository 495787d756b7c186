// REQUIRES: ptxas
// Every object llm-lower emits for ordinary kernels (shared memory, shuffles,
// atomics, 2-D, strided and offset memrefs, scalars, f16, outlined launches)
// is PTX that ptxas accepts for the chip.
// RUN: llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower="provider=replay cache=off verify=compile" -o %t.mlir
// RUN: %python -m llmptx.gpu_binary %t.mlir --binary elementwise -o %t.elementwise.ptx
// RUN: %python -m llmptx.gpu_binary %t.mlir --binary tiled -o %t.tiled.ptx
// RUN: %python -m llmptx.gpu_binary %t.mlir --binary host_kernel --object 1 -o %t.host.ptx
// RUN: %ptxas -arch=sm_90 %t.elementwise.ptx -o %t.elementwise.cubin
// RUN: %ptxas -arch=sm_90 %t.tiled.ptx -o %t.tiled.cubin
// RUN: %ptxas -arch=sm_90 %t.host.ptx -o %t.host.cubin
// RUN: FileCheck %s --input-file=%t.tiled.ptx

// CHECK: .target sm_90
// CHECK-DAG: .visible .entry transpose(
// CHECK-DAG: .visible .entry sum(
// CHECK-DAG: .visible .entry histogram(
// CHECK-DAG: shfl.sync.down
// CHECK-DAG: bar.sync
// CHECK-DAG: atom.global.add.f32
// CHECK-DAG: .shared .align {{[0-9]+}} .b8 {{.*}}[4224]
