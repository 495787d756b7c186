//===- PlanTest.cpp - Layouts, parameters and launches per shape ----------===//

#include "llmptx/Runtime/Plan.h"
#include "TestBundles.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace llmptx::runtime;
using llmptx::runtime::testing::stridedBundle;
using llmptx::runtime::testing::vaddBundle;

namespace {

uint64_t immediate(const ParamSlot &slot) {
  uint64_t value = 0;
  std::memcpy(&value, slot.bytes.data(), slot.bytes.size());
  return value;
}

TEST(PlanTest, VaddLayoutsAtTheStatedAlignment) {
  VerificationBundle bundle = vaddBundle();
  auto plan = planShape(bundle, 1, 0);
  ASSERT_TRUE(plan.ok()) << plan.error();
  ASSERT_EQ(plan->buffers.size(), 3u);
  const BufferLayout &c = plan->buffers[2];
  EXPECT_EQ(c.elementCount, 97u);
  EXPECT_EQ(c.offset, 0);
  EXPECT_TRUE(c.contiguous);
  // 4-byte aligned and not 8-byte aligned: exactly the stated fact.
  EXPECT_EQ(c.alignedByteOffset, kGuardBytes + 4);
  EXPECT_EQ(c.alignedByteOffset % 8, 4u);
  EXPECT_EQ(c.allocationBytes % 256, 0u);
  EXPECT_GE(c.allocationBytes, c.alignedByteOffset + 97 * 4 + kGuardBytes);
  EXPECT_EQ(c.elementByteOffset(96), kGuardBytes + 4 + 96 * 4);
  EXPECT_EQ(offsetVariantCount(bundle), 1u);
  EXPECT_EQ(plan->describe(bundle), "N=97");
}

TEST(PlanTest, ParametersFollowTheAbi) {
  VerificationBundle bundle = vaddBundle();
  auto plan = planShape(bundle, 1, 0);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->params.size(), 15u);
  // a: allocated, aligned, offset, size, stride.
  EXPECT_EQ(plan->params[0].kind, ParamSlot::Kind::BufferAddress);
  EXPECT_EQ(plan->params[0].byteOffset, 0u);
  EXPECT_EQ(plan->params[1].byteOffset, kGuardBytes + 4);
  EXPECT_EQ(immediate(plan->params[2]), 0u);
  EXPECT_EQ(immediate(plan->params[3]), 97u);
  EXPECT_EQ(immediate(plan->params[4]), 1u);
  EXPECT_EQ(plan->params[10].buffer, 2u); // c's allocated pointer
  for (const ParamSlot &slot : plan->params)
    EXPECT_EQ(slot.byteSize(), 8u);
}

TEST(PlanTest, LaunchDimensionsPerShape) {
  VerificationBundle bundle = vaddBundle();
  auto one = planShape(bundle, 0, 0);
  auto many = planShape(bundle, 2, 0);
  ASSERT_TRUE(one.ok() && many.ok());
  EXPECT_EQ(one->referenceLaunch.grid[0], 1u);
  EXPECT_EQ(many->referenceLaunch.grid[0], 4u);
  EXPECT_EQ(many->referenceLaunch.block[0], 256u);
  EXPECT_EQ(many->referenceLaunch.describe(),
            "grid (4, 1, 1) block (256, 1, 1)");
  ASSERT_EQ(many->candidateLaunches.size(), 1u);
  EXPECT_EQ(many->candidateLaunches[0].grid[0], 4u);

  bundle.candidates[0].launch =
      LaunchSpec{{"ceildiv(N, 1024)", "1", "1"}, {"256", "1", "1"}, "N * 4"};
  auto overridden = planShape(bundle, 2, 0);
  ASSERT_TRUE(overridden.ok());
  EXPECT_EQ(overridden->candidateLaunches[0].grid[0], 1u);
  EXPECT_EQ(overridden->candidateLaunches[0].dynamicSharedBytes, 4000u);
  EXPECT_EQ(overridden->referenceLaunch.grid[0], 4u);

  bundle.shapes.push_back({{"N", 0}});
  auto empty = planShape(bundle, 3, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->referenceLaunch.empty());
}

