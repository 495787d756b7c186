//===- CountersTest.cpp - Nsight Compute counters from ncu --csv ----------===//
//
// test/Inputs/runtime/sgemm128.ncu.csv is what `ncu --csv --metrics ...`
// (Nsight Compute 2025.3.1) printed on an H200 for one run of the 128 x 128
// SGEMM candidate at M = N = K = 2048 (llmptx-runner --child-sanitize).
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/Counters.h"
#include "llmptx/Runtime/Results.h"

#include "TestBundles.h"

#include <gtest/gtest.h>

#include <map>

using namespace llmptx::runtime;
using llmptx::runtime::testing::readRuntimeInput;

TEST(CountersTest, ReadsEveryMetricOfTheProfiledLaunch) {
  std::string csv = readRuntimeInput("sgemm128.ncu.csv");
  ASSERT_FALSE(csv.empty());
  std::vector<Counter> counters = parseNcuCsv(csv);
  std::map<std::string, Counter> byName;
  for (const Counter &counter : counters)
    byName[counter.metric] = counter;
  EXPECT_EQ(counters.size(), profiledMetrics().size());
  for (const std::string &metric : profiledMetrics())
    EXPECT_EQ(byName.count(metric), 1u) << metric;
  // Thousands separators and units as ncu prints them.
  EXPECT_EQ(byName["gpu__time_duration.sum"].value, 665088);
  EXPECT_EQ(byName["gpu__time_duration.sum"].unit, "ns");
  EXPECT_EQ(byName["smsp__inst_executed.sum"].value, 334575616);
  EXPECT_EQ(byName["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"].unit,
            "");
  EXPECT_DOUBLE_EQ(
      byName["sm__throughput.avg.pct_of_peak_sustained_elapsed"].value, 63.65);
}

TEST(CountersTest, OnlyTheFirstLaunchAndOnlyNumbers) {
  std::string header = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric "
                       "Unit\",\"Metric Value\"\n";
  std::string csv = "==PROF== Connected to process 1\n" + header +
                    "\"0\",\"k\",\"a.sum\",\"\",\"1,024\"\n"
                    "\"0\",\"k\",\"b.pct\",\"%\",\"n/a\"\n"
                    "\"1\",\"k\",\"a.sum\",\"\",\"7\"\n";
  std::vector<Counter> counters = parseNcuCsv(csv);
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0], (Counter{"a.sum", "", 1024}));
  EXPECT_TRUE(parseNcuCsv("no profile here\n").empty());
}

TEST(CountersTest, DescribedAndCarriedByTheResults) {
  std::vector<Counter> counters =
      parseNcuCsv(readRuntimeInput("sgemm128.ncu.csv"));
  std::string text = describeCounters(counters);
  EXPECT_NE(text.find("time under the profiler 665.1 us"), std::string::npos)
      << text;
  EXPECT_NE(text.find("DRAM throughput 1.1% of peak"), std::string::npos);
  EXPECT_NE(text.find("L2 hit rate 89.4%,"), std::string::npos);
  EXPECT_NE(text.find("shared-memory bank conflicts 107803"),
            std::string::npos);

  VerificationResults results;
  BundleResult bundle;
  CandidateResult candidate;
  candidate.name = "o1s0r0";
  candidate.resources = KernelResources();
  candidate.resources->counters = counters;
  bundle.candidates.push_back(candidate);
  results.bundles.push_back(bundle);
  results.ncuNote = "sgemm nvptx: ncu exited with status 1";
  ValueOrError<VerificationResults> parsed =
      parseResultsJson(writeResultsJson(results));
  ASSERT_TRUE(parsed) << parsed.error();
  ASSERT_TRUE(parsed->bundles[0].candidates[0].resources);
  EXPECT_EQ(parsed->bundles[0].candidates[0].resources->counters, counters);
  EXPECT_EQ(parsed->ncuNote, results.ncuNote);
}
