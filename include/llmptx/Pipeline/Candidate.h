//===- Candidate.h - LLM answers and what became of them ---------*- C++
//-*-===//
//
// The pipeline's core data: each model call (Attempt), each PTX answer that
// passed its checks (Candidate) and each sample's conversation
// (SampleOutcome), with how far each was checked.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_CANDIDATE_H
#define LLMPTX_PIPELINE_CANDIDATE_H

#include "llmptx/Pipeline/KernelDescription.h"

#include "llmptx/LLM/Prompt.h"
#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/Verdict.h"

#include <optional>
#include <string>
#include <vector>

namespace llmptx {

/// How far a candidate was checked: its checks before execution (None,
/// Lint, Compile), or Exec once it passed verification by execution.
enum class CheckLevel { None, Lint, Compile, Exec };
/// "none", "lint", "compile", "exec".
llvm::StringRef checkLevelName(CheckLevel level);

/// What became of one model call.
enum class AttemptStatus {
  ProviderError, ///< the call failed
  NoPtx,         ///< the answer holds no PTX
  LintError,
  AbiError,
  CompileError,
  LaunchError, ///< its launch block or thread directives are refused
  Extracted,   ///< PTX found; no checks asked for (verify=none)
  LintOk,      ///< linted and ABI-checked; no toolkit to compile it
  Compiled,
};
/// "provider-error", "no-ptx", ..., "compiled": the report's spelling.
llvm::StringRef attemptStatusName(AttemptStatus status);

/// One model call and what became of its answer.
struct Attempt {
  /// The optimization round (0: the first search), the sample and the
  /// repair round of the conversation.
  unsigned optimizationRound = 0;
  unsigned sample = 0;
  unsigned round = 0;
  AttemptStatus status = AttemptStatus::ProviderError;
  std::vector<std::string> diagnostics;
  std::vector<std::string> fixes;
  std::string note; ///< Extraction note or provider error.
  /// Problems that did not fail the call (a corrupt cache entry ignored, an
  /// entry not written, an answer cut off at the token limit).
  std::vector<std::string> warnings;
  std::string model;
  std::string promptHash;
  /// What the answer was asked in.
  llm::SourceLanguage language = llm::SourceLanguage::PTX;
  /// Bytes of the messages sent (their contents, every turn).
  size_t promptBytes = 0;
  unsigned promptTokens = 0, completionTokens = 0;
  double latencyMs = 0;
  bool cacheHit = false;
};

/// A PTX answer that passed the requested checks.
struct Candidate {
  unsigned optimizationRound = 0;
  unsigned sample = 0;
  unsigned round = 0;
  std::string ptx;
  /// A CUDA C++ candidate: its source, and the compiler and options that
  /// made `ptx` of it ("NVRTC 13.0 -arch=compute_90a ..."), so a report
  /// shows what ran and a replay can make it again.
  llm::SourceLanguage language = llm::SourceLanguage::PTX;
  std::string cudaSource;
  std::string cudaCompiler;
  CheckLevel level = CheckLevel::None;
  std::vector<ptx::ResourceReport> resources;
  std::string compiler;
  std::string model;
  std::string promptHash;
  std::vector<std::string> fixes;
  /// The candidate's own launch configuration, when it differs from the
  /// original (only with launch freedom).
  std::optional<LaunchConfig> launch;
  /// What verification by execution found; absent when it did not run.
  std::optional<runtime::Verdict> verdict;
  /// Where and how it first failed (empty when it passed).
  std::string verdictDetails;
  /// Its time against the reference's at the timing shape (the production
  /// shape when the bundle has one), when timed.
  std::optional<runtime::CandidateTiming> timing;
  /// With a production shape, its time at the largest correctness shape.
  std::optional<runtime::CandidateTiming> largestShapeTiming;
  /// What its confirmation run found, when it had one.
  std::optional<runtime::Confirmation> confirmation;
  /// Where the bundle it was verified in ran, when the runner says (a Ray
  /// cluster's node, worker and GPU).
  std::optional<runtime::BundlePlacement> placement;
  /// What the runner measured of it, one fact per line (time, rates
  /// against the device's peaks, registers, local and shared memory,
  /// occupancy), for the next optimization round.
  std::string measurements;

  /// "s0r1": sample 0, repair round 1; "o1s0r0" in optimization round 1.
  std::string name() const;
  bool passedExecution() const { return verdict == runtime::Verdict::Pass; }
  bool failedExecution() const {
    return verdict && *verdict != runtime::Verdict::Pass;
  }
  /// The level it reached: Exec once it passed execution.
  CheckLevel verification() const {
    return passedExecution() ? CheckLevel::Exec : level;
  }
  /// Why execution failed it: the details, else the verdict's name.
  std::string failureText() const;
  /// Its speed against the reference, when timed.
  const runtime::SpeedupEstimate *speed() const {
    return timing ? &timing->speedup : nullptr;
  }
  /// Whether its speedup is above `confirmAbove` and no confirmation run
  /// passed: such a candidate is not selected under select=auto.
  bool awaitsConfirmation(double confirmAbove) const {
    return speed() && speed()->speedup > confirmAbove &&
           !(confirmation && confirmation->passed());
  }
};

struct SampleOutcome {
  std::vector<Attempt> attempts;
  std::optional<Candidate> candidate;
  /// Earlier candidates of this sample that failed verification by
  /// execution and were sent back to the model.
  std::vector<Candidate> rejected;
  /// The conversation so far, so verification failures can be sent back.
  llm::Prompt lastPrompt;
  std::string lastAnswer;
  /// The round the next model call of this sample would be.
  unsigned nextRound = 0;
  /// The sample ended on a provider error: asking again is pointless.
  bool providerFailed = false;
  /// The optimization round the sample belongs to (0: the first search).
  unsigned optimizationRound = 0;
};

} // namespace llmptx

#endif // LLMPTX_PIPELINE_CANDIDATE_H
