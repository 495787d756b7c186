// LLMPTX_BATCH_EXPORT makes --llm-lower's replay provider append every miss
// to an OpenAI batch file, as llmptx-llm's does, so the requests of a build
// can be sent as one batch and the build replayed from its answers.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_BATCH_EXPORT=%t/batch.jsonl llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=replay model=m cache-dir=%t/cache" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: provider-error (replay: no cache entry
// RUN: FileCheck %s --input-file=%t/batch.jsonl
// CHECK: "custom_id":"llmptx:{{[0-9a-f]+}}:0:llmptx-translate-v1","method":"POST","url":"/v1/chat/completions"
