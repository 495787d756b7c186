// LLMPTX_CACHE is honoured by --llm-lower as by llmptx-llm: off writes no
// entry, read serves entries and writes none, a mode given as the cache
// option (readwrite included) wins, and an unknown mode is refused with the
// variable's name.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/calls.jsonl" \
// RUN:   LLMPTX_CACHE=off llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache-dir=%t/off report=%t/off.json" -o /dev/null 2>/dev/null
// RUN: not test -e %t/off
// RUN: FileCheck %s --input-file=%t/off.json --check-prefix=OFF
// OFF: "cache": "off"

// readwrite (the default) writes the two answers of the repair conversation.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/calls.jsonl" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache-dir=%t/rw" -o /dev/null 2>/dev/null
// RUN: llmptx-llm cache verify --cache-dir %t/rw | FileCheck %s --check-prefix=TWO
// TWO: 2 entries ok, 0 corrupt

// read: the entries answer (no model call), and with two samples the
// second sample's miss asks the model but is not written.
// RUN: cp -r %t/rw %t/read
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair --log %t/read.jsonl" \
// RUN:   LLMPTX_CACHE=read llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache-dir=%t/read samples=2 report=%t/read.json" -o /dev/null 2>/dev/null
// RUN: llmptx-llm cache verify --cache-dir %t/read | FileCheck %s --check-prefix=TWO
// RUN: %python -c "import sys; print(len(open(sys.argv[1]).read().splitlines()))" %t/read.jsonl | FileCheck %s --check-prefix=MISSES
// MISSES: 2
// RUN: FileCheck %s --input-file=%t/read.json --check-prefix=READ
// READ-DAG: "cache": "read"
// READ-DAG: "cache_hit": true

// The option wins over the variable.
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   LLMPTX_CACHE=off llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=readwrite cache-dir=%t/option" -o /dev/null 2>/dev/null
// RUN: llmptx-llm cache verify --cache-dir %t/option | FileCheck %s --check-prefix=TWO

// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   LLMPTX_CACHE=sometimes llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache-dir=%t/bad" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: remark: llmgen: using the NVPTX reference: provider 'exec' unavailable: invalid provider configuration: LLMPTX_CACHE: unknown cache mode 'sometimes' (expected readwrite, read or off)
