//===- ResultsTest.cpp - Results JSON, summary and statistics -------------===//

#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/Statistics.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmptx::runtime;

namespace {

VerificationResults sampleResults() {
  VerificationResults results;
  results.device = {"NVIDIA H200", 9, 0, 60 << 20, 140ull << 30, 132, 13000};
  results.sanitizerRan = true;
  results.sanitizerNote = "compute-sanitizer: /usr/local/cuda/bin/x";
  BundleResult bundle;
  bundle.bundle = "vadd.json";
  bundle.kernel = "vadd";
  bundle.reference = "nvptx";
  bundle.wallSeconds = 1.5;

  CandidateResult good;
  good.name = "v4";
  good.verdict = Verdict::Pass;
  ShapeResult pass;
  pass.shape = {{"N", 97}};
  pass.shapeIndex = 1;
  pass.verdict = Verdict::Pass;
  good.shapes = {pass};
  CandidateTiming timing;
  timing.shapeIndex = 3;
  timing.shape = {{"N", 16777216}};
  timing.referenceMs = summarize({0.2, 0.21, 0.19});
  timing.candidateMs = summarize({0.1, 0.11, 0.1});
  timing.speedup = estimateSpeedup({0.2, 0.21, 0.19}, {0.1, 0.11, 0.1});
  timing.l2FlushBytes = 120 << 20;
  good.timing = timing;

  CandidateResult bad;
  bad.name = "miss-last";
  bad.verdict = Verdict::Unwritten;
  ShapeResult unwritten;
  unwritten.shape = {{"N", 1}};
  unwritten.verdict = Verdict::Unwritten;
  unwritten.offset = 3;
  unwritten.offsets = {{"a", 3}, {"c", 5}};
  unwritten.details = "1 elements unwritten";
  unwritten.mismatches = {
      {"c", {0}, "1.5", "nan(0x7fbadbad)", "unwritten", "candidate-first"}};
  ShapeResult skipped;
  skipped.shape = {{"N", 97}};
  skipped.verdict = Verdict::Skipped;
  bad.shapes = {unwritten, skipped};

  bundle.candidates = {good, bad};
  results.bundles = {bundle};
  return results;
}

TEST(ResultsTest, WriteThenParseRoundTrips) {
  VerificationResults results = sampleResults();
  std::string text = writeResultsJson(results);
  auto parsed = parseResultsJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error() << "\n" << text;
  EXPECT_EQ(writeResultsJson(*parsed), text);
  const BundleResult &bundle = parsed->bundles.front();
  EXPECT_EQ(parsed->device.chip(), "sm_90");
  EXPECT_EQ(parsed->device.driverVersionText(), "13.0");
  EXPECT_EQ(bundle.candidates[1].verdict, Verdict::Unwritten);
  const ShapeResult &shape = bundle.candidates[1].shapes[0];
  EXPECT_EQ(shape.mismatches[0].index, (std::vector<int64_t>{0}));
  EXPECT_EQ(shape.offsets.size(), 2u);
  ASSERT_TRUE(bundle.candidates[0].timing.has_value());
  EXPECT_DOUBLE_EQ(bundle.candidates[0].timing->speedup.speedup, 2.0);
  EXPECT_EQ(bundle.candidates[0].timing->speedup.comparison, "faster");
}

TEST(ResultsTest, DocumentedFieldsArePresent) {
  std::string text = writeResultsJson(sampleResults());
  for (const char *field :
       {"\"format\": \"llmptx-verification-results\"", "\"version\": 1",
        "\"device\"", "\"bundles\"", "\"candidates\"", "\"verdict\"",
        "\"shapes\"", "\"mismatches\"", "\"expected\"", "\"got\"",
        "\"reference_ms\"", "\"candidate_ms\"", "\"speedup\"",
        "\"speedup_spread\"", "\"suspicious\"", "\"median\"", "\"p10\"",
        "\"p90\"", "\"runs\""})
    EXPECT_NE(text.find(field), std::string::npos) << field;
}

TEST(ResultsTest, ParseErrorsNameThePath) {
  auto bad = parseResultsJson(
      R"({"format": "llmptx-verification-results", "version": 1,
          "device": {}, "bundles": [{"bundle": "x", "candidates": [
          {"name": "c", "verdict": "great", "shapes": []}]}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "$.bundles[0].candidates[0].verdict: unknown verdict 'great'");
  auto version = parseResultsJson(
      R"({"format": "llmptx-verification-results", "version": 9,
          "device": {}, "bundles": []})");
  EXPECT_EQ(version.error(), "$.version: unsupported version 9");
}

TEST(ResultsTest, SummaryNamesVerdictsAndFirstMismatch) {
  std::string summary = formatSummary(sampleResults());
  EXPECT_NE(summary.find("device: NVIDIA H200 (sm_90, 132 SMs, L2 60 MiB, "
                         "driver 13.0)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("bundle vadd.json: kernel vadd, reference nvptx"),
            std::string::npos);
  EXPECT_NE(summary.find("  v4          pass                1 checks passed; "
                         "speedup 2.00x"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("faster"), std::string::npos);
  EXPECT_NE(summary.find("miss-last   unwritten           N=1 offsets a=3 "
                         "c=5: c[0] expected 1.5 got nan(0x7fbadbad); 1 "
                         "elements unwritten"),
            std::string::npos)
      << summary;
}

TEST(StatisticsTest, Percentiles) {
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0.1), 2);
  EXPECT_DOUBLE_EQ(percentile({5}, 0.9), 5);
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0);
  TimingStats stats = summarize({4, 1, 3, 2});
  EXPECT_EQ(stats.runs, 4u);
  EXPECT_DOUBLE_EQ(stats.min, 1);
  EXPECT_DOUBLE_EQ(stats.max, 4);
  EXPECT_DOUBLE_EQ(stats.median, 2.5);
}

