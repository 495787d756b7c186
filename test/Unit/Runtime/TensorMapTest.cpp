//===- TensorMapTest.cpp - Tensor map requests and their limits -*- C++ -*-===//
//
// The limits of cuTensorMapEncodeTiled, checked before the driver sees a
// request, each naming its field; the arguments in the driver's order
// (innermost first, strides in bytes); and a bundle's maps round-tripping.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/TensorMap.h"
#include "llmptx/Runtime/Bundle.h"

#include "gtest/gtest.h"

using namespace llmptx::runtime;

namespace {

TensorMapSpec tile(std::vector<uint32_t> box, std::string swizzle = "128B") {
  TensorMapSpec spec;
  spec.name = "tmA";
  spec.buffer = "a";
  spec.box = std::move(box);
  spec.swizzle = std::move(swizzle);
  return spec;
}

TEST(TensorMapTest, RequestLimitsNameTheField) {
  EXPECT_FALSE(checkTensorMapSpec(tile({128, 64}), ElementType::F16, 2));
  EXPECT_EQ(checkTensorMapSpec(tile({128, 128}), ElementType::F16, 2),
            "box[1]: the innermost box is 256 bytes, wider than the 128B "
            "swizzle span");
  EXPECT_EQ(checkTensorMapSpec(tile({512, 64}), ElementType::F16, 2),
            "box[0]: 512 is not in 1..256");
  EXPECT_EQ(checkTensorMapSpec(tile({64, 4}, "none"), ElementType::F16, 2),
            "box[1]: the innermost box is 8 bytes, not a multiple of 16");
  EXPECT_EQ(checkTensorMapSpec(tile({64}), ElementType::F16, 2),
            "box: 1 entries for a buffer of rank 2 (one per dimension, "
            "outermost first)");
  EXPECT_EQ(checkTensorMapSpec(tile({64, 64}, "96B"), ElementType::F16, 2),
            "swizzle: '96B' is not none, 32B, 64B or 128B");
  TensorMapSpec nan = tile({64, 64});
  nan.oobFill = "nan";
  EXPECT_EQ(checkTensorMapSpec(nan, ElementType::I32, 2),
            "oob_fill: nan needs a float element type");
  TensorMapSpec interleaved = tile({4, 64, 64}, "none");
  interleaved.interleave = "32B";
  EXPECT_FALSE(checkTensorMapSpec(interleaved, ElementType::F16, 3));
  EXPECT_EQ(tensorMapBaseAlignment(interleaved), 32u);
}

TEST(TensorMapTest, ArgumentsInnermostFirst) {
  // A 1024 x 4096 f16 row-major matrix, rows padded to 4104 elements.
  ValueOrError<TensorMapArgs> args = tensorMapArgs(
      tile({128, 64}), ElementType::F16, {1024, 4096}, {4104, 1}, 0x10000);
  ASSERT_TRUE(args.ok()) << args.error();
  EXPECT_EQ(args->dataType, 6);
  EXPECT_EQ(args->rank, 2u);
  EXPECT_EQ(args->globalDim[0], 4096u);
  EXPECT_EQ(args->globalDim[1], 1024u);
  EXPECT_EQ(args->globalStrides[0], 4104u * 2);
  EXPECT_EQ(args->boxDim[0], 64u);
  EXPECT_EQ(args->boxDim[1], 128u);
  EXPECT_EQ(args->swizzle, 3);
}

TEST(TensorMapTest, LayoutsTheDriverRefuses) {
  EXPECT_EQ(
      tensorMapArgs(tile({64, 64}), ElementType::F16, {64, 100}, {100, 1}, 0)
          .error(),
      "stride 0 is 200 bytes; a tensor map needs a multiple of 16 "
      "below 2^40");
  EXPECT_EQ(
      tensorMapArgs(tile({64, 64}), ElementType::F16, {64, 64}, {1, 64}, 0)
          .error(),
      "the innermost stride is 64 elements; a tensor map needs it 1");
  EXPECT_EQ(
      tensorMapArgs(tile({64, 64}), ElementType::F16, {64, 64}, {64, 1}, 8)
          .error(),
      "the first element's address is not 16-byte aligned (offset 8)");
}

TEST(TensorMapTest, BundleRoundTrip) {
  const char *json = R"({
    "format": "llmptx-verification-bundle", "version": 1,
    "kernel": "k", "sizes": ["N"], "shapes": [{"N": 64}],
    "launch": {"grid": [1, 1, 1], "block": [128, 1, 1]},
    "buffers": [{"name": "a", "element": "f16", "shape": ["N", "N"],
                 "role": "input"},
                {"name": "c", "element": "f32", "shape": ["N"],
                 "role": "output"}],
    "params": [{"role": "aligned_ptr", "buffer": "a"},
               {"role": "aligned_ptr", "buffer": "c"}],
    "reference": {"entry": "k", "ptx": ".version 8.0"},
    "candidates": [{"name": "s0r0", "entry": "k", "ptx": ".version 8.0",
                    "tensor_maps": [{"name": "tmA", "buffer": "a",
                                     "box": [64, 64], "swizzle": "128B"}]}]})";
  auto bundle = parseBundleJson(json);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  ASSERT_EQ(bundle->candidates[0].tensorMaps.size(), 1u);
  EXPECT_EQ(bundle->candidates[0].tensorMaps[0].box[1], 64u);
  EXPECT_EQ(bundle->candidates[0].tensorMaps[0].l2Promotion, "none");
  auto again = parseBundleJson(writeBundleJson(*bundle));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->candidates[0].tensorMaps[0].swizzle, "128B");

  std::string wide = json;
  wide.replace(wide.find("[64, 64]"), 8, "[64, 128]");
  auto refused = parseBundleJson(wide);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(),
            "$.candidates[0].tensor_maps[0]: box[1]: the innermost box is 256 "
            "bytes, wider than the 128B swizzle span");
}

} // namespace
