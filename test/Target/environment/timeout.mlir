// LLMPTX_TIMEOUT_S bounds each attempt of a model call under --llm-lower as
// under llmptx-llm: a reply slower than it is abandoned, and the remark
// says the call timed out.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"delay": 3.0, "completion": "too late"}]}' > %t/slow.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/slow.json --log %t/log.jsonl -- \
// RUN:   env LLMPTX_TIMEOUT_S=0.3 LLMPTX_MAX_RETRIES=0 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: llmgen: @vadd: using the NVPTX reference: no valid candidate: sample 0: provider-error (openai: request to http://127.0.0.1:{{[0-9]+}}/v1/chat/completions failed: Operation timed out after {{[0-9]+}} milliseconds with 0 bytes received (gave up after 1 attempt))

// RUN: env LLMPTX_TIMEOUT_S=soon llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: provider 'openai' unavailable: invalid provider configuration: LLMPTX_TIMEOUT_S='soon' is not a positive number of seconds
