//===- FragmentsTest.cpp - Which fragments a prompt lists -----------------===//

#include "llmptx/LLM/Fragments.h"

#include "gtest/gtest.h"

using namespace llmptx::llm;
using llmptx::ptx::Fragment;

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
  // A maximum whose adds are index arithmetic is no sum.
  std::set<std::string> rowmax = kernelOps(
      "%pm = scf.for %j = %tid to %n step %c256 iter_args(%m = %ninf) -> "
      "(f32) {\n  %mm = arith.maximumf %m, %v : f32\n}\n"
      "%o = arith.addi %tid, %stride : index\n");
  EXPECT_TRUE(rowmax.count("max"));
  EXPECT_FALSE(rowmax.count("sum"));
  EXPECT_TRUE(vadd.count("vector"));
  EXPECT_FALSE(vadd.count("reduction"));
  std::set<std::string> half = kernelOps("memref<?xbf16>");
  EXPECT_TRUE(half.count("bf16"));
  EXPECT_FALSE(half.count("f16"));
}

// The loops of the suite's matrix kernels: a K loop multiplying loads of two
// matrices is a matmul (not a reduction), of a matrix and a vector a dot.
TEST(Fragments, ContractionLoops) {
  std::set<std::string> hgemm = kernelOps(
      "gpu.func @hgemm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: "
      "memref<?x?xf32>) kernel attributes {known_block_size = array<i32: "
      "128, 1, 1>} {\n"
      "  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %zero) -> "
      "(f32) {\n"
      "    %x = memref.load %a[%row, %kk] : memref<?x?xf16>\n"
      "    %y = memref.load %b[%kk, %col] : memref<?x?xf16>\n"
      "    %p = arith.mulf %xf, %yf : f32\n"
      "    %q = arith.addf %s, %p : f32\n"
      "    scf.yield %q : f32\n  }\n}");
  for (const char *word : {"matmul", "mma", "f16", "f32"})
    EXPECT_TRUE(hgemm.count(word)) << word;
  // Not a reduction to fragment, and no i32 from the block-size array.
  for (const char *word : {"reduction", "sum", "dot", "i32", "elementwise"})
    EXPECT_FALSE(hgemm.count(word)) << word;

  std::set<std::string> gemv = kernelOps(
      "%acc = scf.for %kk = %lane to %k step %c32 iter_args(%s = %zero) -> "
      "(i32) {\n"
      "  %av = memref.load %a[%row, %kk] : memref<?x?xi8>\n"
      "  %xv = memref.load %x[%kk] : memref<?xi8>\n"
      "  %p = arith.muli %ae, %xe : i32\n  %q = arith.addi %s, %p : i32\n"
      "  scf.yield %q : i32\n}\nmemref.store %t, %y[%row] : memref<?xi32>");
  for (const char *word : {"dot", "reduction", "sum", "i8", "i32"})
    EXPECT_TRUE(gemv.count(word)) << word;
  EXPECT_FALSE(gemv.count("matmul"));

  // The same element of two matrices: a row-wise dot, not a matmul.
  std::set<std::string> rows = kernelOps(
      "%acc = scf.for %kk = %lane to %k step %c32 iter_args(%s = %zero) -> "
      "(i32) {\n"
      "  %av = memref.load %a[%row, %kk] : memref<?x?xi8>\n"
      "  %bv = memref.load %b[%row, %kk] : memref<?x?xi8>\n"
      "  %p = arith.muli %aw, %bw : i32\n  %t = arith.addi %s, %p : i32\n"
      "  scf.yield %t : i32\n}");
  EXPECT_TRUE(rows.count("dot"));
  EXPECT_FALSE(rows.count("matmul"));

  // A variance loop multiplies one memref's loads: a reduction.
  std::set<std::string> variance = kernelOps(
      "%pq = scf.for %j = %tid to %n step %c256 iter_args(%s = %zero) -> "
      "(f32) {\n"
      "  %v = memref.load %x[%row, %j] : memref<?x?xf32>\n"
      "  %d = arith.subf %v, %mean : f32\n  %p = arith.mulf %d, %d : f32\n"
      "  %q = arith.addf %s, %p : f32\n  scf.yield %q : f32\n}");
  EXPECT_TRUE(variance.count("reduction"));
  EXPECT_FALSE(variance.count("matmul"));
  EXPECT_FALSE(variance.count("dot"));

  // Hopper bulk copies written with NVVM ops.
  std::set<std::string> bulk = kernelOps(
      "nvvm.cp.async.bulk.shared.cluster.global %tilec, %xg, %barp, %bytes "
      ": !llvm.ptr<7>, !llvm.ptr<1>\n%v = memref.load %tile[%j] : "
      "memref<4096xf32, #gpu.address_space<workgroup>>");
  for (const char *word : {"tma", "copy", "async", "f32"})
    EXPECT_TRUE(bulk.count(word)) << word;
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
  // On sm_90a the fragments made for sm_90a come before those that only
  // run there.
  library.push_back(fragment("wgmma", {"matmul", "mma", "f16"}, {"sm_90a"}));
  EXPECT_EQ(listed(renderFragments(library, "sm_90a",
                                   {"matmul", "mma", "f16", "f32"}, 6000)),
            (std::vector<std::string>{"wgmma", "hgemm"}));
  EXPECT_EQ(listed(renderFragments(library, "sm_90",
                                   {"matmul", "mma", "f16", "f32"}, 6000)),
            (std::vector<std::string>{"hgemm"}));
  // The budget: nothing that does not fit.
  EXPECT_TRUE(
      renderFragments(library, "sm_90", {"elementwise", "vector", "f32"}, 50)
          .empty());
}

