//===- Results.h - Verification results -------------------------*- C++ -*-===//
//
// What llmptx-runner reports: per bundle, per candidate, per shape entry a
// verdict with the first mismatching elements, and timings. The compiler
// side reads these back with parseResultsJson to select a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_RESULTS_H
#define LLMPTX_RUNTIME_RESULTS_H

#include "llmptx/Runtime/Comparison.h"
#include "llmptx/Runtime/Expression.h"
#include "llmptx/Runtime/Statistics.h"
#include "llmptx/Runtime/ValueOrError.h"
#include "llmptx/Runtime/Verdict.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llmptx::runtime {

inline constexpr const char *kResultsFormat = "llmptx-verification-results";
inline constexpr unsigned kResultsVersion = 1;

struct DeviceInfo {
  std::string name;
  int smMajor = 0;
  int smMinor = 0;
  uint64_t l2Bytes = 0;
  uint64_t memoryBytes = 0;
  int multiprocessors = 0;
  /// cuDriverGetVersion: 13000 for CUDA 13.0.
  int driverVersion = 0;

  /// "sm_90".
  std::string chip() const;
  /// "13.0".
  std::string driverVersionText() const;
};

/// One (candidate, shape, offset variant, check) entry.
struct ShapeResult {
  SizeBindings shape;
  size_t shapeIndex = 0;
  /// The variant's offset: 0, or the non-zero offset of "any" buffers.
  int64_t offset = 0;
  /// Buffers whose offset is not 0.
  std::vector<std::pair<std::string, int64_t>> offsets;
  /// "execution" (the four-run check), "after-timing", or the
  /// compute-sanitizer tool: "memcheck", "racecheck", "initcheck".
  std::string check = "execution";
  Verdict verdict = Verdict::Skipped;
  std::vector<ElementReport> mismatches;
  /// Counts, error messages, sanitizer output.
  std::string details;
};

struct CandidateTiming {
  size_t shapeIndex = 0;
  SizeBindings shape;
  TimingStats referenceMs;
  TimingStats candidateMs;
  SpeedupEstimate speedup;
  /// Bytes of the L2 flush buffer written before every timed run.
  uint64_t l2FlushBytes = 0;
};

struct CandidateResult {
  std::string name;
  Verdict verdict = Verdict::Skipped;
  std::vector<ShapeResult> shapes;
  std::optional<CandidateTiming> timing;
};

struct BundleResult {
  std::string bundle;
  std::string kernel;
  std::string reference;
  /// Bundle-level failure (the reference faulted or wrote out of bounds);
  /// candidate verdicts are then not meaningful.
  std::string error;
  std::vector<CandidateResult> candidates;
  double wallSeconds = 0;
};

struct VerificationResults {
  DeviceInfo device;
  /// Whether compute-sanitizer checks ran, and why not when they did not.
  bool sanitizerRan = false;
  std::string sanitizerNote;
  std::vector<BundleResult> bundles;
};

std::string writeResultsJson(const VerificationResults &results);
ValueOrError<VerificationResults> parseResultsJson(std::string_view text);

/// The short human summary llmptx-runner prints.
std::string formatSummary(const VerificationResults &results);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_RESULTS_H
