// LLMPTX_CACHE_DIR is where entries go when the cache-dir option is not
// given; the option wins when it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   LLMPTX_CACHE_DIR=%t/env llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec" -o /dev/null 2>/dev/null
// RUN: llmptx-llm cache verify --cache-dir %t/env | FileCheck %s
// CHECK: 2 entries ok, 0 corrupt
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   LLMPTX_CACHE_DIR=%t/env2 llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache-dir=%t/option" -o /dev/null 2>/dev/null
// RUN: llmptx-llm cache verify --cache-dir %t/option | FileCheck %s
// RUN: not test -e %t/env2
