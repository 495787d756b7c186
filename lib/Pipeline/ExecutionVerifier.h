//===- ExecutionVerifier.h - Verify candidates by execution -----*- C++ -*-===//
//
// The verification stage of a module: a bundle per kernel from its stated
// facts, llmptx-runner on them (here or through the runner command), the
// verdicts and timings copied back, and candidates that fail sent back to
// the model while their samples have repair rounds left.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PIPELINE_EXECUTIONVERIFIER_H
#define LLMPTX_LIB_PIPELINE_EXECUTIONVERIFIER_H

#include "CandidateSearch.h"
#include "llmptx/Pipeline/KernelWork.h"

#include "llmptx/Pipeline/Settings.h"
#include "llmptx/Runtime/Bundle.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace llmptx {

class ExecutionVerifier {
public:
  /// Bundles go to `emit-bundles`, else to a temporary directory removed
  /// with the verifier. `remark` says what the user should know (facts
  /// missing, no GPU); it is the verifier's only way out to MLIR.
  /// `cache` (may be null) answers for bundles that ran before on the GPU
  /// the runner reaches and keeps what the runner finds.
  ExecutionVerifier(const PipelineSettings &settings, llvm::StringRef setName,
                    std::function<void(const llvm::Twine &)> remark,
                    VerificationCache *cache = nullptr);
  ~ExecutionVerifier();
  ExecutionVerifier(const ExecutionVerifier &) = delete;
  ExecutionVerifier &operator=(const ExecutionVerifier &) = delete;

  /// Whether bundles are written at all (verify=exec or emit-bundles).
  bool writesBundles() const {
    return wantsExecution() || !settings.emitBundles.empty();
  }

  /// Writes one bundle per kernel of `batch` (file name suffix `suffix`)
  /// and, with verify=exec, runs them and copies the results into the
  /// candidates. A kernel that cannot be verified gets its execNote (and a
  /// remark with `remarkMissing`). A bundle the cache knows on the GPU the
  /// runner reached last is not run again (nor written, unless
  /// emit-bundles asks for it). Returns whether results were applied.
  /// `stage` orders deferred remarks. Safe to call from several threads at
  /// once (a pipelined build verifies kernels side by side).
  bool verify(const Batch &batch, llvm::StringRef suffix, bool remarkMissing,
              unsigned stage = 0);

  /// From now on, keep the remarks of verify() instead of saying them, so
  /// kernels verified side by side say them in the order one call for all
  /// kernels would.
  void deferRemarks();
  /// Says the kept remarks in that order and stops keeping them.
  void flushRemarks();

private:
  /// One kernel's bundle of a verification run.
  struct PendingBundle {
    KernelWork *kernel;
    std::string path;
    std::string json;
  };

  /// What verify() says, in the order of one call for all kernels: a
  /// stage's missing facts, kernel by kernel, then the runner's failure.
  enum class RemarkKind { MissingFacts, RunnerFailed };
  struct DeferredRemark {
    unsigned stage;
    RemarkKind kind;
    const KernelWork *kernel;
    std::string text;
  };
  void say(unsigned stage, RemarkKind kind, const KernelWork *kernel,
           std::string text);

  /// Writes `bundle.json` to `bundle.path`; the error names the path.
  llvm::Error writeBundle(const PendingBundle &bundle);
  /// Reads `resultsJson` and copies each of `kernels`' results into its
  /// candidates (or its execNote).
  void applyResultsTo(llvm::StringRef resultsJson,
                      const std::vector<KernelWork *> &kernels);

  bool wantsExecution() const {
    return settings.verification == VerifyLevel::Exec;
  }

  /// The settings; they outlive the verifier.
  const PipelineSettings &settings;
  /// Names the bundle files: `<setName>.<kernel>.bundle.json`, each a safe
  /// file name component (untrusted::fileNameComponent).
  std::string setName;
  std::function<void(const llvm::Twine &)> remark;
  VerificationCache *cache;
  std::string directory;
  std::string directoryError;
  /// Guards the directory's creation and the remarks.
  std::mutex mutex;
  bool deferring = false;
  std::vector<DeferredRemark> deferred;
};

/// Verifies the first search's candidates by execution; a sample whose
/// candidate fails (of a kernel with none that passed) gets what execution
/// found as a mismatch prompt, while it has repair rounds left, and its new
/// candidate is verified in the next run. Returns whether the runner ran.
bool verifyAndRepair(llvm::MutableArrayRef<KernelWork> work,
                     ExecutionVerifier &verifier, llm::Provider &provider,
                     const SearchSettings &search);

} // namespace llmptx

#endif // LLMPTX_LIB_PIPELINE_EXECUTIONVERIFIER_H