TEST(PlanTest, AnyOffsetGivesTwoVariantsWithDistinctOffsets) {
  VerificationBundle bundle = stridedBundle();
  EXPECT_EQ(offsetVariantCount(bundle), 2u);
  auto zero = planShape(bundle, 0, 0);
  auto shifted = planShape(bundle, 0, 1);
  ASSERT_TRUE(zero.ok() && shifted.ok());
  EXPECT_EQ(zero->buffers[0].offset, 0);
  EXPECT_EQ(shifted->buffers[0].offset, kNonZeroOffset);
  EXPECT_EQ(shifted->buffers[1].offset, kNonZeroOffset + 2);
  EXPECT_EQ(shifted->describe(bundle), "M=3 N=5 K=7, offsets a=3 c=5");
  // The offset parameter carries it; the aligned pointer does not move.
  EXPECT_EQ(immediate(shifted->params[2]), 3u);
  EXPECT_EQ(shifted->params[1].byteOffset, zero->params[1].byteOffset);
  // The allocation grows by the offset.
  EXPECT_EQ(shifted->buffers[1].firstElementByteOffset(),
            shifted->buffers[1].alignedByteOffset + 5 * 4);
}

TEST(PlanTest, StridedLayout) {
  VerificationBundle bundle = stridedBundle();
  auto plan = planShape(bundle, 0, 1);
  ASSERT_TRUE(plan.ok()) << plan.error();
  const BufferLayout &a = plan->buffers[0];
  EXPECT_FALSE(a.contiguous);
  EXPECT_EQ(a.elementCount, 15u);
  EXPECT_EQ(a.strides, (std::vector<int64_t>{7, 1}));
  // Row 2, column 4: offset 3 + 2 * 7 + 4 elements.
  EXPECT_EQ(a.elementByteOffset(2 * 5 + 4),
            a.alignedByteOffset + (3 + 2 * 7 + 4) * 4);
  EXPECT_EQ(a.multiIndex(14), (std::vector<int64_t>{2, 4}));
  std::vector<uint8_t> mask = a.elementMask();
  size_t elementBytes = 0;
  for (uint8_t m : mask)
    elementBytes += m;
  EXPECT_EQ(elementBytes, 15u * 4);
  EXPECT_EQ(mask[a.elementByteOffset(5)], 1);
  EXPECT_EQ(mask[a.elementByteOffset(4) + 4], 0); // the gap after row 0
  // size and stride parameters: dims 0 and 1.
  EXPECT_EQ(immediate(plan->params[3]), 3u);
  EXPECT_EQ(immediate(plan->params[4]), 5u);
  EXPECT_EQ(immediate(plan->params[5]), 7u);
  EXPECT_EQ(immediate(plan->params[6]), 1u);
  // The f32 scalar 2.5.
  const ParamSlot &scale = plan->params.back();
  ASSERT_EQ(scale.bytes.size(), 4u);
  EXPECT_EQ(immediate(scale), 0x40200000u);
}

TEST(PlanTest, CompulsoryBytesCountLogicalElementsByRole) {
  // The strided scale (input a and output c: M x N f32 with row stride K)
  // plus an inout, a scratch and a broadcast input.
  VerificationBundle bundle = stridedBundle();
  bundle.shapes.push_back({{"M", 1000}, {"N", 1003}, {"K", 1024}});
  auto addBuffer = [&](const char *name, ElementType element,
                       std::vector<std::string> shape,
                       std::vector<std::string> strides, BufferRole role) {
    BufferSpec buffer;
    buffer.name = name;
    buffer.element = element;
    buffer.shape = std::move(shape);
    buffer.strides = std::move(strides);
    buffer.role = role;
    bundle.buffers.push_back(buffer);
    ParamSpec pointer;
    pointer.role = ParamRole::BarePtr;
    pointer.buffer = name;
    bundle.params.push_back(pointer);
  };
  addBuffer("acc", ElementType::F64, {"N"}, {}, BufferRole::InOut);
  addBuffer("tmp", ElementType::I32, {"M", "K"}, {}, BufferRole::Scratch);
  addBuffer("row", ElementType::F16, {"M", "N"}, {"0", "1"}, BufferRole::Input);
  ASSERT_FALSE(validateBundle(bundle).has_value()) << *validateBundle(bundle);

  auto small = planShape(bundle, 0, 1);
  ASSERT_TRUE(small.ok()) << small.error();
  // a and c: 3 * 5 f32 each, whatever the row stride and the offsets; acc:
  // 5 f64 read and written; tmp: nothing; row: 15 f16 though it
  // broadcasts one row.
  EXPECT_EQ(small->compulsoryBytes(), 15u * 4 + 15u * 4 + 2 * 5u * 8 + 15u * 2);

  EXPECT_EQ(timingShapeIndex(bundle), 1u);
  auto large = compulsoryBytes(bundle, timingShapeIndex(bundle));
  ASSERT_TRUE(large.ok()) << large.error();
  EXPECT_EQ(*large, 1000u * 1003 * (4 + 4 + 2) + 2 * 1003u * 8);
  bundle.timing.shape = 0;
  EXPECT_EQ(timingShapeIndex(bundle), 0u);
  EXPECT_FALSE(compulsoryBytes(bundle, 7).ok());
}

