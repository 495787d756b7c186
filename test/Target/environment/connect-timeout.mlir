// LLMPTX_CONNECT_TIMEOUT_S is read by --llm-lower as by llmptx-llm: a value
// that is not a positive number of seconds makes the provider unavailable,
// with the variable named, and the module falls back to the reference.
// RUN: env LLMPTX_CONNECT_TIMEOUT_S=0 llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: llmgen: using the NVPTX reference: provider 'openai' unavailable: invalid provider configuration: LLMPTX_CONNECT_TIMEOUT_S='0' is not a positive number of seconds
// RUN: env LLMPTX_CONNECT_TIMEOUT_S=0 not llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=openai model=m strict=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT: error: llmgen: strict: no LLM kernel for module @kernels: provider 'openai' unavailable: invalid provider configuration: LLMPTX_CONNECT_TIMEOUT_S='0'
