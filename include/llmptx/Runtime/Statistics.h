//===- Statistics.h - Timing statistics -------------------------*- C++ -*-===//

#ifndef LLMPTX_RUNTIME_STATISTICS_H
#define LLMPTX_RUNTIME_STATISTICS_H

#include <optional>
#include <string_view>
#include <vector>

namespace llmptx::runtime {

/// Summary of repeated measurements (milliseconds, or ratios).
struct TimingStats {
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  double min = 0;
  double max = 0;
  unsigned runs = 0;
};

/// Linear-interpolated percentile (q in [0, 1]) of unsorted samples.
double percentile(std::vector<double> samples, double q);

TimingStats summarize(const std::vector<double> &samples);

/// How a candidate's speed compares with the reference's, beyond the noise.
enum class Comparison {
  Unknown, ///< nothing was timed
  Faster,  ///< the interval lies above 1 + kSameMargin
  Same,    ///< the interval reaches into [1 - kSameMargin, 1 + kSameMargin]
  Slower,  ///< the interval lies below 1 - kSameMargin
};

/// "unknown", "faster", "same", "slower": the results format's spelling.
const char *comparisonName(Comparison comparison);
std::optional<Comparison> parseComparison(std::string_view name);

/// Reference vs candidate timing of one candidate.
struct SpeedupEstimate {
  /// median(reference) / median(candidate).
  double speedup = 0;
  /// 10th and 90th percentile of the per-pair ratios reference_i /
  /// candidate_i (each pair ran back to back, interleaved).
  double spreadLo = 0;
  double spreadHi = 0;
  /// 95% confidence interval of `speedup`, from a bootstrap over the
  /// pairs (each resample draws pairs with replacement and takes the ratio
  /// of the medians), with a fixed seed so a result is reproducible.
  double boundLo = 0;
  double boundHi = 0;
  /// A difference inside the noise is never called faster.
  Comparison comparison = Comparison::Unknown;

  /// Whether the interval was computed (results of older runners lack it).
  bool hasBound() const { return boundHi > 0; }
};

/// Resamples of the bootstrap.
inline constexpr unsigned kBootstrapResamples = 2000;

/// Differences smaller than this fraction count as "same": the same
/// kernel timed on two different allocations of an H200 differed by 0.7%.
inline constexpr double kSameMargin = 0.02;

SpeedupEstimate estimateSpeedup(const std::vector<double> &referenceMs,
                                const std::vector<double> &candidateMs);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_STATISTICS_H
