//===- Lint.h - Static checks of PTX before ptxas ---------------*- C++ -*-===//
//
// Finds the mistakes that LLM-written PTX makes, with a location, the culprit
// named and a fix hint. Conservative by design: anything PTX allows is left
// alone (ptxas catches what the lint misses; a false alarm would send the
// repair loop after a non-problem).
//
// Lint classes (Diagnostic::code):
//   syntax, unbalanced-braces, unknown-directive          (parser)
//   undeclared-register, register-out-of-range, duplicate-declaration,
//   operand-type-mismatch, predicate-as-value, immediate-type-mismatch,
//   vector-element-mismatch, unknown-label, unknown-instruction,
//   unknown-modifier, unknown-state-space, unknown-parameter,
//   undeclared-symbol, missing-version, missing-target,
//   version-target-mismatch, unsupported-version, unsupported-target,
//   instruction-not-on-target, instruction-needs-newer-ptx     (errors)
//   register-pressure, unguarded-global-store, timer-read,
//   unrecognized-modifier                                      (warnings)
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_LINT_H
#define LLMPTX_PTX_LINT_H

#include "llmptx/PTX/Diagnostic.h"
#include "llmptx/PTX/Module.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llmptx::ptx {

struct LintOptions {
  /// "sm_90"; empty = take the module's .target.
  std::string chip;
  /// Estimated live 32-bit registers above which "register-pressure" warns.
  unsigned registerPressureLimit = 255;
  /// Enable the warnings (errors are always reported).
  bool warnings = true;
};

/// Parse + lint in one call; diagnostics sorted by position.
std::vector<Diagnostic> lintPtx(llvm::StringRef text, const LintOptions &opts);

/// Lints an already parsed module (no parse diagnostics added).
std::vector<Diagnostic> lintModule(const Module &module,
                                   const LintOptions &opts);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_LINT_H
