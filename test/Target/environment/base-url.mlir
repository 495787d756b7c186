// LLMPTX_BASE_URL is the endpoint when the base-url option is not given;
// the request reaches the server on loopback. The option wins when given.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"completion": "no PTX here"}]}' > %t/script.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/script.json --log %t/env.jsonl -- \
// RUN:   env LLMPTX_BASE_URL=http://127.0.0.1:{port}/v1 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m cache=off repairs=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: llmgen: @vadd: using the NVPTX reference: no valid candidate: sample 0: no-ptx
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/env.jsonl | FileCheck %s --check-prefix=SERVER
// SERVER: seq=0 path=/v1/chat/completions model=m
// SERVER: requests=1

// RUN: %python -m llmptx.testing.mock_llm_server --script %t/script.json --log %t/option.jsonl -- \
// RUN:   env LLMPTX_BASE_URL=http://127.0.0.1:1/v1 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache=off repairs=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/option.jsonl | FileCheck %s --check-prefix=SERVER
