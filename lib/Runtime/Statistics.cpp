//===- Statistics.cpp - Timing statistics ---------------------------------===//

#include "llmptx/Runtime/Statistics.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace llmptx::runtime;

double llmptx::runtime::percentile(std::vector<double> samples, double q) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  q = std::clamp(q, 0.0, 1.0);
  double position = q * static_cast<double>(samples.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, samples.size() - 1);
  double fraction = position - static_cast<double>(below);
  return samples[below] + (samples[above] - samples[below]) * fraction;
}

TimingStats llmptx::runtime::summarize(const std::vector<double> &samples) {
  TimingStats stats;
  stats.runs = static_cast<unsigned>(samples.size());
  if (samples.empty())
    return stats;
  stats.median = percentile(samples, 0.5);
  stats.p10 = percentile(samples, 0.1);
  stats.p90 = percentile(samples, 0.9);
  stats.min = *std::min_element(samples.begin(), samples.end());
  stats.max = *std::max_element(samples.begin(), samples.end());
  return stats;
}

const char *llmptx::runtime::comparisonName(Comparison comparison) {
  switch (comparison) {
  case Comparison::Unknown:
    return "unknown";
  case Comparison::Faster:
    return "faster";
  case Comparison::Same:
    return "same";
  case Comparison::Slower:
    return "slower";
  }
  return "unknown";
}

std::optional<Comparison>
llmptx::runtime::parseComparison(std::string_view name) {
  for (Comparison comparison : {Comparison::Unknown, Comparison::Faster,
                                Comparison::Same, Comparison::Slower})
    if (name == comparisonName(comparison))
      return comparison;
  return std::nullopt;
}

SpeedupEstimate
llmptx::runtime::estimateSpeedup(const std::vector<double> &referenceMs,
                                 const std::vector<double> &candidateMs) {
  SpeedupEstimate estimate;
  double candidateMedian = percentile(candidateMs, 0.5);
  if (referenceMs.empty() || candidateMs.empty() || !(candidateMedian > 0)) {
    estimate.comparison = Comparison::Unknown;
    return estimate;
  }
  estimate.speedup = percentile(referenceMs, 0.5) / candidateMedian;
  std::vector<double> ratios;
  size_t pairs = std::min(referenceMs.size(), candidateMs.size());
  for (size_t i = 0; i < pairs; ++i)
    if (candidateMs[i] > 0)
      ratios.push_back(referenceMs[i] / candidateMs[i]);
  estimate.spreadLo = percentile(ratios, 0.1);
  estimate.spreadHi = percentile(ratios, 0.9);

  // Paired bootstrap of the ratio of medians: pairs ran back to back, so
  // resampling whole pairs keeps the drift they share.
  std::mt19937_64 random(0x6c6c6d707478ull);
  std::uniform_int_distribution<size_t> pick(0, pairs - 1);
  std::vector<double> bootstrap, reference(pairs), candidate(pairs);
  bootstrap.reserve(kBootstrapResamples);
  for (unsigned resample = 0; resample < kBootstrapResamples; ++resample) {
    for (size_t i = 0; i < pairs; ++i) {
      size_t drawn = pick(random);
      reference[i] = referenceMs[drawn];
      candidate[i] = candidateMs[drawn];
    }
    double candidateTime = percentile(candidate, 0.5);
    if (candidateTime > 0)
      bootstrap.push_back(percentile(reference, 0.5) / candidateTime);
  }
  estimate.boundLo = percentile(bootstrap, 0.025);
  estimate.boundHi = percentile(bootstrap, 0.975);

  if (estimate.boundLo > 1 + kSameMargin)
    estimate.comparison = Comparison::Faster;
  else if (estimate.boundHi < 1 - kSameMargin)
    estimate.comparison = Comparison::Slower;
  else
    estimate.comparison = Comparison::Same;
  return estimate;
}
