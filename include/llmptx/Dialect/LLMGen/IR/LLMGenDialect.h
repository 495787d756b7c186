//===- LLMGenDialect.h - The llmgen dialect ---------------------*- C++ -*-===//
//
// Declares the `llmgen` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENDIALECT_H
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENDIALECT_H

#include "mlir/IR/Dialect.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h.inc"

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENDIALECT_H
