//===- ResultsTest.cpp - Results JSON, summary and statistics -------------===//

#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/Statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

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

/// sampleResults with everything a current runner measures: the device's
/// peak attributes, kernel resources, traffic and flops.
VerificationResults measuredResults() {
  VerificationResults results = sampleResults();
  DeviceInfo &device = results.device;
  device.clockKhz = 1980000;
  device.memoryClockKhz = 3201000;
  device.memoryBusBits = 6144;
  device.maxThreadsPerSm = 2048;
  BundleResult &bundle = results.bundles.front();
  KernelResources reference;
  reference.registers = 12;
  reference.localBytes = 0;
  reference.staticSharedBytes = 0;
  reference.maxThreadsPerBlock = 1024;
  reference.blockThreads = 256;
  reference.blocksPerSm = 8;
  reference.occupancy = 1.0;
  bundle.referenceResources = reference;
  KernelResources candidate = reference;
  candidate.registers = 40;
  candidate.localBytes = 64;
  candidate.staticSharedBytes = 4096;
  candidate.blocksPerSm = 4;
  candidate.occupancy = 0.5;
  bundle.candidates[0].resources = candidate;
  // A candidate whose occupancy query failed: only what was measured.
  KernelResources partial;
  partial.registers = 8;
  bundle.candidates[1].resources = partial;
  CandidateTiming &timing = *bundle.candidates[0].timing;
  timing.setWork(3 * 4 * 16777216ull, 16777216ull);
  timing.baseAlignment = 256;
  return results;
}

std::string readSourceFile(const std::string &relative) {
  const char *root = std::getenv("LLMPTX_SRC_ROOT");
  std::string path =
      std::string(root ? root : LLMPTX_SOURCE_DIR) + "/" + relative;
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_TRUE(file.good() || file.eof()) << path;
  return text.str();
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
  EXPECT_EQ(bundle.candidates[0].timing->speedup.comparison, Comparison::Faster);
}

TEST(ResultsTest, PlacementOfABundleRoundTrips) {
  // What llmptx-ray-runner adds to each bundle (docs/ray.md).
  VerificationResults results = sampleResults();
  BundlePlacement placement;
  placement.hostname = "gpu-4";
  placement.nodeId = "3f2a9c1e";
  placement.nodeIp = "10.0.0.4";
  placement.workerPid = 812;
  placement.cudaVisibleDevices = "2";
  placement.gpu = "NVIDIA H100 80GB HBM3";
  placement.gpuUuid = "GPU-5d1c";
  placement.attempts = 2;
  placement.taskSeconds = 7.912;
  placement.failures = {"attempt 1 on node 9e0b (gpu-2): the worker died"};
  placement.device =
      DeviceInfo{"NVIDIA H100 80GB HBM3", 9, 0, 50 << 20, 80ull << 30, 132,
                 12080};
  results.bundles.front().placement = placement;
  std::string text = writeResultsJson(results);
  auto parsed = parseResultsJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error() << "\n" << text;
  EXPECT_EQ(writeResultsJson(*parsed), text);
  const BundleResult &bundle = parsed->bundles.front();
  ASSERT_TRUE(bundle.placement.has_value());
  EXPECT_EQ(bundle.placement->workerPid, 812);
  EXPECT_EQ(bundle.placement->failures, placement.failures);
  EXPECT_EQ(bundle.device(parsed->device).name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(bundle.device(parsed->device).driverVersionText(), "12.8");
  // Without a device of its own, the bundle ran on the results' device.
  BundleResult plain;
  EXPECT_EQ(plain.device(parsed->device).name, "NVIDIA H200");

  auto unknown = parseResultsJson(
      R"({"format": "llmptx-verification-results", "version": 1,
          "device": {}, "bundles": [{"bundle": "x", "candidates": [],
          "placement": {"hostname": "h", "rack": 3}}]})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("$.bundles[0].placement"), std::string::npos)
      << unknown.error();
}

TEST(ResultsTest, DevicePeaks) {
  DeviceInfo device = measuredResults().device;
  // 2 * 3.201 GHz * 768 bytes; 132 SMs * 1.98 GHz * 128 lanes * 2.
  EXPECT_DOUBLE_EQ(device.memoryBandwidthGbs(), 2 * 3.201e9 * 768 / 1e9);
  EXPECT_DOUBLE_EQ(device.fp32Gflops(), 132 * 1.98e9 * 128 * 2 / 1e9);
  EXPECT_EQ(fp32LanesPerSm(8, 0), 64);
  for (auto [major, minor] :
       {std::pair{8, 6}, {8, 9}, {9, 0}, {10, 0}, {12, 0}})
    EXPECT_EQ(fp32LanesPerSm(major, minor), 128) << major << minor;
  for (auto [major, minor] :
       {std::pair{7, 5}, {8, 7}, {10, 3}, {12, 1}, {0, 0}})
    EXPECT_EQ(fp32LanesPerSm(major, minor), 0) << major << minor;
  // Unknown chip or missing attributes: no peak.
  DeviceInfo unknown = device;
  unknown.smMajor = 7;
  unknown.smMinor = 5;
  EXPECT_EQ(unknown.fp32Gflops(), 0);
  DeviceInfo bare = sampleResults().device;
  EXPECT_EQ(bare.memoryBandwidthGbs(), 0);
  EXPECT_EQ(bare.fp32Gflops(), 0);
}

