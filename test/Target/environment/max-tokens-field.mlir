// LLMPTX_MAX_TOKENS_FIELD names the token limit of --llm-lower's openai
// requests as of llmptx-llm's (newer OpenAI models want
// max_completion_tokens).
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"completion": "no PTX"}]}' > %t/script.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/script.json --log %t/log.jsonl -- \
// RUN:   env LLMPTX_MAX_TOKENS_FIELD=max_completion_tokens llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off repairs=0" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/log.jsonl
// CHECK: "max_completion_tokens": 16384
// CHECK-NOT: "max_tokens"

// RUN: env LLMPTX_MAX_TOKENS_FIELD=tokens llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid provider configuration: LLMPTX_MAX_TOKENS_FIELD='tokens' (expected max_tokens or max_completion_tokens)
