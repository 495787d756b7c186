// LLMPTX_MAX_RETRIES and LLMPTX_RETRY_BASE_MS shape the retries of a
// failing model call under --llm-lower as under llmptx-llm: one retry
// after a server error, then the call fails.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"status": 500, "text": "upstream exploded"}]}' > %t/down.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/down.json --log %t/log.jsonl -- \
// RUN:   env LLMPTX_MAX_RETRIES=1 LLMPTX_RETRY_BASE_MS=1 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off" -o /dev/null 2>&1 | FileCheck %s
// CHECK: provider-error (openai: HTTP 500{{.*}}(gave up after 2 attempts))
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/log.jsonl | FileCheck %s --check-prefix=SERVER
// SERVER: requests=2

// RUN: env LLMPTX_MAX_RETRIES=many llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid provider configuration: LLMPTX_MAX_RETRIES='many' is not a non-negative integer
