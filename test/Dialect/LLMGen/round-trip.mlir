// RUN: llmptx-opt %s -split-input-file | FileCheck %s
// RUN: llmptx-opt %s -split-input-file | llmptx-opt -split-input-file | FileCheck %s

// Parameters equal to their defaults are elided when printed.
// CHECK-LABEL: gpu.module @defaults [#llmgen.target]
gpu.module @defaults [#llmgen.target] {
}

// -----

// CHECK-LABEL: gpu.module @all
// CHECK-SAME: #llmgen.target<O = 2, chip = "sm_90a", features = "+ptx80", flags = {fast}, provider = "openai", model = "gpt-x", base_url = "http://127.0.0.1:8000/v1", samples = 4, repairs = 3, mode = optimize, verification = exec, select = llm, strict = true, cache = read, cache_dir = "/tmp/c", runner = "ssh gpu llmptx-runner", report = "r.json", emit_bundles = "bundles", jobs = 8, gpu_jobs = 2>
// CHECK-SAME: #llmgen.target<provider = "exec", exec_command = "python3 model.py", select = nvptx, cache = off, slot = alternate>
gpu.module @all [#llmgen.target<O = 2, chip = "sm_90a", features = "+ptx80",
    flags = {fast}, provider = "openai", model = "gpt-x",
    base_url = "http://127.0.0.1:8000/v1", samples = 4, repairs = 3,
    mode = optimize, verification = exec, select = llm, strict = true,
    cache = read, cache_dir = "/tmp/c", runner = "ssh gpu llmptx-runner",
    report = "r.json", emit_bundles = "bundles", jobs = 8, gpu_jobs = 2>,
  #llmgen.target<provider = "exec", exec_command = "python3 model.py",
    select = nvptx, cache = off, slot = alternate>] {
}

// -----

// Parameters may come in any order.
// CHECK-LABEL: gpu.module @order [#llmgen.target<chip = "sm_100a", samples = 2>]
gpu.module @order [#llmgen.target<samples = 2, chip = "sm_100a">] {
}

// -----

// CHECK-LABEL: gpu.func @saxpy
// CHECK-SAME: llmgen.harness = #llmgen.harness<sizes = ["N"], shapes = {{\[}}[4], [96], [1048576]], args = ["N", "N", "2.5", "N"], grid = ["ceildiv(N, 256)", "1", "1"], outputs = [1], tolerance = {ulp = 2 : i64}, facts = {align = 16 : i64, divisible = {N = 4 : i64}, range = {arg0 = [0, 255]}}>
gpu.module @harness {
  gpu.func @saxpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>,
        llmgen.harness = #llmgen.harness<sizes = ["N"],
          shapes = [[4], [96], [1048576]], args = ["N", "N", "2.5", "N"],
          grid = ["ceildiv(N, 256)", "1", "1"], outputs = [1],
          tolerance = {ulp = 2}, facts = {align = 16, divisible = {N = 4}, range = {arg0 = [0, 255]}}>} {
    gpu.return
  }
}
