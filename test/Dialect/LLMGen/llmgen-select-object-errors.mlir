// RUN: not llmptx-opt %s -split-input-file -llmgen-select-object=index=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not llmptx-opt %s -split-input-file -llmgen-select-object -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// RANGE: error: llmgen-select-object: index 2 is out of range: the binary has 1 object(s)
module attributes {gpu.container_module} {
  gpu.binary @only [
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {llmgen.slot = "selected"}, "PTX">
  ]
}

// -----

// The size must be read from an argument of the launch.
// BAD: error: llmgen-select-object: size 'N' names no argument of this launch
module attributes {gpu.container_module} {
  gpu.binary @bad [
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {llmgen.slot = "selected", llmgen.kernels = {k = {launch = {block = array<i64: 64, 1, 1>, grid = ["N", "1", "1"], sizes = {N = array<i64: 7>}}}}}, "PTX">
  ]
  func.func @run(%n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @bad::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : index)
    return
  }
}

// -----

// BAD: error: llmgen-select-object: grid 'ceildiv(N, ': column 12: expected a value
module attributes {gpu.container_module} {
  gpu.binary @syntax [
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {llmgen.slot = "selected", llmgen.kernels = {k = {launch = {block = array<i64: 64, 1, 1>, grid = ["ceildiv(N, ", "1", "1"], sizes = {N = array<i64: 0>}}}}}, "PTX">
  ]
  func.func @run(%n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @syntax::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : index)
    return
  }
}
