//===- MechanicalFix.h - Repair of unambiguous PTX mistakes -----*- C++ -*-===//
//
// Rewrites PTX mistakes that have exactly one sensible repair, so they cost
// no model round trip:
//   - a scalar `.reg .b32 %r10;` where uses show a range was meant
//     (%r1..%r10 used) becomes `.reg .b32 %r<11>;`;
//   - a range too small for its uses (`%r<7>` with %r8 used) is widened;
//   - predicates used but never declared get `.reg .pred %p<N>;`.
// Every rewrite is listed in FixResult::fixesApplied, and a result is only
// returned when the rewritten PTX lints without errors.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_MECHANICALFIX_H
#define LLMPTX_PTX_MECHANICALFIX_H

#include "llmptx/PTX/Lint.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llmptx::ptx {

struct FixResult {
  std::string ptx;
  /// One line per rewrite: "line 12: `.reg .b32 %r10;` -> `.reg .b32
  /// %r<11>;` (uses %r1..%r10)".
  std::vector<std::string> fixesApplied;
};

/// nullopt if nothing unambiguous to fix or the result would not lint clean.
std::optional<FixResult> applyMechanicalFixes(llvm::StringRef ptxText,
                                              const LintOptions &opts);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_MECHANICALFIX_H
