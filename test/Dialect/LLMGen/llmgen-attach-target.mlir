// RUN: llmptx-opt %s -split-input-file -llmgen-attach-target | FileCheck %s --check-prefix=DEFAULT
// RUN: llmptx-opt %s -split-input-file -llmgen-attach-target="module=^fast provider=replay samples=3 verify=exec select=llm mode=optimize chip=sm_90a fast=true alternate=false" | FileCheck %s --check-prefix=OPTS
// RUN: not llmptx-opt %s -split-input-file -llmgen-attach-target="samples=0" 2>&1 | FileCheck %s --check-prefix=BADSAMPLES
// RUN: not llmptx-opt %s -llmgen-attach-target="verify=maybe" 2>&1 | FileCheck %s --check-prefix=BADENUM
// RUN: not llmptx-opt %s -llmgen-attach-target="module=(" 2>&1 | FileCheck %s --check-prefix=BADREGEX

// DEFAULT-LABEL: gpu.module @fast_kernels [#llmgen.target, #llmgen.target<slot = alternate>]
// OPTS-LABEL: gpu.module @fast_kernels [#llmgen.target<chip = "sm_90a", flags = {fast}, provider = "replay", samples = 3, mode = optimize, verification = exec, select = llm>]
// DEFAULT-LABEL: gpu.module @other [#llmgen.target, #llmgen.target<slot = alternate>]
// OPTS-LABEL: gpu.module @other {
module attributes {gpu.container_module} {
  gpu.module @fast_kernels {
  }
  gpu.module @other {
  }
}

// -----

// Targets already present are kept, in front.
// DEFAULT-LABEL: gpu.module @existing [#nvvm.target<chip = "sm_90">, #llmgen.target, #llmgen.target<slot = alternate>]
module attributes {gpu.container_module} {
  gpu.module @existing [#nvvm.target<chip = "sm_90">] {
  }
}

// BADSAMPLES: error: llmgen-attach-target: samples must be at least 1, got 0
// BADENUM: Cannot find option named 'maybe'!
// BADREGEX: error: llmgen-attach-target: invalid module regex '('
