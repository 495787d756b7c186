//===- KernelWork.h - One kernel through the stages -------------*- C++ -*-===//
//
// What the stages of ModuleCompiler produce for one kernel, as plain data:
// the samples of the first search and of the optimization rounds, the
// candidates they gave, what execution found, the rounds, and the choice.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_KERNELWORK_H
#define LLMPTX_PIPELINE_KERNELWORK_H

#include "llmptx/Pipeline/Candidate.h"
#include "llmptx/Pipeline/KernelDescription.h"

#include "llmptx/LLM/Prompt.h"

#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace llmptx {

/// The decision for one kernel.
struct KernelChoice {
  const Candidate *selected = nullptr;  ///< Null: the reference.
  const Candidate *alternate = nullptr; ///< Null: the reference.
  std::string reason;
  /// The highest level any candidate of the kernel reached.
  CheckLevel verification = CheckLevel::None;
  /// The policy wanted an LLM kernel and got none.
  bool fellBack = false;
};

/// One optimization round of one kernel.
struct RoundRecord {
  unsigned round = 0;
  std::string incumbent; ///< The kernel to beat ("reference" or a name).
  std::vector<std::string> candidates;
  std::string best; ///< The round's fastest verified candidate, if any.
  bool gained = false;
  std::string note;
};

struct KernelWork {
  const KernelDescription *description = nullptr;
  llm::KernelSpec spec;
  std::vector<SampleOutcome> samples;
  /// The samples of the optimization rounds (a deque: candidates point
  /// into it).
  std::deque<SampleOutcome> roundSamples;
  std::vector<Candidate *> candidates;
  std::string execNote; ///< Why execution did not verify it.
  /// What the runner measured of the reference, one fact per line.
  std::string referenceMeasurements;
  /// After optimization rounds: the fastest kernel verified beyond the
  /// noise (null: the reference), which the choice prefers.
  const Candidate *incumbent = nullptr;
  std::vector<RoundRecord> rounds;
  /// Why the rounds stopped (or did not start).
  std::string roundsNote;
  KernelChoice choice;

  /// Every sample, of the first search and of the rounds.
  std::vector<const SampleOutcome *> allSamples() const {
    std::vector<const SampleOutcome *> all;
    for (const SampleOutcome &sample : samples)
      all.push_back(&sample);
    for (const SampleOutcome &sample : roundSamples)
      all.push_back(&sample);
    return all;
  }

  /// The candidates of the first search's samples, in sample order, then
  /// those of the rounds.
  void collectCandidates() {
    candidates.clear();
    for (SampleOutcome &sample : samples)
      if (sample.candidate)
        candidates.push_back(&*sample.candidate);
    for (SampleOutcome &sample : roundSamples)
      if (sample.candidate)
        candidates.push_back(&*sample.candidate);
  }
};

/// Kernels and the candidates each bundle of a verification run holds.
using Batch =
    std::vector<std::pair<KernelWork *, std::vector<const Candidate *>>>;

} // namespace llmptx

#endif // LLMPTX_PIPELINE_KERNELWORK_H
