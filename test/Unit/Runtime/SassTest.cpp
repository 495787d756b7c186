//===- SassTest.cpp - SASS statistics from nvdisasm listings ---------------===//
//
// test/Inputs/runtime/vadd4.nvdisasm.txt is what nvdisasm -c (CUDA 13.0)
// printed on an H200 machine for test/Inputs/runtime/vadd4.ptx assembled
// with ptxas -arch=sm_90. The expected counts were taken from that file
// with grep: 160 instruction lines, 10 of them NOP padding.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/Sass.h"

#include "TestBundles.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

using namespace llmptx::runtime;

namespace {

std::string readInput(const std::string &name) {
  return llmptx::runtime::testing::readRuntimeInput(name);
}

std::map<std::string, unsigned> countsOf(const SassStatistics &statistics) {
  return {statistics.opcodes.begin(), statistics.opcodes.end()};
}

} // namespace

TEST(SassTest, CountsTheEntrysInstructionsByOpcode) {
  std::string listing = readInput("vadd4.nvdisasm.txt");
  ASSERT_FALSE(listing.empty());
  SassStatistics statistics = parseNvdisasmListing(listing, "vadd4");
  EXPECT_EQ(statistics.instructions, 150u);
  std::map<std::string, unsigned> counts = countsOf(statistics);
  EXPECT_EQ(counts["IMAD"], 39u); // .MOV.U32, .X, .SHL.U32
  EXPECT_EQ(counts["IADD3"], 27u);
  EXPECT_EQ(counts["ISETP"], 18u);
  EXPECT_EQ(counts["FADD"], 12u);
  // Memory instructions keep a width above 32 bits.
  EXPECT_EQ(counts["LDG"], 16u);
  EXPECT_EQ(counts["LDG.128"], 2u);
  EXPECT_EQ(counts["STG"], 8u);
  EXPECT_EQ(counts["STG.128"], 1u);
  EXPECT_EQ(counts["EXIT"], 4u); // guarded ones too
  EXPECT_EQ(counts.count("NOP"), 0u);
  // Most frequent first.
  ASSERT_FALSE(statistics.opcodes.empty());
  EXPECT_EQ(statistics.opcodes.front().first, "IMAD");
  for (size_t i = 1; i < statistics.opcodes.size(); ++i)
    EXPECT_GE(statistics.opcodes[i - 1].second, statistics.opcodes[i].second);
}

TEST(SassTest, OnlyTheEntrysSectionCounts) {
  std::string listing = readInput("vadd4.nvdisasm.txt");
  std::string other = listing;
  for (size_t at = other.find(".text.vadd4"); at != std::string::npos;
       at = other.find(".text.vadd4", at))
    other.replace(at, 11, ".text.other");
  std::string both = listing + other;
  EXPECT_EQ(parseNvdisasmListing(both, "vadd4").instructions, 150u);
  EXPECT_EQ(parseNvdisasmListing(both, "other").instructions, 150u);
  EXPECT_EQ(parseNvdisasmListing(both, "vadd").instructions, 0u);
}

TEST(SassTest, ResultsCarryTheStatistics) {
  VerificationResults results;
  BundleResult bundle;
  bundle.kernel = "vadd4";
  KernelResources resources;
  resources.registers = 24;
  resources.sass = parseNvdisasmListing(readInput("vadd4.nvdisasm.txt"),
                                        "vadd4");
  bundle.referenceResources = resources;
  results.bundles.push_back(bundle);
  results.sassNote = "vadd4 s0r0: ptxas exited with status 255";
  ValueOrError<VerificationResults> parsed =
      parseResultsJson(writeResultsJson(results));
  ASSERT_TRUE(parsed) << parsed.error();
  ASSERT_TRUE(parsed->bundles[0].referenceResources);
  const std::optional<SassStatistics> &sass =
      parsed->bundles[0].referenceResources->sass;
  ASSERT_TRUE(sass);
  EXPECT_EQ(sass->instructions, 150u);
  EXPECT_EQ(sass->opcodes, resources.sass->opcodes);
  EXPECT_EQ(parsed->sassNote, results.sassNote);
  EXPECT_EQ(describeSass(*sass, 2), "SASS 150 instructions (IMAD 39, IADD3 27)");
}

TEST(SassTest, MeasuresWithTheRealToolsWhenInstalled) {
  std::optional<SassTools> tools = findSassTools();
  if (!tools)
    GTEST_SKIP() << "ptxas or nvdisasm not installed";
  char pattern[] = "/tmp/llmptx-sass-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  ValueOrError<SassStatistics> sass =
      measureSass(*tools, readInput("vadd4.ptx"), "vadd4", "sm_90", pattern);
  ASSERT_TRUE(sass) << sass.error();
  EXPECT_GT(sass->instructions, 0u);
  ValueOrError<SassStatistics> broken =
      measureSass(*tools, "not ptx", "vadd4", "sm_90", pattern);
  EXPECT_FALSE(broken);
  EXPECT_NE(broken.error().find("ptxas"), std::string::npos);
}
