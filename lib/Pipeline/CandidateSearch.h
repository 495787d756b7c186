//===- CandidateSearch.h - Ask, validate and repair LLM kernels -*- C++ -*-===//
//
// The per-kernel loop of the LLM path: prompt the model for each sample,
// extract the PTX, lint it (applying mechanical fixes), check it against the
// reference's ABI, compile it, and send failures back as repair prompts. No
// MLIR here: workers run it on plain data in parallel.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PIPELINE_CANDIDATESEARCH_H
#define LLMPTX_LIB_PIPELINE_CANDIDATESEARCH_H

#include "llmptx/Pipeline/Candidate.h"
#include "llmptx/Pipeline/KernelDescription.h"

#include "llmptx/LLM/Prompt.h"
#include "llmptx/LLM/Provider.h"
#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/PTX/CudaSource.h"
#include "llmptx/Pipeline/SettingEnums.h"
#include "llmptx/Pipeline/VerificationCache.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {

struct SearchSettings {
  std::string chip;
  /// What candidates are asked in; Auto splits the samples (see
  /// sampleLanguage). CUDA needs the toolkit's NVRTC.
  Language language = Language::PTX;
  ptx::CudaCompileOptions cuda;
  unsigned repairs = 2;
  bool optimize = false;
  /// The checks asked for; Compile needs `toolkit`.
  CheckLevel level = CheckLevel::Compile;
  std::optional<ptx::CudaToolkit> toolkit;
  /// Compile verdicts already known (null: every check runs).
  VerificationCache *cache = nullptr;
  llm::SamplingParams sampling;
  std::string model;
  /// Receives progress lines ("@vadd sample 1 round 0: ptxas ok").
  std::function<void(llvm::StringRef)> progress;
};

/// The language sample `sample` is asked in: the setting's, or under Auto
/// PTX for even samples and CUDA C++ for odd ones (sample 0 stays PTX, so
/// one sample asks what language=ptx asks).
llm::SourceLanguage sampleLanguage(const SearchSettings &settings,
                                   unsigned sample);

/// Runs the ask-validate-repair loop of one sample of one kernel.
SampleOutcome searchSample(const KernelDescription &kernel,
                           const llm::KernelSpec &spec, unsigned sample,
                           llm::Provider &provider,
                           const SearchSettings &settings);

/// Runs one sample of optimization round `optimizationRound` (> 0) from
/// `prompt` (renderImprovePrompt), with the same checks and repairs.
SampleOutcome improveSample(const KernelDescription &kernel, llm::Prompt prompt,
                            unsigned optimizationRound, unsigned sample,
                            llm::Provider &provider,
                            const SearchSettings &settings);

/// Sends `feedback` (what execution found wrong with the sample's candidate)
/// back to the model and continues the sample's loop from its next round, up
/// to `settings.repairs`. The new candidate, if any, replaces the old one.
void continueSample(const KernelDescription &kernel, SampleOutcome &outcome,
                    llvm::StringRef feedback, unsigned sample,
                    llm::Provider &provider, const SearchSettings &settings);

/// The checks of one answer: its status and, when it failed, the
/// diagnostics the repair prompt shows.
struct Validation {
  AttemptStatus status = AttemptStatus::Extracted;
  std::vector<std::string> diagnostics;
};

/// Runs the checks of `settings.level` on `ptxText` (fixing it mechanically
/// where lint allows) and fills `candidate`'s fixes, level, resources and
/// compiler.
Validation validateCandidate(std::string &ptxText, const ptx::AbiContract &abi,
                             const SearchSettings &settings,
                             Candidate &candidate);

/// ptx::compilePtx of `ptxText` for the settings' chip and toolkit, through
/// the verification cache when there is one.
ptx::CompileResult compileChecked(llvm::StringRef ptxText,
                                  const SearchSettings &settings);

/// "registers 32, spill stores 0, ..., barriers 1" of `entry` in `reports`
/// (ptxas -v), or "" when it is not there.
std::string resourcesText(const std::vector<ptx::ResourceReport> &reports,
                          llvm::StringRef entry);

} // namespace llmptx

#endif // LLMPTX_LIB_PIPELINE_CANDIDATESEARCH_H
