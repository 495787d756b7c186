//===- Diagnostic.h - Located PTX diagnostics -------------------*- C++ -*-===//
//
// One diagnostic structure for everything the PTX toolkit reports: parse
// errors, lint findings, ABI mismatches and messages of ptxas/nvJitLink. The
// repair loop feeds these back to the model, so each one carries a location,
// a stable class id and, where one exists, a concrete fix hint.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_DIAGNOSTIC_H
#define LLMPTX_PTX_DIAGNOSTIC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace llmptx::ptx {

/// A 1-based line/column position in PTX text; 0 means "unknown".
struct SourceLocation {
  unsigned line = 0, column = 0;
};

enum class Severity { Error, Warning, Note };

/// "error", "warning" or "note".
llvm::StringRef severityName(Severity severity);

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLocation loc;
  std::string message;
  /// A concrete fix hint, may be empty.
  std::string hint;
  /// Stable lint class id, e.g. "undeclared-register".
  std::string code;
  /// Attached notes (e.g. at the declaration a use refers to).
  std::vector<Diagnostic> notes;
};

/// Builds a diagnostic in one expression.
Diagnostic makeDiagnostic(Severity severity, SourceLocation loc,
                          llvm::StringRef code, std::string message,
                          std::string hint = {});

/// Formats as "f.ptx:3:5: error: message [code]", then one line per note and
/// a "f.ptx:3:5: note: fix: <hint>" line when there is a hint. The result
/// ends with a newline.
std::string formatDiagnostic(const Diagnostic &diag, llvm::StringRef fileName);

/// True when any diagnostic is an error.
bool hasErrors(const std::vector<Diagnostic> &diags);

/// Counts diagnostics of one severity (notes attached to others excluded).
unsigned countSeverity(const std::vector<Diagnostic> &diags, Severity severity);

/// JSON form: {"severity","line","column","message","hint","code","notes"}.
llvm::json::Value toJson(const Diagnostic &diag);
llvm::json::Value toJson(const std::vector<Diagnostic> &diags);

/// Sorts by line, then column, keeping the order of equal positions.
void sortDiagnostics(std::vector<Diagnostic> &diags);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_DIAGNOSTIC_H
