// REQUIRES: nvrtc
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/llm-tensor-maps" \
// RUN:   LLMPTX_RUNNER="%python -m llmptx.testing.results_replay --results %S/Inputs/llm-tensor-maps/results-h100.json --ran %S/Inputs/llm-tensor-maps/bundles" \
// RUN:   llmptx-opt %s --llm-lower="chip=sm_90a provider=exec cache=off verify=exec select=llm language=cuda repairs=0" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/out.mlir --check-prefix=HOST
// RUN: %python -m llmptx.host_build %t/out.mlir -o %t/prog.0 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: llmptx-opt %t/out.mlir --llmgen-select-object=index=1 -o %t/out.1.mlir
// RUN: %python -m llmptx.host_build %t/out.1.mlir -o %t/prog.1 --runtime %llmptx_libs/libllmptx_gpu_runtime.so
// RUN: %if cuda %{ %t/prog.0 | FileCheck %s %}
// RUN: %if cuda %{ %t/prog.1 | FileCheck %s %}
//
// A whole program whose selected kernel takes a tensor map: @copy2d is
// answered in CUDA C++ with a TMA load of each 64 x 64 tile
// (Inputs/llm-tensor-maps/copy2d.txt, the answer of
// test/Target/llm-tensor-maps.mlir), verified by execution on an H100
// (the runner's results recorded in Inputs/llm-tensor-maps: it passes, at
// 0.92x of the reference, which already copies at the memory's speed, so
// select=llm makes it object 0: the subject here is the host code);
// the host code then builds the map with mgpuTensorMapEncodeTiled, once,
// after the buffer is allocated, and passes it after the kernel's
// arguments. Object 1 (the NVPTX reference, selected with
// --llmgen-select-object=index=1) launches without it; both print the
// same.

// REMARK: remark: llmgen: @copy2d: selected the LLM kernel: select=llm: candidate s0r0, checked at level exec
// HOST: call @__llmgen_tensor_map_copy2d_0
// HOST: gpu.launch_func @tma_kernels::@copy2d {{.*}} : !llvm.array<16 x i64>) {llmgen.tensor_maps = 1 : i64}
// CHECK: 0
// CHECK-NEXT: 193
// CHECK-NEXT: 445

module attributes {gpu.container_module} {
  gpu.module @tma_kernels {
    gpu.func @copy2d(%x: memref<?x?xf16>, %y: memref<?x?xf16>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
                    llmgen.harness = #llmgen.harness<sizes = ["M", "N"],
                        shapes = [[64, 64], [128, 192]], args = ["M, N", "M, N"],
                        grid = ["ceildiv(N, 64)", "ceildiv(M, 64)", "1"],
                        facts = {align = 16, divisible = {M = 64, N = 64}}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %m = memref.dim %x, %c0 : memref<?x?xf16>
      %n = memref.dim %x, %c1 : memref<?x?xf16>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tid = gpu.thread_id x
      %row0 = arith.muli %by, %c64 : index
      %col0 = arith.muli %bx, %c64 : index
      scf.for %i = %tid to %c4096 step %c128 {
        %r = arith.divui %i, %c64 : index
        %c = arith.remui %i, %c64 : index
        %row = arith.addi %row0, %r : index
        %col = arith.addi %col0, %c : index
        %rowok = arith.cmpi ult, %row, %m : index
        %colok = arith.cmpi ult, %col, %n : index
        %ok = arith.andi %rowok, %colok : i1
        scf.if %ok {
          %v = memref.load %x[%row, %col] : memref<?x?xf16>
          memref.store %v, %y[%row, %col] : memref<?x?xf16>
        }
      }
      gpu.return
    }
  }

  // x[i, j] = 2 i + j, and y read back as f32 (exact in f16 up to 2048).
  gpu.module @helpers {
    gpu.func @iota(%x: memref<?x?xf16>) kernel {
      %i = gpu.block_id x
      %j = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %twice = arith.muli %i, %c2 : index
      %s = arith.addi %twice, %j : index
      %si = arith.index_cast %s : index to i32
      %f = arith.sitofp %si : i32 to f16
      memref.store %f, %x[%i, %j] : memref<?x?xf16>
      gpu.return
    }
    gpu.func @widen(%y: memref<?x?xf16>, %z: memref<?x?xf32>) kernel {
      %i = gpu.block_id x
      %j = gpu.thread_id x
      %v = memref.load %y[%i, %j] : memref<?x?xf16>
      %w = arith.extf %v : f16 to f32
      memref.store %w, %z[%i, %j] : memref<?x?xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c65 = arith.constant 65 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %c191 = arith.constant 191 : index
    %c192 = arith.constant 192 : index
    %x = gpu.alloc (%c128, %c192) : memref<?x?xf16>
    %y = gpu.alloc (%c128, %c192) : memref<?x?xf16>
    %z = gpu.alloc (%c128, %c192) : memref<?x?xf32>
    gpu.launch_func @helpers::@iota blocks in (%c128, %c1, %c1) threads in (%c192, %c1, %c1) args(%x : memref<?x?xf16>)
    %m = memref.dim %x, %c0 : memref<?x?xf16>
    %n = memref.dim %x, %c1 : memref<?x?xf16>
    %gx = arith.ceildivui %n, %c64 : index
    %gy = arith.ceildivui %m, %c64 : index
    gpu.launch_func @tma_kernels::@copy2d blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1) args(%x : memref<?x?xf16>, %y : memref<?x?xf16>)
    gpu.launch_func @helpers::@widen blocks in (%c128, %c1, %c1) threads in (%c192, %c1, %c1) args(%y : memref<?x?xf16>, %z : memref<?x?xf32>)
    %h = memref.alloc(%c128, %c192) : memref<?x?xf32>
    gpu.memcpy %h, %z : memref<?x?xf32>, memref<?x?xf32>
    %a = memref.load %h[%c0, %c0] : memref<?x?xf32>
    %b = memref.load %h[%c64, %c65] : memref<?x?xf32>
    %c = memref.load %h[%c127, %c191] : memref<?x?xf32>
    vector.print %a : f32
    vector.print %b : f32
    vector.print %c : f32
    return
  }
}
