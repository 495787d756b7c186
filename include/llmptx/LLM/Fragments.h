//===- Fragments.h - Proven PTX fragments for the prompts -------*- C++ -*-===//
//
// The library of fragments/ (format: fragments/FORMAT.md; what "proven"
// means: docs/fragments.md) as the optimize and improve prompts use it: the
// fragments that apply to a kernel, by its chip and the operations its MLIR
// names, rendered within a size budget.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_FRAGMENTS_H
#define LLMPTX_LLM_FRAGMENTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <vector>

namespace llmptx::llm {

struct Fragment {
  std::string name, does, ptxIsa, needs, reads, writes, defines, adapt, proof;
  std::vector<std::string> chips;
  std::set<std::string> ops;
  /// The PTX lines.
  std::string text;
};

/// Parses one fragment file; the error names the file and the line.
llvm::Expected<Fragment> parseFragment(llvm::StringRef text,
                                       llvm::StringRef path);

/// Every `*.ptx` of `directory`, by name.
llvm::Expected<std::vector<Fragment>> loadFragments(llvm::StringRef directory);

/// $LLMPTX_FRAGMENTS_DIR, else the fragments/ of the source tree this was
/// built from.
std::string defaultFragmentsDirectory();

/// The operation words (fragments/FORMAT.md's vocabulary) a kernel's MLIR
/// text names: "math.exp" gives exp, "arith.maximumf" max, an f16 memref
/// f16, a reduction loop or shuffle reduction, a loop multiplying loads of
/// two matrices along its induction variable matmul (of a matrix and a
/// vector, dot), ...
std::set<std::string> kernelOps(llvm::StringRef mlirText);

/// The fragments for a kernel on `chip` whose ops share a word with
/// `kernelOps` beyond element types (and whose element types, if any, the
/// kernel has), most shared words first, rendered with their facts until
/// `budgetBytes`; empty when none applies.
std::string renderFragments(const std::vector<Fragment> &fragments,
                            llvm::StringRef chip,
                            const std::set<std::string> &kernelOps,
                            size_t budgetBytes);

/// The size budget of the fragments section of a prompt.
inline constexpr size_t kFragmentBudgetBytes = 10000;

} // namespace llmptx::llm

#endif // LLMPTX_LLM_FRAGMENTS_H
