//===- Runner.h - Running verification bundles on a GPU ---------*- C++ -*-===//
//
// The parent side of llmptx-runner. It never touches a CUDA context itself:
// every GPU run happens in a child process (the runner executable started
// again with --child), watched with a deadline. A hang, a fault, a sticky
// CUDA error or a crash therefore ends one child and becomes a verdict; the
// runner starts a fresh child and goes on with the next entry.
//
// Per bundle:
//  1. ABI check of every kernel against the bundle's parameter list (CPU).
//  2. Execution checks: for every shape, offset variant and candidate, the
//     four-run check of Comparison.h.
//  3. Optionally compute-sanitizer (memcheck, racecheck, initcheck) on
//     small shapes, reference first to see that the tool works here.
//  4. Timing of the candidates that passed, with a correctness check
//     after timing.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_RUNNER_H
#define LLMPTX_RUNTIME_RUNNER_H

#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Runtime/CudaToolkit.h"
#include "llmptx/Runtime/Results.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llmptx::runtime {

struct RunnerOptions {
  /// The llmptx-runner executable the children run (absolute path).
  std::string runnerExecutable;
  /// The CUDA driver library the children dlopen.
  std::string cudaLibrary;
  int device = 0;
  bool timing = true;
  bool sanitize = false;
  /// compute-sanitizer to use; empty: findCudaTool's search (CudaToolkit.h).
  std::string sanitizerPath;
  /// Watchdog for one entry (four runs of one candidate on one shape).
  double timeoutSeconds = 30;
  /// Run every entry even after a candidate failed (default: the first
  /// failure decides, later entries of that candidate are skipped).
  bool keepGoing = false;
  /// compute-sanitizer runs on shapes whose largest buffer has at most this
  /// many elements (at most two shapes).
  uint64_t sanitizeMaxElements = 1 << 16;
  /// SASS statistics of every kernel that loads, when ptxas and nvdisasm
  /// are installed (KernelResources::sass).
  bool sass = true;
  /// Nsight Compute counters of one run of each verified kernel at the
  /// timing shape (KernelResources::counters); `ncuPath` empty: search.
  bool ncu = false;
  std::string ncuPath;
  /// Confirm every candidate that passed (the confirmation run of
  /// Confirmation), not only those above the bundle's confirm_above.
  bool confirm = false;
  size_t maxExamples = 10;
  /// Receives one line per finished entry when set.
  std::function<void(const std::string &)> progress;
};

struct BundleInput {
  std::string path;
  VerificationBundle bundle;
};

/// Runs every bundle. Never throws; bundle-level failures are recorded in
/// BundleResult::error.
VerificationResults runVerification(const std::vector<BundleInput> &bundles,
                                    const RunnerOptions &options,
                                    const DeviceInfo &device);

/// Entry point of a child process (llmptx-runner --child ...). `args` are
/// the arguments after the program name. Returns the exit code.
int runChildProcess(const std::vector<std::string> &args);

/// Whether `args` (after the program name) ask for a child process.
bool isChildInvocation(const std::vector<std::string> &args);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_RUNNER_H
