// Malformed input, bad attribute parameters and unknown options end in a
// diagnostic with a location (or the option named) and a non-zero exit.
// RUN: not llmptx-opt %s --llm-lower 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower="samples=0" 2>&1 | FileCheck %s --check-prefix=SAMPLES
// RUN: not llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower="temperature=2" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower="mode=rewrite" 2>&1 | FileCheck %s --check-prefix=ENUM
// RUN: not llmptx-opt %inputs/kernels/ordinary.mlir --llm-lower="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP

// SYNTAX: bad-input.mlir:[[@LINE+4]]:{{[0-9]+}}: error:
module attributes {gpu.container_module} {
  gpu.module @broken {
    gpu.func @k(%x: memref<?xf32>) kernel {
      gpu.return %x
    }
  }
}

// SAMPLES: ordinary.mlir:6:3: error: llmgen-attach-target: samples must be at least 1, got 0
// OPTION: no such option temperature
// ENUM: Cannot find option named 'rewrite'!
// CHIP: ordinary.mlir:6:3: error: llmgen-attach-target: chip 'gfx90a' is not of the form sm_<digits>[a|f]
