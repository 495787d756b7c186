//===- OptimizationRounds.h - Ask the model to beat the incumbent -*- C++ -*-=//
//
// mode=optimize: after verification by execution, each kernel's best
// verified kernel (the incumbent; at first the reference or the best
// candidate) goes back to the model with what was measured of it, and a
// round's candidate replaces it only when it is faster beyond the noise.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PIPELINE_OPTIMIZATIONROUNDS_H
#define LLMPTX_LIB_PIPELINE_OPTIMIZATIONROUNDS_H

#include "ExecutionVerifier.h"
#include "llmptx/Pipeline/KernelWork.h"

#include "llmptx/Pipeline/Settings.h"

#include "llvm/ADT/Twine.h"

#include <functional>
#include <string>
#include <vector>

namespace llmptx {

/// What the rounds need of the module and its settings.
struct RoundsContext {
  /// rounds, samples, jobs and confirm-above.
  const PipelineSettings *settings = nullptr;
  const SearchSettings *search = nullptr;
  llm::Provider *provider = nullptr;
  ExecutionVerifier *verifier = nullptr;
  /// Says the outcome of each round (a remark on the module).
  std::function<void(const llvm::Twine &)> remark;
};

/// Runs up to `rounds` rounds. While a kernel's last round gained,
/// `samples` new conversations are asked to beat its incumbent (shown with
/// what was measured); they are verified and timed in one bundle with the
/// incumbent re-timed beside them, and the fastest is kept only when its
/// confidence interval lies above the incumbent's by the runner's same-speed
/// margin. A round that gains nothing beyond the noise ends the kernel's
/// rounds. `executed`: whether the first search was verified by execution
/// (rounds need its measurements).
void runOptimizationRounds(std::vector<KernelWork> &work,
                           const RoundsContext &context, bool executed);

} // namespace llmptx

#endif // LLMPTX_LIB_PIPELINE_OPTIMIZATIONROUNDS_H
