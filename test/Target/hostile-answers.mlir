// What a model answers is untrusted. An answer that quotes the API key
// (here one holding '"' and '\', which JSON escapes) has it redacted before
// anything keeps it: the repair request, the cache (two answers, two
// compile verdicts), the report and the output module never hold the key,
// raw or escaped.
// RUN: rm -rf %t && mkdir -p %t/answers %t/run
// RUN: %python %S/Inputs/hostile_answers.py answers %S/Inputs/answers/repair %t/answers
// RUN: env 'OPENAI_API_KEY=sk-q"u\o-secret-X1' LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %t/answers --log %t/requests.jsonl" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec select=llm cache-dir=%t/run/cache report=%t/run/report.json" -o %t/run/out.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// REMARK: remark: llmgen: @vadd: selected the LLM kernel: select=llm: candidate s0r1
// RUN: %python %S/Inputs/hostile_answers.py check 'sk-q"u\o-secret-X1' %t/run %t/requests.jsonl | FileCheck %s --check-prefix=CLEAN
// CLEAN: 2 requests, 6 files: no key, raw or escaped
// RUN: FileCheck %s --check-prefix=REDACTED < %t/run/out.mlir
// REDACTED: [REDACTED]

// An answer of more than 1 MiB (a model caught in a repetition loop) is a
// failed call: not cached, not checked, never sent back in a repair request.
// RUN: %python %S/Inputs/hostile_answers.py huge %t/huge
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %t/huge --log %t/huge.jsonl" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache-dir=%t/huge-cache report=%t/huge.json" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HUGE
// HUGE: remark: llmgen: @vadd: using the NVPTX reference:
// RUN: FileCheck %s --check-prefix=HUGE-REPORT < %t/huge.json
// HUGE-REPORT: "note": "the answer is {{[0-9]+}} bytes, more than the 1048576 an answer may be"
// RUN: %python -c "import sys; print(len(open(sys.argv[1]).readlines()))" %t/huge.jsonl | FileCheck %s --check-prefix=ONE
// ONE: 1
// RUN: llmptx-llm cache verify --cache-dir %t/huge-cache | FileCheck %s --check-prefix=NOT-CACHED
// NOT-CACHED: 0 entries ok, 0 corrupt

// A launch block nested 100k deep is refused as JSON, not a stack overflow.
// RUN: %python %S/Inputs/hostile_answers.py deep-launch %S/Inputs/answers/launch/scale.s0.txt %t/deep
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %t/deep" \
// RUN:   llmptx-opt %S/Inputs/launch/scale.mlir --llm-lower="provider=exec cache=off repairs=0 verify=exec runner=false report=%t/deep.json" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEP
// DEEP: remark: llmgen: @scale: using the NVPTX reference:
// RUN: FileCheck %s --check-prefix=DEEP-REPORT < %t/deep.json
// DEEP-REPORT: JSON nested deeper than 128 levels
