//===- LLMGenAttrs.h - llmgen attributes ------------------------*- C++ -*-===//
//
// Declares `#llmgen.target`, `#llmgen.harness` and the enums only the
// dialect knows (LLMGenEnums.td); the settings' own enums are the
// pipeline's (llmptx/Pipeline/SettingEnums.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENATTRS_H
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENATTRS_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "llmptx/LLM/CacheMode.h"
#include "llmptx/Pipeline/SettingEnums.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenEnums.h.inc"

namespace llmptx::llmgen {

/// A harness `args` entry that is a fractional number ("2.5", "-1e-3",
/// "nan"), the value of a float scalar; integers are size expressions.
bool isFractionalLiteral(llvm::StringRef text);

/// Parses the `cache` parameter of `#llmgen.target` (readwrite, read, off).
mlir::FailureOr<std::optional<llm::CacheMode>>
parseCacheModeParameter(mlir::AsmParser &parser);

/// Parses a parameter whose values are a pipeline enum (mode, verification,
/// select), as a keyword or a string spelled as in the options.
template <typename Enum>
mlir::FailureOr<Enum> parseSettingParameter(mlir::AsmParser &parser) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  std::string spelling;
  if (mlir::failed(parser.parseKeywordOrString(&spelling)))
    return mlir::failure();
  if (std::optional<Enum> value = settingFromSpelling<Enum>(spelling))
    return *value;
  return parser.emitError(loc)
         << "expected one of: " << settingSpellings<Enum>();
}
/// The same for a parameter the environment may fill (absent: unset).
template <typename Enum>
mlir::FailureOr<std::optional<Enum>>
parseOptionalSettingParameter(mlir::AsmParser &parser) {
  mlir::FailureOr<Enum> value = parseSettingParameter<Enum>(parser);
  if (mlir::failed(value))
    return mlir::failure();
  return std::optional<Enum>(*value);
}
} // namespace llmptx::llmgen

#define GET_ATTRDEF_CLASSES
#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h.inc"

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENATTRS_H
