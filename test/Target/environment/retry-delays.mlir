// LLMPTX_RETRY_BASE_MS and LLMPTX_RETRY_MAX_MS are read by --llm-lower as
// by llmptx-llm: the backoff before a retry is drawn from [d/2, d] with d =
// min(base, max) here, so with a base of 2000 ms and a ceiling of 200 ms the
// retry comes after 100 to 200 ms, not after a second.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"status": 500, "text": "down"}, {"completion": "no PTX"}]}' > %t/flaky.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/flaky.json --log %t/log.jsonl -- \
// RUN:   env LLMPTX_RETRY_BASE_MS=2000 LLMPTX_RETRY_MAX_MS=200 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off repairs=0" -o /dev/null 2>/dev/null
// RUN: %python %S/../../LLM/Inputs/request_log.py gap %t/log.jsonl 0 1 --at-least 0.09
// RUN: not %python %S/../../LLM/Inputs/request_log.py gap %t/log.jsonl 0 1 --at-least 0.9

// RUN: env LLMPTX_RETRY_BASE_MS=fast llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BASE
// BASE: invalid provider configuration: LLMPTX_RETRY_BASE_MS='fast' is not a non-negative integer
// RUN: env LLMPTX_RETRY_MAX_MS=slow llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAX
// MAX: invalid provider configuration: LLMPTX_RETRY_MAX_MS='slow' is not a non-negative integer
