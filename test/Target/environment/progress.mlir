// LLMPTX_PROGRESS=1 prints a line per model call on stderr while kernels
// are in flight (the default when stderr is a terminal); 0 silences it.
// RUN: env LLMPTX_PROGRESS=1 LLMPTX_EXEC_COMMAND="%python -m llmptx.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null 2>&1 | FileCheck %s
// CHECK: [0/1] @vadd sample 0 round 0: abi-error (1 error(s))
// CHECK: [0/1] @vadd sample 0 round 1: {{compiled|lint-ok}}
// RUN: env LLMPTX_PROGRESS=0 LLMPTX_EXEC_COMMAND="%python -m llmptx.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: @vadd sample 0 round
