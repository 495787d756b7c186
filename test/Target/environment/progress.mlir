// LLMPTX_PROGRESS=1 prints a line per model call on stderr while kernels
// are in flight; progress-terminal.mlir checks the default on a terminal
// and LLMPTX_PROGRESS=0.
// RUN: env LLMPTX_PROGRESS=1 LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null 2>&1 | FileCheck %s
// CHECK: [0/1] @vadd sample 0 round 0: abi-error (1 error(s))
// CHECK: [0/1] @vadd sample 0 round 1: {{compiled|lint-ok}}
