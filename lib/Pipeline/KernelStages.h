//===- KernelStages.h - The LLM path's stages on plain data -----*- C++ -*-===//
//
// The stages between prepare and record, for kernels already described as
// plain data (KernelDescription, each with its reference PTX):
//
//   checks and specs -> search -> verify by execution -> optimize -> select
//
// The pipeline's driver (llmptx/Pipeline/Driver.h) runs them for every
// front end. What the user should know goes to the `remark` callback.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PIPELINE_KERNELSTAGES_H
#define LLMPTX_LIB_PIPELINE_KERNELSTAGES_H

#include "CandidateSearch.h"
#include "ExecutionVerifier.h"
#include "llmptx/Pipeline/KernelDescription.h"
#include "llmptx/Pipeline/KernelWork.h"

#include "llmptx/Pipeline/Settings.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {

class KernelStages {
public:
  using Remark = std::function<void(const llvm::Twine &)>;

  /// `setName` names the bundles (`<setName>.<kernel>.bundle.json`);
  /// `toolkitPath` is where the reference was compiled from (empty: the
  /// usual search). The settings and kernels outlive the stages.
  KernelStages(const PipelineSettings &settings, std::string setName,
               const std::vector<KernelDescription> &kernels,
               std::string toolkitPath, Remark remark);
  ~KernelStages();

  /// The provider the settings ask for; the error says why it is
  /// unavailable.
  llvm::Error connectProvider();
  /// The checks candidates get (and a remark when they cannot compile),
  /// each kernel's prompt spec, the verifier; fails when the language
  /// asked for cannot be compiled (language=cuda without NVRTC).
  llvm::Error prepareChecks();
  /// search, verify by execution, optimize, select.
  void run();

  std::vector<KernelWork> &work() { return items; }
  const SearchSettings &checks() const { return search; }
  /// Verdicts reused from earlier builds (null with cache=off).
  VerificationCache *verificationCache() const { return cache.get(); }

private:
  /// The search's checks from the settings and the toolkit found (a remark
  /// when candidates cannot be compiled); fails for language=cuda without
  /// NVRTC.
  llvm::Error configureChecks();
  /// Each kernel's prompt spec: its facts, reference, launch choice and, in
  /// optimize mode, the fragments that apply.
  void describeKernels();
  void searchAll();
  bool verifyByExecution();
  /// gpu-jobs > 0 with verify=exec: a kernel is verified as soon as its
  /// samples are done (searchAndVerify) instead of all after the search.
  bool pipelinesVerification() const;
  /// The search and verification by execution, pipelined: same results as
  /// searchAll then verifyByExecution.
  bool searchAndVerify();
  void optimize(bool executed);
  void select();

  const PipelineSettings &settings;
  std::string setName;
  const std::vector<KernelDescription> &described;
  std::string toolkitPath;
  Remark remark;

  std::unique_ptr<llm::Provider> provider;
  std::unique_ptr<VerificationCache> cache;
  SearchSettings search;
  std::unique_ptr<ExecutionVerifier> verifier;
  std::vector<KernelWork> items;
  /// Progress lines: "[finished/tasks] @kernel sample 0 round 0: ...".
  struct Progress;
  std::unique_ptr<Progress> progress;
};

} // namespace llmptx

#endif // LLMPTX_LIB_PIPELINE_KERNELSTAGES_H
