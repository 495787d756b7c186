// RUN: llmptx-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{chip 'gfx90a' is not of the form sm_<digits>[a|f]}}
gpu.module @bad_chip [#llmgen.target<chip = "gfx90a">] {
}

// -----

// expected-error @below {{samples must be at least 1, got 0}}
gpu.module @no_samples [#llmgen.target<samples = 0>] {
}

// -----

// expected-error @below {{repairs must not be negative, got -1}}
gpu.module @negative_repairs [#llmgen.target<repairs = -1>] {
}

// -----

// expected-error @below {{gpu_jobs must not be negative, got -2}}
gpu.module @negative_gpu_jobs [#llmgen.target<gpu_jobs = -2>] {
}

// -----

// expected-error @below {{provider 'bard' is not one of openai, anthropic, exec, replay}}
gpu.module @bad_provider [#llmgen.target<provider = "bard">] {
}

// -----

// expected-error @below {{O must be between 0 and 3, got 7}}
gpu.module @bad_opt [#llmgen.target<O = 7>] {
}

// -----

// expected-error @below {{failed to parse LLMGen_TargetAttr parameter 'mode'}}
// expected-error @below {{expected one of: translate, optimize}}
gpu.module @bad_mode [#llmgen.target<mode = rewrite>] {
}

// -----

// expected-error @below {{failed to parse LLMGen_TargetAttr parameter 'verification'}}
// expected-error @below {{expected one of: none, compile, exec}}
gpu.module @bad_verify [#llmgen.target<verification = run>] {
}

// -----

// expected-error @below {{failed to parse LLMGen_TargetAttr parameter 'select'}}
// expected-error @below {{expected one of: auto, llm, nvptx}}
gpu.module @bad_select [#llmgen.target<select = fastest>] {
}

// -----

// expected-error @below {{duplicate or unknown struct parameter name: temperature}}
gpu.module @unknown_param [#llmgen.target<temperature = 0.5>] {
}

// -----

gpu.module @harness_sizes {
  // expected-error @below {{sizes must be identifiers (strings), found "2N"}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["2N"]>} {
    gpu.return
  }
}

// -----

gpu.module @harness_shape {
  // expected-error @below {{shape 1 must list 2 integers, one per size}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["M", "N"], shapes = [[1, 1], [7]]>} {
    gpu.return
  }
}

// -----

gpu.module @harness_grid {
  // expected-error @below {{grid must have 3 entries (x, y, z), found 2}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], grid = ["N", "1"]>} {
    gpu.return
  }
}

// -----

gpu.module @harness_tolerance {
  // expected-error @below {{tolerance key 'eps' is not one of ulp, rel, abs}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], tolerance = {eps = 1.0e-3}>} {
    gpu.return
  }
}

// -----

gpu.module @harness_unknown_fact {
  // expected-error @below {{facts: unknown fact 'sorted' (expected align, divisible or range)}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], facts = {sorted}>} {
    gpu.return
  }
}

// -----

gpu.module @harness_divisible_size {
  // expected-error @below {{facts: divisible names 'M', which is not a size}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], facts = {divisible = {M = 4}}>} {
    gpu.return
  }
}

// -----

gpu.module @harness_divisible_shape {
  // expected-error @below {{shape 1 has N = 6, not a multiple of 4 as the facts state}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], shapes = [[4], [6]], facts = {divisible = {N = 4}}>} {
    gpu.return
  }
}

// -----

gpu.module @harness_range {
  // expected-error @below {{facts: range of 'arg0' must be [lo, hi] with lo <= hi}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], facts = {range = {arg0 = [5, 1]}}>} {
    gpu.return
  }
}

// -----

gpu.module @harness_align {
  // expected-error @below {{facts: align must be a power of two}}
  gpu.func @k() kernel attributes {llmgen.harness = #llmgen.harness<sizes = ["N"], facts = {align = 12}>} {
    gpu.return
  }
}