TEST(PlanTest, FlopsAreEvaluatedPerShape) {
  VerificationBundle bundle = stridedBundle();
  auto none = planShape(bundle, 0, 0);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->flops.has_value());
  bundle.timing.flops = "2 * M * N";
  auto some = planShape(bundle, 0, 0);
  ASSERT_TRUE(some.ok()) << some.error();
  EXPECT_EQ(some->flops, std::optional<uint64_t>(30));
  bundle.timing.flops = "M - N";
  auto negative = planShape(bundle, 0, 0);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error(), "$.timing.flops: negative flop count -2 (shape "
                              "0: M=3 N=5 K=7)");
}

TEST(PlanTest, TimingPlacesPointersWhereTheAllocatorDoes) {
  VerificationBundle bundle = vaddBundle();
  auto plan = planShape(bundle, 1, 0, kGuardBytes, Placement::Allocator);
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan->placement, Placement::Allocator);
  for (const BufferLayout &layout : plan->buffers) {
    EXPECT_EQ(layout.alignedByteOffset, kGuardBytes);
    EXPECT_EQ(layout.alignedByteOffset % kMaxAlignment, 0u);
    EXPECT_GE(layout.allocationBytes, kGuardBytes + 97 * 4 + kGuardBytes);
  }
  // The checks' plan of the same shape keeps the stated 4-byte edge.
  auto stated = planShape(bundle, 1, 0);
  ASSERT_TRUE(stated.ok());
  EXPECT_EQ(stated->placement, Placement::Stated);
  EXPECT_EQ(stated->buffers[0].alignedByteOffset, kGuardBytes + 4);
}

TEST(PlanTest, TightAllocationsForTheSanitizer) {
  VerificationBundle bundle = vaddBundle();
  auto plan = planShape(bundle, 1, 0, 0);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->buffers[0].alignedByteOffset, 4u);
  EXPECT_EQ(plan->buffers[0].allocationBytes, 4u + 97 * 4);
}

TEST(PlanTest, ScalarEncoding) {
  SizeBindings n{{"N", 97}};
  auto check = [&](const char *type, const char *text, uint64_t expected) {
    auto bytes = encodeScalar(type, text, n);
    ASSERT_TRUE(bytes.ok()) << type << " " << text << ": " << bytes.error();
    EXPECT_EQ(bytes->size(), scalarTypeByteSize(type));
    uint64_t value = 0;
    std::memcpy(&value, bytes->data(), bytes->size());
    EXPECT_EQ(value, expected) << type << " " << text;
  };
  check("u32", "N", 97);
  check("i32", "-N", 0xffffff9fu);
  check("i64", "N * 2", 194);
  check("f32", "2.5", 0x40200000u);
  check("f32", "-0", 0x80000000u);
  check("f32", "N", 0x42c20000u); // 97.0
  check("f64", "inf", 0x7ff0000000000000u);
  check("f16", "1", 0x3c00u);
  check("bf16", "1.0", 0x3f80u);
  EXPECT_FALSE(encodeScalar("u32", "-1", n).ok());
  EXPECT_FALSE(encodeScalar("i8", "200", n).ok());
  EXPECT_FALSE(encodeScalar("u64", "-N", n).ok());
  EXPECT_FALSE(encodeScalar("f32", "2.5x", n).ok());
  EXPECT_EQ(encodeScalar("q32", "1", n).error(),
            "unknown scalar type 'q32' (i8 u8 i16 u16 i32 u32 i64 u64 f16 "
            "bf16 f32 f64)");
}

TEST(PlanTest, IndexParametersMayBe32Bit) {
  VerificationBundle bundle = vaddBundle();
  bundle.params[3].type = "i32";
  auto plan = planShape(bundle, 1, 0);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->params[3].byteSize(), 4u);
  EXPECT_EQ(paramByteSize(bundle.params[3]), 4u);
}

} // namespace