TEST(ResultsTest, TrafficAndFlopsGiveRatesFromTheMedians) {
  CandidateTiming timing;
  timing.referenceMs.median = 0.25;
  timing.candidateMs.median = 0.2;
  timing.setWork(1000000000, std::nullopt);
  EXPECT_EQ(timing.bytes, std::optional<uint64_t>(1000000000));
  ASSERT_TRUE(timing.referenceGbs && timing.candidateGbs);
  EXPECT_DOUBLE_EQ(*timing.referenceGbs, 4000); // 10^9 B in 0.25 ms
  EXPECT_DOUBLE_EQ(*timing.candidateGbs, 5000);
  EXPECT_FALSE(timing.flops || timing.referenceGflops ||
               timing.candidateGflops);
  timing.setWork(1000000000, 2000000);
  ASSERT_TRUE(timing.referenceGflops && timing.candidateGflops);
  EXPECT_DOUBLE_EQ(*timing.referenceGflops, 8);
  EXPECT_DOUBLE_EQ(*timing.candidateGflops, 10);
  // Nothing ran (an empty grid): no rate.
  timing.candidateMs.median = 0;
  timing.setWork(1000000000, 2000000);
  EXPECT_FALSE(timing.candidateGbs || timing.candidateGflops);
  EXPECT_TRUE(timing.referenceGbs && timing.referenceGflops);
}

TEST(ResultsTest, MeasurementsRoundTrip) {
  VerificationResults results = measuredResults();
  std::string text = writeResultsJson(results);
  auto parsed = parseResultsJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error() << "\n" << text;
  EXPECT_EQ(writeResultsJson(*parsed), text);
  const DeviceInfo &device = parsed->device;
  EXPECT_EQ(device.clockKhz, 1980000);
  EXPECT_EQ(device.memoryClockKhz, 3201000);
  EXPECT_EQ(device.memoryBusBits, 6144);
  EXPECT_EQ(device.maxThreadsPerSm, 2048);
  const BundleResult &bundle = parsed->bundles.front();
  ASSERT_TRUE(bundle.referenceResources.has_value());
  EXPECT_EQ(bundle.referenceResources->registers, 12);
  EXPECT_EQ(bundle.referenceResources->occupancy, 1.0);
  const KernelResources &candidate = *bundle.candidates[0].resources;
  EXPECT_EQ(candidate.registers, 40);
  EXPECT_EQ(candidate.localBytes, 64);
  EXPECT_EQ(candidate.staticSharedBytes, 4096);
  EXPECT_EQ(candidate.maxThreadsPerBlock, 1024);
  EXPECT_EQ(candidate.blockThreads, 256);
  EXPECT_EQ(candidate.blocksPerSm, 4);
  EXPECT_EQ(candidate.occupancy, 0.5);
  const KernelResources &partial = *bundle.candidates[1].resources;
  EXPECT_EQ(partial.registers, 8);
  EXPECT_FALSE(partial.occupancy || partial.blocksPerSm || partial.localBytes);
  const CandidateTiming &timing = *bundle.candidates[0].timing;
  EXPECT_EQ(timing.bytes, std::optional<uint64_t>(3 * 4 * 16777216ull));
  EXPECT_EQ(timing.flops, std::optional<uint64_t>(16777216ull));
  EXPECT_EQ(timing.baseAlignment, std::optional<uint64_t>(256));
  const CandidateTiming &original = *results.bundles[0].candidates[0].timing;
  EXPECT_EQ(timing.referenceGbs, original.referenceGbs);
  EXPECT_EQ(timing.candidateGbs, original.candidateGbs);
  EXPECT_EQ(timing.referenceGflops, original.referenceGflops);
  EXPECT_EQ(timing.candidateGflops, original.candidateGflops);

  for (const char *field : {"\"clock_mhz\": 1980.0",
                            "\"memory_clock_mhz\": 3201.0",
                            "\"memory_bus_bits\": 6144",
                            "\"memory_bandwidth_gbs\": ",
                            "\"max_threads_per_sm\": 2048",
                            "\"fp32_gflops\": ",
                            "\"reference_resources\": {",
                            "\"resources\": {",
                            "\"registers\": 40",
                            "\"local_bytes\": 64",
                            "\"static_shared_bytes\": 4096",
                            "\"max_threads_per_block\": 1024",
                            "\"block_threads\": 256",
                            "\"blocks_per_sm\": 4",
                            "\"occupancy\": 0.5",
                            "\"bytes\": 201326592",
                            "\"reference_gbs\": ",
                            "\"candidate_gbs\": ",
                            "\"flops\": 16777216",
                            "\"base_alignment\": 256",
                            "\"reference_gflops\": ",
                            "\"candidate_gflops\": "})
    EXPECT_NE(text.find(field), std::string::npos) << field << "\n" << text;

  // Bad values name their path.
  std::string bad = text;
  const std::string field = "\"registers\": 40";
  bad.replace(bad.find(field), field.size(), "\"registers\": \"x\"");
  auto rejected = parseResultsJson(bad);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error(), "$.bundles[0].candidates[0].resources.registers: "
                              "expected an integer, got a string");
}

