//===- Selection.h - Which object each kernel gets --------------*- C++ -*-===//
//
// The selection policy on plain data: ranking candidates, which of them may
// fill a slot or lead an optimization round, and the choice per kernel with
// the reason the remark and the report give.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_SELECTION_H
#define LLMPTX_PIPELINE_SELECTION_H

#include "llmptx/Pipeline/KernelWork.h"

#include "llmptx/Pipeline/SettingEnums.h"

#include <string>
#include <vector>

namespace llmptx {

/// Orders candidates best first: verified by execution (fastest first),
/// then not failed by execution, then by check level, then by sample.
void rankCandidates(std::vector<Candidate *> &candidates);

/// Whether a candidate may fill a slot at all: never after failing
/// execution, and a candidate with its own launch only once execution
/// verified it under that launch.
bool isUsable(const Candidate &candidate);

/// Whether a candidate may become the incumbent of optimization rounds:
/// verified, timed with an interval, not slower than the reference, and
/// confirmed when its speedup is above `confirmAbove`.
bool canLead(const Candidate &candidate, double confirmAbove);

/// "1.52x the reference (95% CI 1.49..1.55, faster)", or "not timed".
std::string describeSpeed(const Candidate &candidate);

/// "s0r0 1.520x (95% CI 1.490..1.550)".
std::string speedText(const Candidate &candidate);

/// "sample 0: compile-error (candidate.ptx:3:1: error: ...); round 1 sample
/// 0: ..." from the last attempt of each sample.
std::string describeStatuses(const std::vector<const SampleOutcome *> &samples);

/// `text` on one line: remarks and properties stay on a line each.
std::string oneLine(llvm::StringRef text);

/// What the user asked the selection for.
struct SelectionPolicy {
  SelectPolicy select = SelectPolicy::Auto;
  /// The level asked for, which the reason names when execution did not
  /// run.
  VerifyLevel verification = VerifyLevel::Compile;
  /// Speedups above this are selected under select=auto only once a
  /// confirmation run passed.
  double confirmAbove = 10;
};

/// Applies `policy` to the kernel's candidates (ranked in place; after
/// optimization rounds the incumbent first).
KernelChoice chooseObject(KernelWork &work, const SelectionPolicy &policy);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_SELECTION_H
