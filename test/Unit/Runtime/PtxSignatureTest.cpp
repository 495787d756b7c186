//===- PtxSignatureTest.cpp - PTX entry signatures and the ABI check ------===//

#include "llmptx/Runtime/PtxSignature.h"
#include "TestBundles.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace llmptx::runtime;
using llmptx::runtime::testing::vaddBundle;

namespace {

std::string readInput(const std::string &relative) {
  return llmptx::runtime::testing::readRuntimeInput(relative);
}

TEST(PtxSignatureTest, ReadsTheNvptxReference) {
  std::string ptx = readInput("vadd.ref.ptx");
  ASSERT_FALSE(ptx.empty());
  auto entry = findPtxEntry(ptx, "vadd");
  ASSERT_TRUE(entry.ok()) << entry.error();
  ASSERT_EQ(entry->params.size(), 15u);
  EXPECT_EQ(entry->params[0].name, "vadd_param_0");
  EXPECT_EQ(entry->params[0].type, "u64");
  for (const PtxParam &param : entry->params)
    EXPECT_EQ(param.bytes, 8u);
  VerificationBundle bundle = vaddBundle();
  EXPECT_FALSE(checkAbi(*entry, bundle, bundle.reference).has_value());
}

TEST(PtxSignatureTest, HandlesCommentsArraysAndOtherEntries) {
  const char *ptx = R"ptx(
.version 8.0
.target sm_90
// .entry fake(.param .u32 x)
.visible .entry other(.param .u32 other_p) { ret; }
/* .entry hidden( */
.visible .entry k(
  .param .align 8 .b8 k_param_0[16],  // a struct by value
  .param .f32 k_param_1,
  .param .u16 k_param_2
)
.maxntid 128, 1, 1
{ ret; }
.entry empty { ret; }
)ptx";
  auto k = findPtxEntry(ptx, "k");
  ASSERT_TRUE(k.ok()) << k.error();
  ASSERT_EQ(k->params.size(), 3u);
  EXPECT_EQ(k->params[0].bytes, 16u);
  EXPECT_EQ(k->params[1].bytes, 4u);
  EXPECT_EQ(k->params[2].bytes, 2u);
  auto empty = findPtxEntry(ptx, "empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->params.empty());
  auto missing = findPtxEntry(ptx, "fake");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(),
            "no .entry 'fake' in the PTX (entries: other, k, empty)");
  EXPECT_EQ(findPtxEntry("", "x").error(),
            "no .entry 'x' in the PTX (it has no entries)");
}

TEST(PtxSignatureTest, AbiMismatchesAreNamed) {
  VerificationBundle bundle = vaddBundle();
  PtxEntrySignature fewer{"vadd", {}};
  for (int i = 0; i < 14; ++i)
    fewer.params.push_back({"p" + std::to_string(i), "u64", 8});
  EXPECT_EQ(checkAbi(fewer, bundle, bundle.reference).value_or(""),
            "entry 'vadd' has 14 parameters, the bundle's ABI has 15");
  PtxEntrySignature narrow = fewer;
  narrow.params.push_back({"p14", "u64", 8});
  narrow.params[3] = {"p3", "u32", 4};
  EXPECT_EQ(checkAbi(narrow, bundle, bundle.reference).value_or(""),
            "entry 'vadd' parameter 3 ('p3', .u32) has 4 bytes, the ABI's "
            "size has 8");
}

TEST(PtxSignatureTest, TensorMapsFollowTheBundlesParameters) {
  VerificationBundle bundle = vaddBundle();
  KernelObject candidate;
  candidate.tensorMaps.push_back({"tmA", "a", {64}, "none", "none", "none",
                                  "none"});
  PtxEntrySignature withMap{"vadd", {}};
  for (int i = 0; i < 15; ++i)
    withMap.params.push_back({"p" + std::to_string(i), "u64", 8});
  EXPECT_EQ(checkAbi(withMap, bundle, candidate).value_or(""),
            "entry 'vadd' has 15 parameters, the bundle's ABI has 16 (1 of "
            "them tensor maps)");
  withMap.params.push_back({"p15", "b8", 64});
  EXPECT_EQ(checkAbi(withMap, bundle, candidate).value_or(""),
            "entry 'vadd' parameter 15 ('p15', .b8) has 64 bytes, the ABI's "
            "tensor map 'tmA' has 128");
  withMap.params.back().bytes = 128;
  EXPECT_FALSE(checkAbi(withMap, bundle, candidate).has_value());
}

TEST(PtxSignatureTest, BrokenParameterListsAreErrors) {
  EXPECT_FALSE(findPtxEntry(".entry k(.param .u64 a, .param", "k").ok());
  EXPECT_FALSE(findPtxEntry(".entry k(.param .q64 a)", "k").ok());
  EXPECT_FALSE(findPtxEntry(".entry k(.param a)", "k").ok());
  EXPECT_FALSE(findPtxEntry(".entry k(.reg .u64 a)", "k").ok());
}

} // namespace
