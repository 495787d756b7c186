//===- Parser.h - PTX text to a located Module ------------------*- C++ -*-===//
//
// A hand-written, error-recovering parser for the PTX that the LLVM NVPTX
// backend, Triton, nvcc and people write for ordinary kernels. Syntax errors
// become diagnostics (never aborts); parsing resumes at the next statement.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_PARSER_H
#define LLMPTX_PTX_PARSER_H

#include "llmptx/PTX/Diagnostic.h"
#include "llmptx/PTX/Module.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace llmptx::ptx {

struct ParseResult {
  /// Refers into the parsed text; keep the text alive while using it.
  Module module;
  /// Syntax errors (code "syntax", "unbalanced-braces", "unknown-directive",
  /// "unknown-state-space").
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return !hasErrors(diagnostics); }
};

/// Parses PTX text. The returned Module's names point into `text`.
ParseResult parsePtx(llvm::StringRef text);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_PARSER_H
