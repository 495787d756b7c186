// Speed is decided at a production shape. Without `timing` in the harness,
// the largest shape (N = 1048583 for a 1-D kernel) has every size doubled
// until the reference's compulsory traffic reaches 256 MiB: vadd moves 12
// bytes per element, so N = 33554656 (384 MiB). The harness's `timing`
// names the shape instead.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off emit-bundles=%t/scaled" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/scaled/kernels.vadd.bundle.json --check-prefix=SCALED
// RUN: llmptx-runner --plan %t/scaled/kernels.vadd.bundle.json | FileCheck %s --check-prefix=SCALED-PLAN
// SCALED:      "timing": {
// SCALED-NEXT:   "shape": -1,
// SCALED-NEXT:   "min_runs": 30,
// SCALED-NEXT:   "max_ms": 2000.0,
// SCALED-NEXT:   "production": {
// SCALED-NEXT:     "N": 33554656
// SCALED-NEXT:   }
// SCALED-PLAN: timing: the production shape N=33554656 (and the largest checked, shape 6), at least 30 runs, budget 2000 ms, 402655872 bytes moved; confirmed above 10x

// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair" \
// RUN:   llmptx-opt %s --llm-lower="provider=exec cache=off confirm-above=25 emit-bundles=%t/named" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/named/kernels.vadd.bundle.json --check-prefix=NAMED
// NAMED:      "production": {
// NAMED-NEXT:   "N": 100000000
// NAMED-NEXT: },
// NAMED-NEXT: "confirm_above": 25

// A timing shape must respect the stated facts.
// RUN: not llmptx-opt -split-input-file %S/Inputs/bad-timing.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: timing has N = 1000, not a multiple of 64 as the facts state
// BAD: timing must list 1 positive integers, one per size

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "N", "N", "N"],
              grid = ["ceildiv(N, 256)", "1", "1"], timing = [100000000]>} {
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
}
