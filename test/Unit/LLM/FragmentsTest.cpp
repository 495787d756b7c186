//===- FragmentsTest.cpp - Which fragments a prompt lists -----------------===//

#include "llmptx/LLM/Fragments.h"

#include "gtest/gtest.h"

using namespace llmptx::llm;

namespace {

Fragment fragment(std::string name, std::set<std::string> ops,
                  std::vector<std::string> chips = {"sm_80", "sm_90"}) {
  Fragment result;
  result.name = std::move(name);
  result.ops = std::move(ops);
  result.chips = std::move(chips);
  result.text = "\tret;\n";
  return result;
}

std::vector<std::string> listed(const std::string &section) {
  std::vector<std::string> names;
  size_t at = 0;
  while ((at = section.find("### ", at)) != std::string::npos) {
    at += 4;
    names.push_back(section.substr(at, section.find(':', at) - at));
  }
  return names;
}

TEST(Fragments, ParsesTheHeaderAndTheLines) {
  llvm::Expected<Fragment> parsed = parseFragment(
      "//! name: warp-max-f32\n//! does: a max\n//! chips: sm_80, sm_90\n"
      "//! ptx: 7.0\n//! ops: reduction, max, warp, f32\n"
      "\tshfl.sync.bfly.b32 %t, %f1, 16, 31, -1;\n\tmax.NaN.f32 %f1, %f1, "
      "%t;\n\n",
      "warp-max-f32.ptx");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->name, "warp-max-f32");
  EXPECT_EQ(parsed->chips, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(parsed->ops,
            (std::set<std::string>{"reduction", "max", "warp", "f32"}));
  EXPECT_EQ(parsed->text, "\tshfl.sync.bfly.b32 %t, %f1, 16, 31, -1;\n"
                          "\tmax.NaN.f32 %f1, %f1, %t;\n");
}

TEST(Fragments, UnknownHeaderIsAnErrorWithItsLine) {
  llvm::Expected<Fragment> parsed =
      parseFragment("//! name: x\n//! colour: red\n", "x.ptx");
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            "x.ptx:2: unknown fragment header 'colour'");
}

TEST(Fragments, KernelOpsFromMlir) {
  std::set<std::string> softmax = kernelOps(
      "%m = arith.maximumf %a, %b : f32\n%e = math.exp %d : f32\n"
      "iterator_types = [\"parallel\", \"reduction\"] %s = arith.addf\n"
      "memref<?xf32>");
  for (const char *word : {"reduction", "sum", "max", "exp", "softmax", "f32"})
    EXPECT_TRUE(softmax.count(word)) << word;
  EXPECT_FALSE(softmax.count("elementwise"));
  std::set<std::string> vadd =
      kernelOps("%c = arith.addf %a, %b : f32\nmemref.store %c, "
                "%arg2[%i] : memref<?xf32>");
  EXPECT_TRUE(vadd.count("elementwise"));
  EXPECT_TRUE(vadd.count("vector"));
  EXPECT_FALSE(vadd.count("reduction"));
  std::set<std::string> half = kernelOps("memref<?xbf16>");
  EXPECT_TRUE(half.count("bf16"));
  EXPECT_FALSE(half.count("f16"));
}

TEST(Fragments, SelectionByOpsTypesChipAndPurpose) {
  std::vector<Fragment> library = {
      fragment("vec128", {"elementwise", "vector", "f32"}),
      fragment("expf", {"exp", "softmax", "elementwise", "f32"}),
      fragment("warp-max", {"reduction", "max", "softmax", "warp", "f32"}),
      fragment("hgemm", {"matmul", "mma", "f16"}),
      fragment("bulk", {"copy", "tma", "f32"}, {"sm_90"})};
  // An element-wise f32 kernel: the vector body, not the expf sequence
  // (made for exp), not the f16 tile.
  EXPECT_EQ(listed(renderFragments(library, "sm_90",
                                   {"elementwise", "vector", "f32"}, 6000)),
            (std::vector<std::string>{"vec128"}));
  // A softmax: most shared words first.
  EXPECT_EQ(listed(renderFragments(
                library, "sm_90",
                {"reduction", "max", "sum", "exp", "softmax", "f32"}, 6000)),
            (std::vector<std::string>{"warp-max", "expf"}));
  // sm_90a takes what runs on sm_90; sm_80 does not take an sm_90 one.
  EXPECT_EQ(listed(renderFragments(library, "sm_90a", {"tma", "f32"}, 6000)),
            (std::vector<std::string>{"bulk"}));
  EXPECT_TRUE(renderFragments(library, "sm_80", {"tma", "f32"}, 6000).empty());
  // The budget: nothing that does not fit.
  EXPECT_TRUE(
      renderFragments(library, "sm_90", {"elementwise", "vector", "f32"}, 50)
          .empty());
}

} // namespace
