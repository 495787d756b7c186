//===- Verdict.h - Verdicts of candidate runs -------------------*- C++ -*-===//
//
// The stable verdict strings of the results format, their precedence inside
// one (candidate, shape) entry, and how a candidate's entries combine.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_VERDICT_H
#define LLMPTX_RUNTIME_VERDICT_H

#include <optional>
#include <string_view>
#include <vector>

namespace llmptx::runtime {

enum class Verdict {
  Pass,
  Mismatch,         // an output differs from the reference beyond tolerance
  Unwritten,        // an output element still holds the poison
  OutOfBoundsWrite, // a guard band, pad or stride gap changed
  InputModified,    // an input element changed
  Nondeterministic, // the two runs disagree where the reference's agree
  LoadError,        // module load, entry lookup or ABI check failed
  LaunchError,      // cuLaunchKernel refused the launch
  IllegalAddress,   // the kernel faulted on an address (sticky)
  CudaError,        // another sticky CUDA error (trap, illegal instruction)
  Timeout,          // the watchdog killed the run
  Crash,            // the child process died by a signal
  Sanitizer,        // compute-sanitizer reported an error
  Skipped,          // not run: an earlier entry already failed
};

/// "pass", "mismatch", "unwritten", "out-of-bounds-write", ...
const char *verdictName(Verdict verdict);
std::optional<Verdict> parseVerdict(std::string_view name);

/// Execution failures: the run did not complete, so nothing was compared.
bool isExecutionFailure(Verdict verdict);

/// Precedence inside one entry when several checks fail: execution
/// failures, then out-of-bounds-write, input-modified, unwritten,
/// nondeterministic, mismatch, sanitizer, pass, skipped.
int verdictSeverity(Verdict verdict);
Verdict worseVerdict(Verdict lhs, Verdict rhs);

/// A candidate passes only when every entry that ran passed; otherwise its
/// verdict is the verdict of the first failing entry in run order (shapes
/// run from the bundle's first to its last, which usually means small to
/// large). Skipped entries are ignored; with none run, the result is
/// Skipped.
Verdict candidateVerdict(const std::vector<Verdict> &entries);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_VERDICT_H
