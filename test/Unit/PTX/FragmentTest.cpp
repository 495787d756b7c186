//===- FragmentTest.cpp - Fragment files, their uses and requirements -----===//

#include "llmptx/PTX/Fragment.h"
#include "llmptx/PTX/Parser.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

constexpr const char *WarpMax =
    "//! name: warp-max-f32\n//! does: a max\n//! chips: sm_80, sm_90\n"
    "//! ptx: 7.0\n//! ops: reduction, max, warp, f32\n"
    "//! requires: warps\n"
    "\tshfl.sync.bfly.b32 %t, %f1, 16, 31, -1;\n\tmax.NaN.f32 %f1, %f1, "
    "%t;\n\tshfl.sync.bfly.b32 %t, %f1, 8, 31, -1;\n\tmax.NaN.f32 %f1, "
    "%f1, %t;\n\n";

TEST(Fragment, ParsesTheHeaderAndTheLines) {
  llvm::Expected<Fragment> parsed = parseFragment(WarpMax, "warp-max-f32.ptx");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->name, "warp-max-f32");
  EXPECT_EQ(parsed->chips, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(parsed->ops,
            (std::set<std::string>{"reduction", "max", "warp", "f32"}));
  ASSERT_EQ(parsed->requirements.size(), 1u);
  EXPECT_EQ(parsed->requirements[0].kind, FragmentRequirement::Warps);
  EXPECT_EQ(parsed->text, "\tshfl.sync.bfly.b32 %t, %f1, 16, 31, -1;\n"
                          "\tmax.NaN.f32 %f1, %f1, %t;\n"
                          "\tshfl.sync.bfly.b32 %t, %f1, 8, 31, -1;\n"
                          "\tmax.NaN.f32 %f1, %f1, %t;\n");
}

TEST(Fragment, BadHeadersAreErrorsWithTheirLine) {
  llvm::Expected<Fragment> colour =
      parseFragment("//! name: x\n//! colour: red\n", "x.ptx");
  ASSERT_FALSE(bool(colour));
  EXPECT_EQ(llvm::toString(colour.takeError()),
            "x.ptx:2: unknown fragment header 'colour'");
  llvm::Expected<Fragment> requirement =
      parseFragment("//! name: x\n//! requires: align 16, blocks 4\n", "x.ptx");
  ASSERT_FALSE(bool(requirement));
  EXPECT_EQ(llvm::toString(requirement.takeError()),
            "x.ptx:2: unknown requirement 'blocks 4' (align N, block N, "
            "warps or nothing)");
}

TEST(Fragment, UsesAreFoundRenamedAndNotWhenChanged) {
  llvm::Expected<Fragment> fragment = parseFragment(WarpMax, "w.ptx");
  ASSERT_TRUE(bool(fragment));
  std::vector<Fragment> library = {*fragment};
  // Renamed registers: still the fragment; instruction 1..4 of the body.
  std::string renamed =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k()\n{\n.reg .f32 %v<3>;\n\tmov.f32 %v1, 0f00000000;\n"
      "\tshfl.sync.bfly.b32 %v2, %v1, 16, 31, -1;\n"
      "\tmax.NaN.f32 %v1, %v1, %v2;\n"
      "\tshfl.sync.bfly.b32 %v2, %v1, 8, 31, -1;\n"
      "\tmax.NaN.f32 %v1, %v1, %v2;\n\tret;\n}\n";
  ParseResult parsed = parsePtx(renamed);
  ASSERT_TRUE(parsed.ok());
  std::vector<FragmentUse> uses = findFragmentUses(parsed.module, library);
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].fragment->name, "warp-max-f32");
  EXPECT_EQ(uses[0].first, 1u);
  EXPECT_EQ(uses[0].last, 4u);
  // max.f32 instead of max.NaN.f32 is another computation.
  std::string changed = renamed;
  for (size_t at; (at = changed.find("max.NaN")) != std::string::npos;)
    changed.replace(at, 7, "max");
  ParseResult other = parsePtx(changed);
  EXPECT_TRUE(findFragmentUses(other.module, library).empty());
}

