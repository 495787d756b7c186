//===- PromptTest.cpp - Versioned prompt templates ------------------------===//

#include "llmptx/LLM/Prompt.h"

#include "gtest/gtest.h"

using namespace llmptx::llm;

namespace {

KernelSpec vecaddSpec() {
  KernelSpec spec;
  spec.kernelName = "vecadd";
  spec.mlirText = "gpu.func @vecadd(%a: memref<?xf32>) kernel { gpu.return }";
  spec.ptxSignature =
      ".visible .entry vecadd(\n\t.param .u64 vecadd_param_0\n)";
  spec.launchFacts = "block (128, 1, 1)";
  spec.chip = "sm_80";
  spec.ptxIsa = "7.8";
  return spec;
}

TEST(PromptTest, TranslateStatesTheRulesAndTheFacts) {
  Prompt prompt = renderTranslatePrompt(vecaddSpec());
  EXPECT_EQ(prompt.templateVersion, TranslateTemplateVersion);
  ASSERT_EQ(prompt.messages.size(), 2u);
  EXPECT_EQ(prompt.messages[0].role, "system");
  const std::string &rules = prompt.messages[0].content;
  for (const char *rule : {"exactly one fenced code block tagged ptx", "%r<N>",
                           ".reg .pred", "64-bit", "bounds check",
                           "entry signature you are given exactly", "no .ftz"})
    EXPECT_NE(rules.find(rule), std::string::npos) << rule;
  EXPECT_EQ(prompt.messages[1].role, "user");
  const std::string &user = prompt.messages[1].content;
  for (const char *fact :
       {"Kernel: vecadd", ".target sm_80, .version 7.8",
        "```mlir\ngpu.func @vecadd", "\t.param .u64 vecadd_param_0",
        "block (128, 1, 1)", "aligned to their element size only"})
    EXPECT_NE(user.find(fact), std::string::npos) << fact;
  // No optional section without content.
  EXPECT_EQ(user.find("## Intent"), std::string::npos);
}

TEST(PromptTest, StatedFactsReplaceTheDefaultAssumption) {
  KernelSpec spec = vecaddSpec();
  spec.statedFacts = "%a is 16-byte aligned";
  std::string user = renderTranslatePrompt(spec).messages[1].content;
  EXPECT_NE(user.find("%a is 16-byte aligned"), std::string::npos);
  EXPECT_EQ(user.find("aligned to their element size only"), std::string::npos);
}

TEST(PromptTest, HashIsStableAndFollowsEveryField) {
  Prompt a = renderTranslatePrompt(vecaddSpec());
  Prompt b = renderTranslatePrompt(vecaddSpec());
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash().size(), 64u);
  Prompt c = a;
  c.templateVersion = "other";
  EXPECT_NE(a.hash(), c.hash());
  Prompt d = a;
  d.messages[1].content += " ";
  EXPECT_NE(a.hash(), d.hash());
  // Moving text between the role and the content changes the hash too.
  Prompt e;
  e.messages = {{"ab", "c"}};
  Prompt f;
  f.messages = {{"a", "bc"}};
  EXPECT_NE(e.hash(), f.hash());
}

TEST(PromptTest, OptimizeCarriesReferenceAndMeasurements) {
  KernelSpec spec = vecaddSpec();
  spec.referencePtx = "// reference ptx";
  spec.referenceResources = "Used 12 registers";
  Prompt prompt = renderOptimizePrompt(spec, "reference: 10.5 us");
  EXPECT_EQ(prompt.templateVersion, OptimizeTemplateVersion);
  EXPECT_NE(prompt.messages[0].content.find("faster"), std::string::npos);
  const std::string &user = prompt.messages[1].content;
  EXPECT_NE(user.find("```ptx\n// reference ptx\n```"), std::string::npos);
  EXPECT_NE(user.find("Used 12 registers"), std::string::npos);
  EXPECT_NE(user.find("reference: 10.5 us"), std::string::npos);
}

TEST(PromptTest, RepairContinuesTheConversation) {
  Prompt first = renderTranslatePrompt(vecaddSpec());
  std::vector<std::string> diagnostics = {
      "answer.ptx:3:5: error: register %r9 used but only %r<8> declared",
      "answer.ptx:7:1: error: missing .version"};
  Prompt repair = renderRepairPrompt(first, "```ptx\nbad\n```", diagnostics);
  EXPECT_EQ(repair.templateVersion, "llmptx-translate-v1+repair-v1");
  ASSERT_EQ(repair.messages.size(), 4u);
  EXPECT_EQ(repair.messages[2].role, "assistant");
  EXPECT_EQ(repair.messages[2].content, "```ptx\nbad\n```");
  EXPECT_EQ(repair.messages[3].role, "user");
  EXPECT_NE(repair.messages[3].content.find(diagnostics[0] + "\n" +
                                            diagnostics[1] + "\n"),
            std::string::npos);
  // A second round continues the first.
  Prompt again = renderRepairPrompt(repair, "```ptx\nworse\n```", {});
  EXPECT_EQ(again.templateVersion, "llmptx-translate-v1+repair-v1+repair-v1");
  EXPECT_EQ(again.messages.size(), 6u);
  EXPECT_NE(again.messages[5].content.find("(no diagnostics were produced)"),
            std::string::npos);
}

