//===- MechanicalFixTest.cpp - Tests of the mechanical fixes ----*- C++ -*-===//

#include "PTXTestInputs.h"

#include "llmptx/PTX/MechanicalFix.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

TEST(MechanicalFixTest, RewritesScalarDeclarationIntoCoveringRange) {
  std::string text = test::readCorpus("broken/undeclared_register_scalar.ptx");
  ASSERT_FALSE(text.empty());
  std::optional<FixResult> fixed = applyMechanicalFixes(text, {});
  ASSERT_TRUE(fixed.has_value());
  ASSERT_EQ(fixed->fixesApplied.size(), 1u);
  EXPECT_NE(fixed->fixesApplied[0].find("%r<11>"), std::string::npos);
  EXPECT_NE(fixed->ptx.find(".reg .b32 \t%r<11>;"), std::string::npos);
  EXPECT_FALSE(hasErrors(lintPtx(fixed->ptx, {})));
  // Only the declaration changed: %r10 -> %r<11>.
  EXPECT_EQ(fixed->ptx.size(), text.size() + 2);
}

TEST(MechanicalFixTest, NothingToFixOnCleanInput) {
  std::string text = test::readCorpus("nvptx/elementwise_add.ptx");
  EXPECT_FALSE(applyMechanicalFixes(text, {}).has_value());
}

TEST(MechanicalFixTest, RefusesWhenTheResultWouldNotLintClean) {
  // The range is fixable, but the type error remains: no partial "fix".
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k()\n{\n"
                     "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
                     "\tmov.u32 %r3, 1;\n"
                     "\tadd.s32 %r1, %r3, %rd1;\n\tret;\n}\n";
  EXPECT_FALSE(applyMechanicalFixes(text, {}).has_value());
  text.replace(text.find("%rd1;"), 4, "%r0");
  std::optional<FixResult> fixed = applyMechanicalFixes(text, {});
  ASSERT_TRUE(fixed.has_value());
  EXPECT_NE(fixed->ptx.find("%r<4>"), std::string::npos);
}

TEST(MechanicalFixTest, AmbiguousRegistersAreLeftAlone) {
  // %f1 has no declaration of its stem at all: its type is a guess.
  std::string text = test::readCorpus("broken/undeclared_register.ptx");
  EXPECT_FALSE(applyMechanicalFixes(text, {}).has_value());
}

} // namespace
