//===- RunnerResults.h - Run llmptx-runner, read its results ----*- C++ -*-===//
//
// Runs verification bundles with llmptx-runner (here or through the
// configured command) and copies what it found into the candidates.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PIPELINE_RUNNERRESULTS_H
#define LLMPTX_LIB_PIPELINE_RUNNERRESULTS_H

#include "llmptx/Pipeline/Candidate.h"

#include "llmptx/Runtime/Results.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx {

/// Runs the bundles at `bundlePaths` with `runnerCommand` (a shell command
/// that gets the bundle paths and `-o RESULTS` appended) or, when empty, the
/// llmptx-runner next to this executable or on PATH. Returns the results
/// JSON; the error says why there are none (no runner, no GPU, a failure,
/// with what the runner printed). The results file and the runner's log
/// live in a temporary folder of the call's own, never beside the bundles
/// (whose folder may be the user's emit-bundles folder).
llvm::Expected<std::string>
runBundles(const std::vector<std::string> &bundlePaths,
           llvm::StringRef runnerCommand);

/// The runner's results JSON, read; the error says it is unreadable.
llvm::Expected<runtime::VerificationResults>
readResults(llvm::StringRef resultsJson);

/// Copies the runner's verdicts, timings and measurements of `kernelName`
/// into the candidates (matched by name), and what it measured of the
/// reference into `referenceMeasurements` when given. Fails for a
/// bundle-level failure (e.g. the reference itself faulted).
llvm::Error applyResults(const runtime::VerificationResults &results,
                         llvm::StringRef kernelName,
                         std::vector<Candidate *> &candidates,
                         std::string *referenceMeasurements = nullptr);

} // namespace llmptx

#endif // LLMPTX_LIB_PIPELINE_RUNNERRESULTS_H
