// LLMPTX_PROVIDER chooses the provider when the provider option is not
// given; the option wins when it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LLMPTX_PROVIDER=exec LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="cache=off report=%t/env.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t/env.json --check-prefix=ENV
// ENV-DAG: "provider": "exec"
// ENV-DAG: "status": "{{compiled|lint-ok}}"

// RUN: env LLMPTX_PROVIDER=exec llmptx-opt %S/../Inputs/vadd.mlir \
// RUN:   --llm-lower="provider=replay model=m cache-dir=%t/empty report=%t/option.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: FileCheck %s --input-file=%t/option.json --check-prefix=OPTION-REPORT
// OPTION: remark: llmgen: @vadd: using the NVPTX reference: no valid candidate: sample 0: provider-error (replay: no cache entry
// OPTION-REPORT: "provider": "replay"

// Without either, no model is asked.
// RUN: llmptx-opt %S/../Inputs/vadd.mlir --llm-lower -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: remark: llmgen: using the NVPTX reference: no provider configured (set provider= or LLMPTX_PROVIDER)
