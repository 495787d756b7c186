// LLMPTX_MODEL names the model when the model option is not given; the
// option wins when it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_MODEL=env-model LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/env.jsonl" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/env.jsonl --check-prefix=ENV
// ENV: "model": "env-model"
// RUN: env LLMPTX_MODEL=env-model LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/option.jsonl" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec model=option-model cache=off" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/option.jsonl --check-prefix=OPTION
// OPTION: "model": "option-model"
// OPTION-NOT: env-model
