// RUN: llmptx-opt %s -split-input-file -verify-diagnostics
//
// Names and harnesses as a hostile or careless author writes them: each is an
// error at the gpu.func, never an abort in the NVPTX backend or a check that
// quietly tests nothing.

gpu.module @dash [#llmgen.target] {
  // expected-error @below {{kernel name 'a-b' cannot be a PTX symbol: use letters, digits, '_' and '$', not starting with a digit}}
  gpu.func @"a-b"() kernel { gpu.return }
}

// -----

gpu.module @space [#llmgen.target] {
  // expected-error @below {{kernel name 'a b' cannot be a PTX symbol}}
  gpu.func @"a b"() kernel { gpu.return }
}

// -----

gpu.module @umlaut [#llmgen.target] {
  // expected-error @below {{cannot be a PTX symbol}}
  gpu.func @"ä"() kernel { gpu.return }
}

// -----

// The NVPTX backend would rename it a_$_b, which the host cannot load.
gpu.module @dot [#llmgen.target] {
  // expected-error @below {{kernel name 'a.b' cannot be a PTX symbol}}
  gpu.func @"a.b"() kernel { gpu.return }
}

// -----

gpu.module @long [#llmgen.target] {
  // expected-error @below {{it has 1100 characters, at most 1024 are accepted}}
  gpu.func @kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk() kernel { gpu.return }
}

// -----

// A device function may hold '.', which the backend rewrites consistently.
gpu.module @device_dot [#llmgen.target] {
  gpu.func @"helper.f"() { gpu.return }
  gpu.func @k() kernel { gpu.return }
}

// -----

gpu.module @too_many_args {
  // expected-error @below {{llmgen.harness: args has 3 entries, the kernel 2 arguments}}
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "N", "N"]>} {
    gpu.return
  }
}

// -----

gpu.module @dims {
  // expected-error @below {{args[0] gives 2 dimension(s) for %arg0 (memref<?xf32>), which has 1 dynamic one(s)}}
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N, N", "N"]>} {
    gpu.return
  }
}

// -----

gpu.module @float_index {
  // expected-error @below {{args[1] is a float for the integer %arg1 (index)}}
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "2.5"]>} {
    gpu.return
  }
}

// -----

gpu.module @range_arg {
  // expected-error @below {{facts: range names arg5, but the kernel has 2 arguments}}
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "N"], facts = {range = {arg5 = [0, 1]}}>} {
    gpu.return
  }
}

// -----

gpu.module @outputs {
  // expected-error @below {{outputs names argument 1, which is not a memref argument of the kernel}}
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "N"], outputs = [1]>} {
    gpu.return
  }
}

// -----

gpu.module @block {
  // expected-error @below {{block array<i32: 128, 1, 1> disagrees with the kernel's known_block_size array<i32: 256, 1, 1>}}
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>, llmgen.harness = #llmgen.harness<sizes = ["N"], args = ["N", "N"], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @ulp_negative {
  // expected-error @below {{tolerance ulp must be an integer from 0 to 1048576, found -1}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], tolerance = {ulp = -1}>} {
    gpu.return
  }
}

// -----

gpu.module @ulp_fraction {
  // expected-error @below {{tolerance ulp must be an integer from 0 to 1048576, found 1.500000e+00 : f64}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], tolerance = {ulp = 1.5}>} {
    gpu.return
  }
}

// -----

gpu.module @rel_negative {
  // expected-error @below {{tolerance rel must be a finite non-negative number}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], tolerance = {rel = -0.5}>} {
    gpu.return
  }
}

// -----

gpu.module @grid_size {
  // expected-error @below {{grid[0]: 'M' is not one of the harness's sizes}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], grid = ["ceildiv(M, 256)", "1", "1"]>} {
    gpu.return
  }
}

// -----

gpu.module @grid_deep {
  // expected-error @below {{grid[0]: '((((}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], grid = ["((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((N))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))", "1", "1"]>} {
    gpu.return
  }
}

// -----

gpu.module @flops {
  // expected-error @below {{flops: '2 * N *' is not an expression: column 8: expected a value}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], flops = "2 * N *">} {
    gpu.return
  }
}
