// The API keys of --llm-lower come from the environment as llmptx-llm's do:
// LLMPTX_API_KEY wins over OPENAI_API_KEY (ANTHROPIC_API_KEY for
// anthropic), the key travels in a header only, and no file the compiler
// writes (output, report, cache entry) holds it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"responses": [{"completion": "no PTX"}]}' > %t/script.json
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/script.json --log %t/openai.jsonl -- \
// RUN:   env OPENAI_API_KEY=sk-openai-secret-A1B2C3 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache-dir=%t/cache repairs=0 report=%t/report.json" -o %t/out.mlir 2>/dev/null
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/openai.jsonl --key sk-openai-secret-A1B2C3 | FileCheck %s --check-prefix=OPENAI
// OPENAI: key-in-headers=authorization key-in-body=no
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/script.json --log %t/generic.jsonl -- \
// RUN:   env OPENAI_API_KEY=sk-openai-secret-A1B2C3 LLMPTX_API_KEY=llmptx-generic-secret-G7H8 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=openai model=m base-url=http://127.0.0.1:{port}/v1 cache-dir=%t/generic-cache repairs=0 report=%t/generic-report.json" -o %t/generic-out.mlir 2>/dev/null
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/generic.jsonl --key llmptx-generic-secret-G7H8 | FileCheck %s --check-prefix=GENERIC
// GENERIC: key-in-headers=authorization key-in-body=no
// RUN: %python -m llmptx.testing.mock_llm_server --script %t/script.json --log %t/anthropic.jsonl -- \
// RUN:   env ANTHROPIC_API_KEY=sk-ant-secret-D4E5F6 llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=anthropic model=m base-url=http://127.0.0.1:{port}/v1 cache-dir=%t/anthropic-cache repairs=0 report=%t/anthropic-report.json" -o %t/anthropic-out.mlir 2>/dev/null
// RUN: %python %S/../../LLM/Inputs/request_log.py summary %t/anthropic.jsonl --key sk-ant-secret-D4E5F6 | FileCheck %s --check-prefix=ANTHROPIC
// ANTHROPIC: path=/v1/messages {{.*}}key-in-headers=x-api-key key-in-body=no
// RUN: find %t/cache %t/generic-cache %t/anthropic-cache -name '*.json' | FileCheck %s --check-prefix=CACHED
// CACHED-COUNT-3: .json
// RUN: not grep -r -e sk-openai-secret -e llmptx-generic-secret -e sk-ant-secret %t/out.mlir %t/report.json %t/cache \
// RUN:   %t/generic-out.mlir %t/generic-report.json %t/generic-cache %t/anthropic-out.mlir %t/anthropic-report.json %t/anthropic-cache