TEST(PromptTest, MismatchCarriesTheReport) {
  Prompt first = renderTranslatePrompt(vecaddSpec());
  Prompt mismatch = renderMismatchPrompt(
      first, "answer", "shape n=257: c[256] = 0 (expected 3.5)\n");
  EXPECT_EQ(mismatch.templateVersion, "llmptx-translate-v1+mismatch-v1");
  ASSERT_EQ(mismatch.messages.size(), 4u);
  EXPECT_NE(mismatch.messages[3].content.find(
                "shape n=257: c[256] = 0 (expected 3.5)"),
            std::string::npos);
}

TEST(PromptTest, CudaAsksForThePrototypeInACudaBlock) {
  KernelSpec spec = vecaddSpec();
  spec.cudaPrototype = "extern \"C\" __global__ void vecadd(\n    float *arg0)";
  Prompt cuda = renderTranslatePrompt(spec, SourceLanguage::CUDA);
  EXPECT_EQ(cuda.language, SourceLanguage::CUDA);
  EXPECT_EQ(cuda.templateVersion, "llmptx-translate-v1+cuda-v1");
  EXPECT_NE(cuda.messages[0].content.find("compiled to PTX by NVRTC"),
            std::string::npos);
  const std::string &user = cuda.messages[1].content;
  EXPECT_NE(user.find("## Kernel prototype to define (use it exactly)\n```cuda\n"
                      "extern \"C\" __global__ void vecadd("),
            std::string::npos);
  EXPECT_EQ(user.find("Entry signature to fill in"), std::string::npos);
  EXPECT_NE(user.find("in one ```cuda block"), std::string::npos);
  // Repairs and mismatches continue in the conversation's language.
  Prompt repair = renderRepairPrompt(cuda, "```cuda\nbad\n```",
                                     {"candidate.cu:3:5: error: x"});
  EXPECT_EQ(repair.language, SourceLanguage::CUDA);
  EXPECT_NE(repair.messages.back().content.find("in one ```cuda block"),
            std::string::npos);
  Prompt mismatch = renderMismatchPrompt(cuda, "answer", "c[0] = 1");
  EXPECT_NE(mismatch.messages.back().content.find("```cuda block"),
            std::string::npos);
  // The PTX prompt of the same spec is the one of language=ptx.
  EXPECT_EQ(renderTranslatePrompt(spec).hash(),
            renderTranslatePrompt(vecaddSpec()).hash());
}

TEST(PromptTest, ImproveShowsACudaIncumbentsSource) {
  Incumbent incumbent;
  incumbent.name = "s1r0";
  incumbent.ptx = ".version 9.0";
  incumbent.cudaSource = "__global__ void vecadd() {}";
  Prompt prompt =
      renderImprovePrompt(vecaddSpec(), incumbent, 1, SourceLanguage::PTX);
  const std::string &user = prompt.messages[1].content;
  EXPECT_NE(user.find("```cuda\n__global__ void vecadd() {}"),
            std::string::npos);
  EXPECT_EQ(user.find(".version 9.0"), std::string::npos);
  EXPECT_NE(user.find("in one ```ptx block"), std::string::npos);
}

TEST(PromptTest, CudaPromptsListCudaFragmentsElsePtxOnes) {
  KernelSpec spec = vecaddSpec();
  spec.cudaPrototype = "extern \"C\" __global__ void vecadd(float *arg0)";
  spec.fragments = "### ptx-piece: x\n```ptx\nret;\n```";
  // Without CUDA fragments a CUDA prompt lists the PTX ones, as before.
  Prompt before = renderOptimizePrompt(spec, "", SourceLanguage::CUDA);
  EXPECT_EQ(before.templateVersion, "llmptx-optimize-v1+cuda-v1+fragments-v1");
  EXPECT_NE(before.messages[1].content.find("## Proven PTX fragments\n"),
            std::string::npos);
  spec.cudaFragments = "### cuda-piece: y\n```cuda\nint y;\n```";
  Prompt cuda = renderOptimizePrompt(spec, "", SourceLanguage::CUDA);
  EXPECT_EQ(cuda.templateVersion,
            "llmptx-optimize-v1+cuda-v1+cuda-fragments-v1");
  const std::string &user = cuda.messages[1].content;
  EXPECT_NE(user.find("## Proven CUDA fragments\n### cuda-piece"),
            std::string::npos);
  EXPECT_EQ(user.find("ptx-piece"), std::string::npos);
  Incumbent reference;
  EXPECT_NE(renderImprovePrompt(spec, reference, 1, SourceLanguage::CUDA)
                .messages[1]
                .content.find("## Proven CUDA fragments"),
            std::string::npos);
  // A PTX prompt never lists CUDA fragments: it is the prompt it was.
  KernelSpec withoutCuda = spec;
  withoutCuda.cudaFragments.clear();
  EXPECT_EQ(renderOptimizePrompt(spec, "").hash(),
            renderOptimizePrompt(withoutCuda, "").hash());
}

} // namespace
