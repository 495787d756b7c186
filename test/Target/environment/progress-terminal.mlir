// On a terminal (script(1) gives the run one) the progress lines come by
// default, and LLMPTX_PROGRESS=0 silences them there too.
// REQUIRES: terminal
// RUN: script -qec 'env -u LLMPTX_PROGRESS LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null' /dev/null | FileCheck %s
// CHECK: [0/1] @vadd sample 0 round 0: abi-error (1 error(s))
// CHECK: [0/1] @vadd sample 0 round 1: {{compiled|lint-ok}}
// RUN: script -qec 'env LLMPTX_PROGRESS=0 LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null' /dev/null | FileCheck %s --check-prefix=QUIET --implicit-check-not='sample 0 round'
// QUIET: llmgen: @vadd: using
