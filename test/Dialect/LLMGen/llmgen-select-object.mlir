// RUN: llmptx-opt %s -split-input-file -llmgen-select-object | FileCheck %s --check-prefix=KEEP
// RUN: llmptx-opt %s -split-input-file -llmgen-select-object=index=1 | FileCheck %s --check-prefix=SWITCH

// Object 0 launches @scale with blocks of 128 threads and a quarter of the
// grid; object 1 (the reference) with the original launch. Each records
// where the size N is read: the scalar %n (argument 2) for object 0, the
// first dimension of %x (argument 0, dimension 0) for object 1.
module attributes {gpu.container_module} {
  gpu.binary @kernels [
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {llmgen.slot = "selected", llmgen.kernels = {scale = {source = "llm", launch = {block = array<i64: 128, 1, 1>, grid = ["ceildiv(N, 512)", "1", "1"], sizes = {N = array<i64: 2>}}}, other = {source = "nvptx"}}}, "PTX0">,
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {llmgen.slot = "alternate", llmgen.kernels = {scale = {source = "nvptx", launch = {block = array<i64: 256, 1, 1>, grid = ["(N + 255) / 256", "N % 3 + 1", "max(-N, 1)"], sizes = {N = array<i64: 0, 0>}}}, other = {source = "nvptx"}}}, "PTX1">
  ]
  // KEEP: gpu.binary @kernels [
  // KEEP-LABEL: func.func @run
  // SWITCH: gpu.binary @kernels <#gpu.select_object<1 : i64>> [
  // SWITCH-LABEL: func.func @run
  func.func @run(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %g = arith.ceildivui %n, %c256 : index
    // KEEP-DAG: %[[C512:.*]] = arith.constant 512 : index
    // KEEP-DAG: %[[GX:.*]] = arith.ceildivsi %arg2, %[[C512]] : index
    // KEEP-DAG: %[[C128:.*]] = arith.constant 128 : index
    // KEEP: gpu.launch_func @kernels::@scale blocks in (%[[GX]], %{{.*}}, %{{.*}}) threads in (%[[C128]], %{{.*}}, %{{.*}}) args(%arg0 : memref<?xf32>, %arg1 : memref<?xf32>, %arg2 : index)
    // SWITCH: %[[N:.*]] = memref.dim %arg0, %{{.*}} : memref<?xf32>
    // SWITCH: %[[Q:.*]] = arith.floordivsi %{{.*}}, %{{.*}} : index
    // SWITCH: arith.floordivsi %[[N]], %{{.*}} : index
    // SWITCH: arith.maxsi
    // SWITCH: %[[C256:.*]] = arith.constant 256 : index
    // SWITCH: gpu.launch_func @kernels::@scale blocks in (%[[Q]], %{{.*}}, %{{.*}}) threads in (%[[C256]],
    gpu.launch_func @kernels::@scale blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?xf32>, %y : memref<?xf32>, %n : index)
    // A kernel whose objects record no launch keeps the one it has.
    // KEEP: gpu.launch_func @kernels::@other blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
    // SWITCH: gpu.launch_func @kernels::@other blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
    gpu.launch_func @kernels::@other blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?xf32>, %n : index)
    return
  }
}

// -----

// A binary that llm-lower did not make is left alone, whatever the index.
// KEEP-LABEL: gpu.binary @plain [
// SWITCH-LABEL: gpu.binary @plain [
module attributes {gpu.container_module} {
  gpu.binary @plain [#gpu.object<#nvvm.target<chip = "sm_90">, "PTX">]
}

