// LLMPTX_EXEC_COMMAND is the exec provider's command when the exec-command
// option is not given; the option wins when it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/env.jsonl" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/env.jsonl --check-prefix=ENV
// ENV: "kernel": "vadd"
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/env2.jsonl" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec exec-command='%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/option.jsonl' cache=off" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/option.jsonl --check-prefix=ENV
// RUN: not test -e %t/env2.jsonl

// Without either, the provider says what it needs.
// RUN: llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: remark: llmgen: using the NVPTX reference: provider 'exec' unavailable: provider 'exec' needs a command: set the exec-command option or LLMPTX_EXEC_COMMAND