TEST(StatisticsTest, SpeedupAndItsSpread) {
  SpeedupEstimate faster = estimateSpeedup({2, 2, 2, 2}, {1, 1, 1, 1});
  EXPECT_DOUBLE_EQ(faster.speedup, 2);
  EXPECT_EQ(faster.comparison, "faster");
  EXPECT_FALSE(faster.suspicious);
  SpeedupEstimate slower = estimateSpeedup({1, 1, 1}, {2, 2, 2});
  EXPECT_EQ(slower.comparison, "slower");
  // Pairs that disagree: the median ratio is 1, the spread straddles it.
  SpeedupEstimate noisy =
      estimateSpeedup({1, 1.2, 0.8, 1, 1.1}, {1, 1, 1, 1.1, 1});
  EXPECT_EQ(noisy.comparison, "same");
  EXPECT_LT(noisy.spreadLo, 1);
  EXPECT_GT(noisy.spreadHi, 1);
  // A consistent difference below the margin is not a verdict.
  SpeedupEstimate close =
      estimateSpeedup({1, 1, 1, 1}, {1.007, 1.005, 1.008, 1.006});
  EXPECT_LT(close.spreadHi, 1);
  EXPECT_EQ(close.comparison, "same");
  SpeedupEstimate implausible = estimateSpeedup({11, 11}, {1, 1});
  EXPECT_TRUE(implausible.suspicious);
  EXPECT_EQ(estimateSpeedup({}, {1}).comparison, "unknown");
}

} // namespace

TEST(StatisticsTest, BootstrapBoundDecidesTheComparison) {
  // 200 pairs: the candidate is 5% faster with 3% noise on both.
  std::vector<double> reference, candidate;
  for (int i = 0; i < 200; ++i) {
    double noise = 1 + 0.03 * std::sin(i * 1.7);
    double other = 1 + 0.03 * std::cos(i * 2.3);
    reference.push_back(1.0 * noise);
    candidate.push_back(0.95 * other);
  }
  SpeedupEstimate faster = estimateSpeedup(reference, candidate);
  EXPECT_LE(faster.boundLo, faster.speedup);
  EXPECT_GE(faster.boundHi, faster.speedup);
  EXPECT_GT(faster.boundLo, 1.02);
  EXPECT_EQ(faster.comparison, "faster");
  // Reproducible: the same samples give the same bound.
  SpeedupEstimate again = estimateSpeedup(reference, candidate);
  EXPECT_EQ(again.boundLo, faster.boundLo);
  EXPECT_EQ(again.boundHi, faster.boundHi);

  // A 1% difference inside 3% noise is "same", not "faster".
  std::vector<double> close;
  for (double value : candidate)
    close.push_back(value / 0.95 * 0.99);
  EXPECT_EQ(estimateSpeedup(reference, close).comparison, "same");
}
