// RUN: llmptx-opt %s -llmgen-select-object | FileCheck %s --check-prefix=LLM
// RUN: llmptx-opt %s -llmgen-select-object | llmptx-opt -llmgen-select-object=index=1 | FileCheck %s --check-prefix=BACK
// RUN: llmptx-opt %s -llmgen-select-object | llmptx-opt -llmgen-select-object=index=1 | llmptx-opt -llmgen-select-object=index=0 | FileCheck %s --check-prefix=LLM

// Object 0 runs @copy2d with 98304 bytes of dynamic shared memory and a
// tensor map over %x (64 x 64 boxes of f16, 128B swizzle); object 1, the
// reference, with the original launch. The map is described once, right
// after %x is defined (outside the loop), by a helper that calls the host
// runtime's mgpuTensorMapEncodeTiled; switching to object 1 drops it and
// restores the launch's own shared memory, and switching back adds it again.
module attributes {gpu.container_module} {
  gpu.binary @tma_kernels [
    #gpu.object<#nvvm.target<chip = "sm_90a">, properties = {llmgen.slot = "selected", llmgen.kernels = {copy2d = {source = "llm", launch = {block = array<i64: 128, 1, 1>, grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"], sizes = {M = array<i64: 0, 0>, N = array<i64: 0, 1>}, dynamic_shared_bytes = 98304 : i64, tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, data_type = 6 : i64, interleave = 0 : i64, l2_promotion = 2 : i64, name = "tmX", oob_fill = 0 : i64, swizzle = 3 : i64}]}}}}, "PTX0">,
    #gpu.object<#nvvm.target<chip = "sm_90a">, properties = {llmgen.slot = "alternate", llmgen.kernels = {copy2d = {source = "nvptx", launch = {block = array<i64: 128, 1, 1>, grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"], sizes = {M = array<i64: 0, 0>, N = array<i64: 0, 1>}}}}}, "PTX1">
  ]
  func.func @run(%m: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %c128 = arith.constant 128 : index
    %smem = arith.constant 0 : i32
    %x = memref.alloc(%m, %n) : memref<?x?xf16>
    %y = memref.alloc(%m, %n) : memref<?x?xf16>
    scf.for %i = %c0 to %c10 step %c1 {
      gpu.launch_func @tma_kernels::@copy2d blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %smem args(%x : memref<?x?xf16>, %y : memref<?x?xf16>)
    }
    return
  }
}

// LLM-LABEL: func.func @run
// LLM: %[[X:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf16>
// LLM-NEXT: %[[MAP:.*]] = call @__llmgen_tensor_map_copy2d_0(%[[X]]) : (memref<?x?xf16>) -> !llvm.array<16 x i64>
// LLM: scf.for
// LLM: %[[SMEM:.*]] = arith.constant 98304 : i32
// LLM: gpu.launch_func @tma_kernels::@copy2d {{.*}} dynamic_shared_memory_size %[[SMEM]] args(%[[X]] : memref<?x?xf16>, %{{.*}} : memref<?x?xf16>, %[[MAP]] : !llvm.array<16 x i64>) {llmgen.shared_bytes = 0 : i32, llmgen.tensor_maps = 1 : i64}
// LLM: llvm.func @mgpuTensorMapEncodeTiled(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32)
// LLM-LABEL: func.func private @__llmgen_tensor_map_copy2d_0(%{{.*}}: memref<?x?xf16>) -> !llvm.array<16 x i64>
// LLM: memref.extract_strided_metadata
// LLM: memref.extract_aligned_pointer_as_index
// LLM: llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// LLM: llvm.call @mgpuTensorMapEncodeTiled
// LLM: llvm.load

// BACK-LABEL: func.func @run
// BACK-NOT: call @__llmgen_tensor_map
// BACK: scf.for
// BACK: %[[SMEM:.*]] = arith.constant 0 : i32
// BACK-NEXT: gpu.launch_func @tma_kernels::@copy2d {{.*}} dynamic_shared_memory_size %[[SMEM]] args(%{{.*}} : memref<?x?xf16>, %{{.*}} : memref<?x?xf16>) {llmgen.shared_bytes = 0 : i32}