TEST(Fragment, RequirementsAgainstStatedFacts) {
  FragmentRequirement align{FragmentRequirement::Align, 16, "align 16"};
  FragmentRequirement block{FragmentRequirement::Block, 256, "block 256"};
  FragmentRequirement warps{FragmentRequirement::Warps, 0, "warps"};
  KernelLaunchFacts stated{256, 16};
  EXPECT_FALSE(unmetRequirement(align, stated));
  EXPECT_FALSE(unmetRequirement(block, stated));
  EXPECT_FALSE(unmetRequirement(warps, stated));
  KernelLaunchFacts loose{96 + 4, 4};
  EXPECT_EQ(unmetRequirement(align, loose),
            "the kernel states 4-byte alignment");
  EXPECT_EQ(unmetRequirement(block, loose),
            "the kernel runs 100 threads per block");
  EXPECT_EQ(unmetRequirement(warps, loose),
            "the kernel runs 100 threads per block, not whole warps");
  EXPECT_EQ(unmetRequirement(align, KernelLaunchFacts{}),
            "the kernel states no buffer alignment");
}

constexpr const char *MbarInit =
    "//! name: mbar-init\n//! language: cuda\n//! does: init\n"
    "//! chips: sm_90a\n//! ptx: 8.0\n//! ops: tma\n//! requires: block 384\n"
    "//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt)\n"
    "__device__ void mbar_init(unsigned bar, unsigned count) {\n"
    "  asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" ::\"r\"(bar), "
    "\"r\"(count));\n"
    "}\n";

TEST(Fragment, CudaFragmentsAreDotCuFilesFoundByTheirLines) {
  llvm::Expected<Fragment> fragment = parseFragment(MbarInit, "mbar-init.cu");
  ASSERT_TRUE(bool(fragment)) << llvm::toString(fragment.takeError());
  EXPECT_EQ(fragment->language, FragmentLanguage::CUDA);
  // The language and the file name agree, or it is an error.
  llvm::Expected<Fragment> asPtx = parseFragment(MbarInit, "mbar-init.ptx");
  ASSERT_FALSE(bool(asPtx));
  EXPECT_EQ(llvm::toString(asPtx.takeError()),
            "mbar-init.ptx: a CUDA fragment (language: cuda) is a .cu file");
  llvm::Expected<Fragment> unnamed = parseFragment(
      "//! name: x\n//! chips: sm_90a\n//! ops: tma\nint x;\n", "x.cu");
  ASSERT_FALSE(bool(unnamed));
  EXPECT_EQ(llvm::toString(unnamed.takeError()),
            "x.cu: a .cu fragment needs 'language: cuda'");
  llvm::Expected<Fragment> other =
      parseFragment("//! name: x\n//! language: rust\n", "x.cu");
  ASSERT_FALSE(bool(other));
  EXPECT_EQ(llvm::toString(other.takeError()),
            "x.cu:2: language: expected ptx or cuda, got 'rust'");

  // Found re-indented, at its lines; not when a line differs.
  std::vector<Fragment> library = {*fragment};
  std::string source =
      "#include <cuda_fp16.h>\n"
      "  __device__ void mbar_init(unsigned bar, unsigned count) {\n"
      "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" "
      "::\"r\"(bar), \"r\"(count));\n"
      "  }\n"
      "extern \"C\" __global__ void k() {}\n";
  std::vector<CudaFragmentUse> uses = findCudaFragmentUses(source, library);
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].firstLine, 2u);
  EXPECT_EQ(uses[0].lastLine, 4u);
  std::string changed = source;
  changed.replace(changed.find("b64"), 3, "b32");
  EXPECT_TRUE(findCudaFragmentUses(changed, library).empty());
  // A PTX module never runs a CUDA fragment, whatever its text.
  ParseResult parsed = parsePtx(".version 8.0\n.target sm_90a\n"
                                ".address_size 64\n.entry k()\n{\nret;\n}\n");
  EXPECT_TRUE(findFragmentUses(parsed.module, library).empty());

  // The chip and the requirements against the facts.
  std::vector<Diagnostic> onSm90 =
      checkCudaFragmentUses(source, library, "sm_90", nullptr);
  ASSERT_EQ(onSm90.size(), 2u);
  EXPECT_EQ(onSm90[0].code, "fragment-use");
  EXPECT_EQ(onSm90[0].message,
            "lines 2-4 are fragment 'mbar-init' (proven in hgemm_tma); "
            "requires block 384 (not checked: no kernel facts given)");
  EXPECT_EQ(onSm90[1].code, "fragment-chip");
  KernelLaunchFacts facts;
  facts.blockThreads = 256;
  std::vector<Diagnostic> small =
      checkCudaFragmentUses(source, library, "sm_90a", &facts);
  ASSERT_EQ(small.size(), 2u);
  EXPECT_EQ(small[1].message, "fragment 'mbar-init' requires 'block 384': "
                              "the kernel runs 256 threads per block");
  facts.blockThreads = 384;
  EXPECT_EQ(checkCudaFragmentUses(source, library, "sm_90a", &facts).size(),
            1u);
}

} // namespace
