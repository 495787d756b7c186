//===- BundleFromFactsTest.cpp - Bundles from a kernel's facts --*- C++ -*-===//

#include "llmptx/Pipeline/BundleFromFacts.h"

#include "gtest/gtest.h"

using namespace llmptx;

namespace {

const char *kReferencePtx = ".version 7.8\n.target sm_90\n";

/// The lowered parameters of `kernel.args`, as KernelFacts derives them.
void lowerSignature(KernelDescription &kernel) {
  kernel.abi.params.clear();
  auto param = [&](ptx::AbiRole role, unsigned arg, unsigned dim) {
    ptx::AbiParam p;
    p.role = role;
    p.argIndex = arg;
    p.dim = dim;
    p.ptxType = ".u64";
    p.sizeBytes = p.alignBytes = 8;
    kernel.abi.params.push_back(p);
  };
  for (unsigned arg = 0; arg < kernel.args.size(); ++arg) {
    if (!kernel.args[arg].isMemref) {
      param(ptx::AbiRole::Scalar, arg, 0);
      continue;
    }
    param(ptx::AbiRole::MemrefAllocatedPointer, arg, 0);
    param(ptx::AbiRole::MemrefAlignedPointer, arg, 0);
    param(ptx::AbiRole::MemrefOffset, arg, 0);
    for (unsigned dim = 0; dim < kernel.args[arg].shape.size(); ++dim)
      param(ptx::AbiRole::MemrefSize, arg, dim);
    for (unsigned dim = 0; dim < kernel.args[arg].shape.size(); ++dim)
      param(ptx::AbiRole::MemrefStride, arg, dim);
  }
}

/// vadd(%a, %b, %c: memref<?xf32>, %n: index) with its lowered ABI.
KernelDescription vaddDescription() {
  KernelDescription kernel;
  kernel.name = "vadd";
  kernel.referencePtx = kReferencePtx;
  for (const char *access : {"read", "read", "write"}) {
    ArgumentInfo arg;
    arg.isMemref = true;
    arg.mlirType = "memref<?xf32>";
    arg.element = "f32";
    arg.shape = {-1};
    arg.access = access;
    kernel.args.push_back(arg);
  }
  ArgumentInfo n;
  n.mlirType = "index";
  n.element = "i64";
  kernel.args.push_back(n);
  lowerSignature(kernel);
  kernel.abi.entryName = "vadd";
  kernel.blockSize = {256, 1, 1};
  return kernel;
}

/// The message of the bundle that cannot be built ("" when it can).
static std::string missingFact(const KernelDescription &kernel) {
  llvm::Expected<runtime::VerificationBundle> bundle =
      buildBundle(kernel, "sm_90", {});
  if (bundle)
    return "";
  return llvm::toString(bundle.takeError());
}

TEST(BundleFromFacts, NoFactsNamesWhatIsMissing) {
  KernelDescription kernel = vaddDescription();
  EXPECT_NE(missingFact(kernel).find("no launch facts"), std::string::npos);
}

TEST(BundleFromFacts, MissingScalarValueIsNamed) {
  KernelDescription kernel = vaddDescription();
  HarnessFacts harness;
  harness.sizes = {"N"};
  harness.args = {"N", "N", "N"};
  harness.hasGrid = true;
  harness.grid = {"ceildiv(N, 256)", "1", "1"};
  kernel.harness = harness;
  EXPECT_NE(missingFact(kernel).find("no value for scalar %arg3"),
            std::string::npos);
}

TEST(BundleFromFacts, HarnessGivesSizesRolesParamsAndSpecials) {
  KernelDescription kernel = vaddDescription();
  HarnessFacts harness;
  harness.sizes = {"N"};
  harness.args = {"N", "N", "N", "N"};
  harness.hasGrid = true;
  harness.grid = {"ceildiv(N, 256)", "1", "1"};
  harness.align = 16;
  kernel.harness = harness;
  llvm::Expected<runtime::VerificationBundle> bundle =
      buildBundle(kernel, "sm_90", {});
  ASSERT_TRUE(bool(bundle)) << llvm::toString(bundle.takeError());
  ASSERT_EQ(bundle->buffers.size(), 3u);
  EXPECT_EQ(bundle->buffers[0].role, runtime::BufferRole::Input);
  EXPECT_EQ(bundle->buffers[2].role, runtime::BufferRole::Output);
  EXPECT_EQ(bundle->buffers[0].shape, std::vector<std::string>{"N"});
  EXPECT_EQ(bundle->buffers[0].alignment, 16u);
  ASSERT_TRUE(bundle->buffers[0].init);
  EXPECT_TRUE(bundle->buffers[0].init->special);
  EXPECT_FALSE(bundle->buffers[2].init); // outputs are poisoned, not filled
  ASSERT_EQ(bundle->params.size(), 16u);
  EXPECT_EQ(bundle->params[15].role, runtime::ParamRole::Scalar);
  EXPECT_EQ(bundle->params[15].value, "N");
  EXPECT_EQ(bundle->launch.block[0], "256");
  EXPECT_EQ(bundle->launch.grid[0], "ceildiv(N, 256)");
  // The default shapes include 1, non-multiples of the block and a large
  // size.
  std::vector<int64_t> sizes;
  for (const runtime::SizeBindings &shape : bundle->shapes)
    sizes.push_back(shape.at("N"));
  EXPECT_EQ(sizes.front(), 1);
  EXPECT_TRUE(llvm::is_contained(sizes, 97));
  EXPECT_GT(sizes.back(), 1000000);
}

TEST(BundleFromFacts, DynamicStridesAreTestedWithGaps) {
  KernelDescription kernel = vaddDescription();
  kernel.args[2].mlirType = "memref<?x?xf32, strided<[?, ?], offset: ?>>";
  kernel.args[2].shape = {-1, -1};
  kernel.args[2].strides = {-1, -1};
  kernel.args[2].offset = -1;
  HarnessFacts harness;
  harness.sizes = {"M", "N"};
  harness.args = {"M", "M", "M, N", "M"};
  harness.hasGrid = true;
  harness.grid = {"M", "1", "1"};
  kernel.harness = harness;
  lowerSignature(kernel);
  llvm::Expected<runtime::VerificationBundle> bundle =
      buildBundle(kernel, "sm_90", {});
  ASSERT_TRUE(bool(bundle)) << llvm::toString(bundle.takeError());
  const runtime::BufferSpec &view = bundle->buffers[2];
  EXPECT_EQ(view.shape, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(view.strides, (std::vector<std::string>{"(N) * (2)", "2"}));
  EXPECT_EQ(view.offset, "any");
}

TEST(BundleFromFacts, DefaultShapesStayUnderTheCap) {
  for (const runtime::SizeBindings &shape : defaultShapes({"M", "N", "K"})) {
    int64_t product = shape.at("M") * shape.at("N") * shape.at("K");
    EXPECT_LE(product, int64_t(1) << 24);
  }
  EXPECT_EQ(defaultShapes({"N"}).front().at("N"), 1);
}

} // namespace

namespace {

TEST(BundleFromFacts, StatedFactsAreTestedAtTheirEdge) {
  KernelDescription kernel = vaddDescription();
  HarnessFacts harness;
  harness.sizes = {"N"};
  harness.args = {"N", "N", "N", "N"};
  harness.hasGrid = true;
  harness.grid = {"ceildiv(N, 256)", "1", "1"};
  harness.divisible = {{"N", 4}};
  harness.ranges = {{0, {0.0, 1.0}}};
  kernel.harness = harness;
  llvm::Expected<runtime::VerificationBundle> bundle =
      buildBundle(kernel, "sm_90", {});
  ASSERT_TRUE(bool(bundle)) << llvm::toString(bundle.takeError());
  // Every size is a multiple of 4, the smallest (4) included.
  ASSERT_FALSE(bundle->shapes.empty());
  EXPECT_EQ(bundle->shapes.front().at("N"), 4);
  for (const runtime::SizeBindings &shape : bundle->shapes)
    EXPECT_EQ(shape.at("N") % 4, 0);
  // %arg0 spans [0, 1) without special values; %arg1 keeps them.
  ASSERT_TRUE(bundle->buffers[0].init);
  EXPECT_FALSE(bundle->buffers[0].init->special);
  EXPECT_EQ(bundle->buffers[0].init->lo, 0.0);
  EXPECT_EQ(bundle->buffers[0].init->hi, 1.0);
  ASSERT_TRUE(bundle->buffers[1].init);
  EXPECT_TRUE(bundle->buffers[1].init->special);
}

} // namespace

namespace {

TEST(BundleFromFacts, DimensionsSplitAtTopLevelCommasOnly) {
  KernelDescription kernel = vaddDescription();
  kernel.args[2].shape = {-1, -1};
  lowerSignature(kernel);
  HarnessFacts harness;
  harness.sizes = {"N"};
  harness.args = {"N", "N", "min(ceildiv(N, 256), 1024), N", "N"};
  harness.hasGrid = true;
  harness.grid = {"ceildiv(N, 256)", "1", "1"};
  harness.ulp = 2;
  kernel.harness = harness;
  llvm::Expected<runtime::VerificationBundle> bundle =
      buildBundle(kernel, "sm_90", {});
  ASSERT_TRUE(bool(bundle)) << llvm::toString(bundle.takeError());
  EXPECT_EQ(bundle->buffers[2].shape,
            (std::vector<std::string>{"min(ceildiv(N, 256), 1024)", "N"}));
  // The tolerance applies to outputs only; inputs must come back unchanged.
  EXPECT_EQ(bundle->buffers[2].tolerance.ulp, 2u);
  EXPECT_EQ(bundle->buffers[0].tolerance.ulp, 0u);
}

} // namespace
