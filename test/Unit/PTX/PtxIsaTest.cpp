//===- PtxIsaTest.cpp - Tests of the PTX ISA tables -------------*- C++ -*-===//

#include "llmptx/PTX/PtxIsa.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

TEST(PtxIsaTest, ChipsAndVersions) {
  std::optional<Chip> c = parseChip("sm_90a");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->sm, 90u);
  EXPECT_TRUE(c->archSpecific);
  EXPECT_FALSE(parseChip("gfx90a").has_value());
  EXPECT_FALSE(parseChip("sm_").has_value());
  // Pairings checked against CUDA 13.0's ptxas.
  EXPECT_EQ(minPtxVersionForChip(*parseChip("sm_90")), 78u);
  EXPECT_EQ(minPtxVersionForChip(*parseChip("sm_90a")), 80u);
  EXPECT_EQ(minPtxVersionForChip(*parseChip("sm_100")), 86u);
  EXPECT_EQ(minPtxVersionForChip(*parseChip("sm_100f")), 88u);
  EXPECT_EQ(minPtxVersionForChip(*parseChip("sm_120")), 87u);
  EXPECT_EQ(minPtxVersionForChip(*parseChip("sm_86")), 71u);
  EXPECT_FALSE(minPtxVersionForChip(*parseChip("sm_91")).has_value());
  EXPECT_FALSE(minPtxVersionForChip(*parseChip("sm_80a")).has_value());
  EXPECT_EQ(cudaReleaseForPtxVersion(90), 130u);
  EXPECT_FALSE(cudaReleaseForPtxVersion(89).has_value());
  EXPECT_EQ(newestKnownPtxVersion(), 90u);
}

TEST(PtxIsaTest, Types) {
  EXPECT_EQ(parseScalarType(".b64")->bits, 64u);
  EXPECT_EQ(parseScalarType(".f16x2")->bits, 32u);
  EXPECT_EQ(parseScalarType(".f16x2")->kind, TypeKind::Float);
  EXPECT_EQ(parseScalarType(".bf16")->kind, TypeKind::Float);
  EXPECT_EQ(parseScalarType(".pred")->kind, TypeKind::Predicate);
  EXPECT_EQ(parseScalarType(".s8")->kind, TypeKind::Signed);
  EXPECT_FALSE(parseScalarType(".b23").has_value());
  EXPECT_FALSE(parseScalarType(".f8").has_value());
  EXPECT_FALSE(parseScalarType("u32").has_value());
}

TEST(PtxIsaTest, OpcodesAndModifiers) {
  EXPECT_NE(lookupOpcode("wgmma"), nullptr);
  EXPECT_EQ(lookupOpcode("fmax"), nullptr);
  EXPECT_EQ(suggestOpcode("setpp"), "setp");
  for (const char *m :
       {".global", ".shared::cta", ".v4", ".m64n128k16", ".L2::cache_hint",
        ".mbarrier::complete_tx::bytes", ".NaN", ".32x32b", ".b32", ".3d"})
    EXPECT_TRUE(isKnownModifier(m)) << m;
  for (const char *m : {".glbal", ".rnd", ".foo"})
    EXPECT_FALSE(isKnownModifier(m)) << m;
  EXPECT_EQ(suggestModifier(".glbal"), ".global");
  EXPECT_EQ(suggestModifier(".rnd"), ".rn");
  EXPECT_TRUE(suggestModifier(".foo").empty());
}

TEST(PtxIsaTest, Requirements) {
  std::string why;
  Chip sm80 = *parseChip("sm_80"), sm90 = *parseChip("sm_90"),
       sm90a = *parseChip("sm_90a");
  EXPECT_NE(findRequirement("elect.sync", sm80, 80, why), nullptr);
  EXPECT_EQ(findRequirement("elect.sync", sm90, 80, why), nullptr);
  EXPECT_NE(findRequirement("wgmma.fence.sync.aligned", sm90, 80, why),
            nullptr);
  EXPECT_NE(why.find("sm_90a"), std::string::npos);
  EXPECT_EQ(findRequirement("wgmma.fence.sync.aligned", sm90a, 80, why),
            nullptr);
  EXPECT_NE(findRequirement("cp.async.bulk.tensor.2d", sm90, 78, why), nullptr);
  EXPECT_NE(why.find("PTX ISA 8.0"), std::string::npos);
  EXPECT_NE(findRequirement("cvt.rn.satfinite.e4m3x2.f32", sm80, 80, why),
            nullptr);
  // "mma" must not match "mmax" or similar prefixes.
  EXPECT_EQ(findRequirement("mbarrierx", sm80, 80, why), nullptr);
}

TEST(PtxIsaTest, SpecialRegistersAndNames) {
  EXPECT_EQ(specialRegisterBits("%tid.x"), 32u);
  EXPECT_EQ(specialRegisterBits("%clock64"), 64u);
  unsigned minSm = 0;
  EXPECT_EQ(specialRegisterBits("%cluster_ctarank", &minSm), 32u);
  EXPECT_EQ(minSm, 90u);
  EXPECT_FALSE(specialRegisterBits("%tid.w").has_value());
  EXPECT_FALSE(specialRegisterBits("%r1").has_value());
  EXPECT_TRUE(isTimerRegister("%globaltimer"));
  auto split = splitRegisterIndex("%rd12");
  EXPECT_EQ(split.first, "%rd");
  EXPECT_EQ(split.second, "12");
  EXPECT_TRUE(splitRegisterIndex("%r01").second.empty());
  EXPECT_TRUE(splitRegisterIndex("%SP").second.empty());
}

} // namespace
