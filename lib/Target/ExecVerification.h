//===- ExecVerification.h - Verify candidates by execution ------*- C++ -*-===//
//
// Builds a verification bundle per kernel from what the module states, runs
// llmptx-runner (here or through the configured runner command) and records
// each candidate's verdict and timing.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_EXECVERIFICATION_H
#define LLMPTX_LIB_TARGET_EXECVERIFICATION_H

#include "CandidateSearch.h"
#include "KernelDescription.h"

#include "llmptx/Runtime/Bundle.h"

#include <optional>
#include <string>
#include <vector>

namespace llmptx {

/// Builds the bundle of `kernel` with `candidates`; on failure returns
/// nothing and says in `missing` which facts the module lacks.
std::optional<runtime::VerificationBundle>
buildBundle(const KernelDescription &kernel, llvm::StringRef chip,
            llvm::StringRef referencePtx,
            const std::vector<const Candidate *> &candidates,
            std::string &missing);

/// The standard shapes of `sizes` when the harness names none: 1, small
/// primes, non-multiples of common block sizes and a large case, with each
/// binding's product of sizes capped.
std::vector<runtime::SizeBindings>
defaultShapes(const std::vector<std::string> &sizes);

/// Splits a harness argument entry ("M, min(N, 4)") into the expressions of
/// its dynamic dimensions, at top-level commas only.
std::vector<std::string> splitHarnessDims(llvm::StringRef text);

/// The shapes a bundle of `kernel` runs: the harness's, else the standard
/// ones adjusted to the stated divisibility; one empty binding without
/// sizes.
std::vector<runtime::SizeBindings>
bundleShapes(const KernelDescription &kernel);

/// The launch the reference runs under in verification: block from
/// known_block_size, the harness or the host's constant launch; grid from
/// the harness, known_grid_size or that launch. Nothing, with the missing
/// fact named, when the module does not say.
std::optional<LaunchConfig> referenceLaunch(const KernelDescription &kernel,
                                            std::string &missing);

struct RunnerOutcome {
  /// The runner ran and produced results.
  bool ran = false;
  /// The runner said there is no GPU or driver (exit status 2).
  bool noDevice = false;
  /// Why it did not run, or what went wrong.
  std::string message;
  std::string resultsJson;
};

/// Runs the bundles at `bundlePaths` with `runnerCommand` (a shell command
/// that gets the bundle paths and `-o RESULTS` appended) or, when empty, the
/// llmptx-runner next to this executable or on PATH.
RunnerOutcome runBundles(const std::vector<std::string> &bundlePaths,
                         llvm::StringRef runnerCommand,
                         llvm::StringRef workDir);

/// Copies the runner's verdicts, timings and measurements of `kernelName`
/// into the candidates (matched by name), and what it measured of the
/// reference into `referenceMeasurements` when given. Returns an error
/// message for a bundle-level failure (e.g. the reference itself faulted).
std::string applyResults(llvm::StringRef resultsJson,
                         llvm::StringRef kernelName,
                         std::vector<Candidate *> &candidates,
                         std::string *referenceMeasurements = nullptr);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_EXECVERIFICATION_H
