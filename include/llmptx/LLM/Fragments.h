//===- Fragments.h - Proven PTX fragments for the prompts -------*- C++ -*-===//
//
// The library of fragments/ (llmptx/PTX/Fragment.h) as the optimize and
// improve prompts use it: the fragments that apply to a kernel, by its chip
// and the operations its MLIR names, rendered within a size budget.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_FRAGMENTS_H
#define LLMPTX_LLM_FRAGMENTS_H

#include "llmptx/PTX/Fragment.h"

#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>
#include <vector>

namespace llmptx::llm {

/// The operation words (fragments/FORMAT.md's vocabulary) a kernel's MLIR
/// text names: "math.exp" gives exp, "arith.maximumf" max, an f16 memref
/// f16, a reduction loop or shuffle reduction, a loop multiplying loads of
/// two matrices along its induction variable matmul (of a matrix and a
/// vector, dot), a matmul with exp and max (softmax of products) attention,
/// ...
std::set<std::string> kernelOps(llvm::StringRef mlirText);

/// The fragments of `language` for a kernel on `chip` whose ops share a
/// word with `kernelOps` beyond element types (and whose element types, if
/// any, the kernel has), most shared words first, rendered with their facts
/// until `budgetBytes`; empty when none applies. PTX prompts list the PTX
/// fragments, CUDA prompts the CUDA ones (docs/fragments.md).
std::string
renderFragments(const std::vector<ptx::Fragment> &fragments,
                llvm::StringRef chip, const std::set<std::string> &kernelOps,
                size_t budgetBytes,
                ptx::FragmentLanguage language = ptx::FragmentLanguage::PTX);

/// The size budget of the PTX fragments section of a prompt.
inline constexpr size_t kFragmentBudgetBytes = 10000;
/// The size budget of the CUDA fragments section: a Hopper pipeline (TMA,
/// mbarrier ring, warpgroup MMA, warp specialization) is several pieces of
/// 2-5 KB each that only work together.
inline constexpr size_t kCudaFragmentBudgetBytes = 32000;

} // namespace llmptx::llm

#endif // LLMPTX_LLM_FRAGMENTS_H
