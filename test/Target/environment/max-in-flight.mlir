// LLMPTX_MAX_IN_FLIGHT bounds the requests in flight of --llm-lower's
// provider as of llmptx-llm's; the jobs option, when given, wins.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"delay": 0.3, "completion": "no PTX"}]}' > %t/slow.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/slow.json --log %t/env.jsonl -- \
// RUN:   env LLMPTX_MAX_IN_FLIGHT=1 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off samples=4 repairs=0" -o /dev/null 2>/dev/null
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/env.jsonl | FileCheck %s --check-prefix=ONE
// ONE: requests=4 max_in_flight=1
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/slow.json --log %t/jobs.jsonl -- \
// RUN:   env LLMPTX_MAX_IN_FLIGHT=1 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off samples=4 repairs=0 jobs=4" -o /dev/null 2>/dev/null
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/jobs.jsonl | FileCheck %s --check-prefix=MANY
// MANY: requests=4 max_in_flight={{[234]$}}

// RUN: env LLMPTX_MAX_IN_FLIGHT=0 llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: provider 'openai' unavailable: maxInFlight must be at least 1