TEST(ResultsTest, NothingUnmeasuredIsWritten) {
  std::string text = writeResultsJson(sampleResults());
  for (const char *field :
       {"clock_mhz", "memory_bandwidth_gbs", "max_threads_per_sm",
        "fp32_gflops", "resources", "\"bytes\"", "_gbs", "flops",
        "base_alignment"})
    EXPECT_EQ(text.find(field), std::string::npos) << field;
  // An all-absent resources object is not written either.
  VerificationResults results = sampleResults();
  results.bundles[0].referenceResources = KernelResources();
  EXPECT_EQ(writeResultsJson(results), text);
}

TEST(ResultsTest, OldResultsFilesReadWithoutMeasurements) {
  // Written by the runner on an H200 before these fields existed.
  for (const char *fixture :
       {"test/Inputs/runtime/h200/vadd-timing.results.json",
        "test/Inputs/runtime/h200/vadd-corpus.results.json",
        "test/Inputs/runtime/h200/blocksum-corpus.results.json"}) {
    std::string text = readSourceFile(fixture);
    ASSERT_FALSE(text.empty()) << fixture;
    auto parsed = parseResultsJson(text);
    ASSERT_TRUE(parsed.ok()) << fixture << ": " << parsed.error();
    EXPECT_EQ(parsed->device.clockKhz, 0);
    EXPECT_EQ(parsed->device.memoryBandwidthGbs(), 0);
    for (const BundleResult &bundle : parsed->bundles) {
      EXPECT_FALSE(bundle.referenceResources.has_value());
      for (const CandidateResult &candidate : bundle.candidates) {
        EXPECT_FALSE(candidate.resources.has_value());
        if (candidate.timing) {
          EXPECT_FALSE(candidate.timing->bytes || candidate.timing->flops ||
                       candidate.timing->candidateGbs);
        }
      }
    }
    std::string summary = formatSummary(*parsed);
    EXPECT_EQ(summary.find("peaks:"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("throughput"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("resources"), std::string::npos) << summary;
    // Written back, nothing new appears.
    std::string again = writeResultsJson(*parsed);
    EXPECT_EQ(again.find("resources"), std::string::npos);
    EXPECT_EQ(again.find("_gbs"), std::string::npos);
  }
  auto timing = parseResultsJson(
      readSourceFile("test/Inputs/runtime/h200/vadd-timing.results.json"));
  ASSERT_TRUE(timing.ok());
  const CandidateResult &v4 = timing->bundles[0].candidates[0];
  ASSERT_TRUE(v4.timing.has_value());
  EXPECT_NEAR(v4.timing->speedup.speedup, 1.227, 0.001);
}

TEST(ResultsTest, MeasuredResultsFromTheH200RoundTrip) {
  std::string text =
      readSourceFile("test/Runtime/Inputs/h200/vadd-timing-flops.results.json");
  auto parsed = parseResultsJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  // Runners before confirmation wrote "suspicious", which is read and
  // dropped; everything else comes back byte for byte.
  std::string withoutSuspicious;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("\"suspicious\"") == std::string::npos)
      withoutSuspicious += line + "\n";
  EXPECT_EQ(writeResultsJson(*parsed), withoutSuspicious);
  const DeviceInfo &device = parsed->device;
  EXPECT_EQ(device.clockKhz, 1980000);
  EXPECT_EQ(device.memoryClockKhz, 3201000);
  EXPECT_EQ(device.memoryBusBits, 6016);
  EXPECT_EQ(device.maxThreadsPerSm, 2048);
  const BundleResult &bundle = parsed->bundles.front();
  ASSERT_TRUE(bundle.referenceResources.has_value());
  EXPECT_EQ(bundle.referenceResources->registers, 12);
  const CandidateResult &v4 = bundle.candidates.front();
  ASSERT_TRUE(v4.resources && v4.timing);
  EXPECT_EQ(v4.resources->blocksPerSm, 8);
  EXPECT_EQ(v4.timing->bytes, std::optional<uint64_t>(3ull * 4 * 67108864));
  EXPECT_EQ(v4.timing->flops, std::optional<uint64_t>(67108864));
  // The rates are the bytes and flops over the medians.
  EXPECT_NEAR(*v4.timing->candidateGbs,
              *v4.timing->bytes / (v4.timing->candidateMs.median * 1e6), 1e-9);
  EXPECT_NEAR(*v4.timing->referenceGflops,
              *v4.timing->flops / (v4.timing->referenceMs.median * 1e6), 1e-9);
}

TEST(ResultsTest, SummaryShowsThroughputAndResources) {
  std::string summary = formatSummary(measuredResults());
  EXPECT_NE(summary.find("\npeaks: memory 4917 GB/s, fp32 66908 GFLOP/s, fp64 33454 "
                         "GFLOP/s, f16 tensor-core 1070531 GFLOP/s, int8 "
                         "tensor-core 2141061 GOP/s\n"),
            std::string::npos)
      << summary;
  // 201326592 bytes in 0.1 ms and 0.2 ms; 16777216 flops likewise.
  EXPECT_NE(summary.find("\n    throughput 2013 GB/s (41% of 4917 peak), "
                         "reference 1007 GB/s; 168 GFLOP/s (0% of 66908 fp32 "
                         "peak), reference 83.9 GFLOP/s\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("\n    resources 40 registers, 64 B local, 4096 B "
                         "shared, occupancy 50% (4 blocks of 256); reference "
                         "12 registers, occupancy 100% (8 blocks of 256)\n"),
            std::string::npos)
      << summary;
  // The verdict line itself is unchanged, and untimed candidates get no
  // extra lines.
  EXPECT_NE(summary.find("  v4          pass                1 checks passed; "
                         "speedup 2.00x"),
            std::string::npos);
  EXPECT_EQ(summary.find("8 registers"), std::string::npos) << summary;
}

TEST(ResultsTest, DocumentedFieldsArePresent) {
  std::string text = writeResultsJson(sampleResults());
  for (const char *field :
       {"\"format\": \"llmptx-verification-results\"", "\"version\": 1",
        "\"device\"", "\"bundles\"", "\"candidates\"", "\"verdict\"",
        "\"shapes\"", "\"mismatches\"", "\"expected\"", "\"got\"",
        "\"reference_ms\"", "\"candidate_ms\"", "\"speedup\"",
        "\"speedup_spread\"", "\"comparison\"", "\"median\"", "\"p10\"",
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
  EXPECT_EQ(faster.comparison, Comparison::Faster);
  SpeedupEstimate slower = estimateSpeedup({1, 1, 1}, {2, 2, 2});
  EXPECT_EQ(slower.comparison, Comparison::Slower);
  // Pairs that disagree: the median ratio is 1, the spread straddles it.
  SpeedupEstimate noisy =
      estimateSpeedup({1, 1.2, 0.8, 1, 1.1}, {1, 1, 1, 1.1, 1});
  EXPECT_EQ(noisy.comparison, Comparison::Same);
  EXPECT_LT(noisy.spreadLo, 1);
  EXPECT_GT(noisy.spreadHi, 1);
  // A consistent difference below the margin is not a verdict.
  SpeedupEstimate close =
      estimateSpeedup({1, 1, 1, 1}, {1.007, 1.005, 1.008, 1.006});
  EXPECT_LT(close.spreadHi, 1);
  EXPECT_EQ(close.comparison, Comparison::Same);
  // A large speedup is a speedup: confirmation, not the estimate, looks
  // harder at it.
  SpeedupEstimate large = estimateSpeedup({11, 11}, {1, 1});
  EXPECT_DOUBLE_EQ(large.speedup, 11);
  EXPECT_EQ(large.comparison, Comparison::Faster);
  EXPECT_EQ(estimateSpeedup({}, {1}).comparison, Comparison::Unknown);
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
  EXPECT_EQ(faster.comparison, Comparison::Faster);
  // Reproducible: the same samples give the same bound.
  SpeedupEstimate again = estimateSpeedup(reference, candidate);
  EXPECT_EQ(again.boundLo, faster.boundLo);
  EXPECT_EQ(again.boundHi, faster.boundHi);

  // A 1% difference inside 3% noise is "same", not "faster".
  std::vector<double> close;
  for (double value : candidate)
    close.push_back(value / 0.95 * 0.99);
  EXPECT_EQ(estimateSpeedup(reference, close).comparison, Comparison::Same);
}
