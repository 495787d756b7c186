//===- PtxExtractionTest.cpp - Finding the PTX module in a completion -----===//

#include "llmptx/LLM/PtxExtraction.h"

#include "gtest/gtest.h"

using namespace llmptx::llm;

namespace {

TEST(PtxExtractionTest, SingleFencedBlockWithProse) {
  ExtractedAnswer result = extractPtx(
      "Sure:\n```ptx\n.version 8.5\n.visible .entry k()\n{\n\tret;\n}\n```\n"
      "Done.");
  ASSERT_TRUE(result.found);
  EXPECT_EQ(result.code, ".version 8.5\n.visible .entry k()\n{\n\tret;\n}\n");
  EXPECT_EQ(result.note, "took the only fenced block");
}

TEST(PtxExtractionTest, PrefersTheLastCompleteModule) {
  ExtractedAnswer result = extractPtx(
      "```ptx\n.version 8.5\n.visible .entry k()\n{\n}\n```\n"
      "Fixed:\n```ptx\n.version 8.5\n.visible .entry k()\n{\n\tret;\n}\n```\n"
      "```cuda\nk<<<1, 1>>>();\n```\n");
  ASSERT_TRUE(result.found);
  EXPECT_NE(result.code.find("ret;"), std::string::npos);
  EXPECT_EQ(result.note, "took the 2nd of 3 fenced blocks");
}

TEST(PtxExtractionTest, AModuleBeatsATaggedFragment) {
  ExtractedAnswer result = extractPtx(
      "```\n.version 8.5\n.target sm_90\n.visible .entry k()\n{\n}\n```\n"
      "The key line:\n```ptx\nadd.s32 %r1, %r2, %r3;\n```\n");
  ASSERT_TRUE(result.found);
  EXPECT_NE(result.code.find(".entry"), std::string::npos);
  EXPECT_EQ(result.note, "took the 1st of 2 fenced blocks");
}

TEST(PtxExtractionTest, TildeFencesAndLongerFences) {
  ExtractedAnswer tilde = extractPtx("~~~ptx\n.visible .entry k()\n{\n}\n~~~\n");
  ASSERT_TRUE(tilde.found);
  EXPECT_EQ(tilde.code, ".visible .entry k()\n{\n}\n");
  // A ``` line inside a ```` block does not close it.
  ExtractedAnswer nested =
      extractPtx("````ptx\n.visible .entry k()\n```\n{\n}\n````\n");
  ASSERT_TRUE(nested.found);
  EXPECT_EQ(nested.code, ".visible .entry k()\n```\n{\n}\n");
}

TEST(PtxExtractionTest, UnterminatedFenceTakesTheRest) {
  ExtractedAnswer result =
      extractPtx("```ptx\n.visible .entry k()\n{\n\tadd.s32 %r1");
  ASSERT_TRUE(result.found);
  EXPECT_EQ(result.code, ".visible .entry k()\n{\n\tadd.s32 %r1\n");
  EXPECT_NE(result.note.find("not closed"), std::string::npos);
}

TEST(PtxExtractionTest, NoFenceCutsFromFirstDirectiveToLastBrace) {
  ExtractedAnswer result = extractPtx(
      "Here it is.\n\n.version 8.5\n.target sm_90\n.visible .entry k()\n"
      "{\n\tret;\n}\n\nHope this helps!\n");
  ASSERT_TRUE(result.found);
  EXPECT_EQ(result.code,
            ".version 8.5\n.target sm_90\n.visible .entry k()\n{\n\tret;\n}\n");
  EXPECT_EQ(result.note, "no fenced block; took lines 3-8 of 10");
}

TEST(PtxExtractionTest, NoPtxAtAll) {
  ExtractedAnswer prose = extractPtx("I can't do that.");
  EXPECT_FALSE(prose.found);
  EXPECT_TRUE(prose.code.empty());
  EXPECT_NE(prose.note.find("no PTX directive"), std::string::npos);
  ExtractedAnswer empty = extractPtx("");
  EXPECT_FALSE(empty.found);
  ExtractedAnswer other = extractPtx("```python\nprint(1)\n```\n");
  EXPECT_FALSE(other.found);
  EXPECT_NE(other.note.find("none of the 1 fenced blocks"), std::string::npos);
}

TEST(PtxExtractionTest, ThinkSectionIsIgnored) {
  ExtractedAnswer result = extractPtx(
      "<think>\n```ptx\n// draft\n.visible .entry k() {}\n```\n</think>\n"
      "```ptx\n// final\n.visible .entry k()\n{\n}\n```\n");
  ASSERT_TRUE(result.found);
  EXPECT_NE(result.code.find("// final"), std::string::npos);
  EXPECT_EQ(result.code.find("draft"), std::string::npos);
  EXPECT_EQ(result.note,
            "took the only fenced block; ignored the <think> section");
}

TEST(PtxExtractionTest, CrLfLineEnds) {
  ExtractedAnswer result =
      extractPtx("```ptx\r\n.visible .entry k()\r\n{\r\n}\r\n```\r\n");
  ASSERT_TRUE(result.found);
  EXPECT_EQ(result.code, ".visible .entry k()\n{\n}\n");
}

TEST(PtxExtractionTest, CudaTakesTheTaggedKernelBlock) {
  ExtractedAnswer answer = extractCuda(
      "Helper first:\n```cpp\n__device__ int f();\n```\n"
      "```text\n__global__ mentioned in prose\n```\n"
      "```cuda\nextern \"C\" __global__ void k() {}\n```\n"
      "```launch\n{\"block\": [64, 1, 1]}\n```\n");
  ASSERT_TRUE(answer.found);
  EXPECT_EQ(answer.code, "extern \"C\" __global__ void k() {}\n");
  EXPECT_EQ(answer.note, "took the 3rd of 4 fenced blocks");
  ASSERT_TRUE(answer.launch);
  EXPECT_FALSE(extractCuda("__global__ void k() {}\n").found);
  EXPECT_FALSE(extractCuda("```ptx\n.entry k() { ret; }\n```\n").found);
}

} // namespace