TEST(Fragments, CudaPromptsListCudaFragmentsAndAttentionIsAKind) {
  auto cuda = [](std::string name, std::set<std::string> ops) {
    Fragment result = fragment(std::move(name), std::move(ops), {"sm_90a"});
    result.language = llmptx::ptx::FragmentLanguage::CUDA;
    result.text = "__device__ void f() {}\n";
    return result;
  };
  std::vector<Fragment> library = {
      fragment("wgmma-ptx", {"matmul", "mma", "f16"}, {"sm_90a"}),
      cuda("tma-gemm", {"matmul", "mma", "tma"}),
      cuda("softmax-tile", {"attention", "softmax", "exp", "max"})};
  std::set<std::string> gemm = {"matmul", "mma", "f16", "f32"};
  std::set<std::string> attention = {"matmul",  "mma",       "exp", "max",
                                     "softmax", "attention", "f16", "f32"};
  // Each language lists its own fragments only.
  EXPECT_EQ(listed(renderFragments(library, "sm_90a", gemm, 6000)),
            (std::vector<std::string>{"wgmma-ptx"}));
  std::string section = renderFragments(library, "sm_90a", gemm, 6000,
                                        llmptx::ptx::FragmentLanguage::CUDA);
  EXPECT_EQ(listed(section), (std::vector<std::string>{"tma-gemm"}));
  EXPECT_NE(section.find("```cuda\n__device__ void f() {}\n```"),
            std::string::npos);
  // An attention fragment is for attention kernels only, however many words
  // it shares with a GEMM or a softmax; an attention kernel lists it first.
  EXPECT_EQ(listed(renderFragments(library, "sm_90a",
                                   {"reduction", "exp", "max", "softmax"}, 6000,
                                   llmptx::ptx::FragmentLanguage::CUDA)),
            (std::vector<std::string>{}));
  EXPECT_EQ(listed(renderFragments(library, "sm_90a", attention, 6000,
                                   llmptx::ptx::FragmentLanguage::CUDA)),
            (std::vector<std::string>{"softmax-tile", "tma-gemm"}));
  // CUDA fragments run on sm_90a only: an sm_90 CUDA prompt lists none.
  EXPECT_TRUE(renderFragments(library, "sm_90", gemm, 6000,
                              llmptx::ptx::FragmentLanguage::CUDA)
                  .empty());
}

TEST(Fragments, AttentionIsAMatmulUnderExpAndMax) {
  std::set<std::string> ops = kernelOps(R"(
    %m = scf.for %j = %c0 to %n step %c1 iter_args(%mx = %ninf) -> (f32) {
      %dot = scf.for %d = %c0 to %cD step %c1 iter_args(%t = %zero) -> (f32) {
        %a = memref.load %q[%bh, %row, %d] : memref<?x?x64xf16>
        %b = memref.load %k[%bh, %j, %d] : memref<?x?x64xf16>
        %p = arith.mulf %a, %b : f16
        scf.yield %p : f32
      }
      %nm = arith.maximumf %mx, %dot : f32
      %w = math.exp %nm : f32
      scf.yield %nm : f32
    })");
  EXPECT_TRUE(ops.count("attention"));
  EXPECT_TRUE(ops.count("matmul"));
  // A softmax (no products of two matrices) and a GEMM (no exp) are not.
  EXPECT_FALSE(kernelOps("%r = scf.for %i = %a to %b step %c iter_args(%s = "
                         "%z) -> (f32) {\n math.exp arith.maximumf }")
                   .count("attention"));
  EXPECT_FALSE(kernelOps("linalg.matmul arith.maximumf").count("attention"));
}

} // namespace
