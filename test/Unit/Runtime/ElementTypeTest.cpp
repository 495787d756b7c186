//===- ElementTypeTest.cpp - Element types and float conversions ----------===//

#include "llmptx/Runtime/ElementType.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmptx::runtime;

namespace {

TEST(ElementTypeTest, NamesAndSizes) {
  struct Row {
    const char *name;
    unsigned bytes;
    bool isFloat;
  } rows[] = {{"f16", 2, true},  {"bf16", 2, true}, {"f32", 4, true},
              {"f64", 8, true},  {"i1", 1, false},  {"i8", 1, false},
              {"i16", 2, false}, {"i32", 4, false}, {"i64", 8, false}};
  for (const Row &row : rows) {
    auto type = parseElementType(row.name);
    ASSERT_TRUE(type.has_value()) << row.name;
    EXPECT_STREQ(elementTypeName(*type), row.name);
    EXPECT_EQ(elementByteSize(*type), row.bytes) << row.name;
    EXPECT_EQ(isFloatType(*type), row.isFloat) << row.name;
  }
  EXPECT_FALSE(parseElementType("f8").has_value());
  EXPECT_FALSE(parseElementType("F32").has_value());
  EXPECT_FALSE(parseElementType("").has_value());
}

TEST(ElementTypeTest, LoadAndStoreTouchOnlyTheElement) {
  uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  storeElementBits(ElementType::I16, 0xbeef, bytes + 2);
  EXPECT_EQ(bytes[2], 0xef);
  EXPECT_EQ(bytes[3], 0xbe);
  EXPECT_EQ(bytes[4], 5);
  EXPECT_EQ(loadElementBits(ElementType::I16, bytes + 2), 0xbeefu);
  EXPECT_EQ(loadElementBits(ElementType::I8, bytes), 1u);
}

TEST(ElementTypeTest, HalfKnownValues) {
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 1.0), 0x3c00u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, -2.0), 0xc000u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 65504.0), 0x7bffu);
  // 65520 is the midpoint to 2^16: rounds to even, which overflows.
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 65520.0), 0x7c00u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 65519.0), 0x7bffu);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 0x1p-24), 0x0001u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 0x1p-26), 0x0000u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 0x1.8p-25), 0x0001u);
  // Halfway between the largest denormal and the smallest normal.
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 0x1.ffcp-15), 0x0400u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 0x1.ff8p-15), 0x03ffu);
  // Ties to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 1 + 0x1p-11), 0x3c00u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, 1 + 3 * 0x1p-11), 0x3c02u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, -0.0), 0x8000u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F16, INFINITY), 0x7c00u);
  EXPECT_TRUE(
      isNaNBits(ElementType::F16, doubleToFloatBits(ElementType::F16, NAN)));
  EXPECT_EQ(floatBitsToDouble(ElementType::F16, 0x0001), 0x1p-24);
  EXPECT_EQ(floatBitsToDouble(ElementType::F16, 0x3555), 0x1.554p-2);
}

TEST(ElementTypeTest, EveryHalfAndBfloatPatternRoundTrips) {
  for (ElementType type : {ElementType::F16, ElementType::BF16})
    for (uint64_t bits = 0; bits < 0x10000; ++bits) {
      double value = floatBitsToDouble(type, bits);
      if (std::isnan(value)) {
        EXPECT_TRUE(isNaNBits(type, bits));
        continue;
      }
      ASSERT_EQ(doubleToFloatBits(type, value), bits)
          << elementTypeName(type) << " " << std::hex << bits;
    }
}

TEST(ElementTypeTest, BfloatRoundsLikeTruncatedFloat) {
  EXPECT_EQ(doubleToFloatBits(ElementType::BF16, 1.0), 0x3f80u);
  EXPECT_EQ(doubleToFloatBits(ElementType::BF16, 1 + 0x1p-8), 0x3f80u);
  EXPECT_EQ(doubleToFloatBits(ElementType::BF16, 1 + 3 * 0x1p-8), 0x3f82u);
  EXPECT_EQ(doubleToFloatBits(ElementType::BF16, 0x1p-133), 0x0001u);
  EXPECT_EQ(doubleToFloatBits(ElementType::BF16, 3.4e38 * 2), 0x7f80u);
}

TEST(ElementTypeTest, FloatAndDoubleAreExact) {
  EXPECT_EQ(doubleToFloatBits(ElementType::F32, 1.0), 0x3f800000u);
  EXPECT_EQ(doubleToFloatBits(ElementType::F32, -0.0), 0x80000000u);
  EXPECT_EQ(floatBitsToDouble(ElementType::F32, 0x00000001), 0x1p-149);
  EXPECT_EQ(doubleToFloatBits(ElementType::F64, 1.0), 0x3ff0000000000000u);
  EXPECT_EQ(floatBitsToDouble(ElementType::F64, 0x8000000000000000u), 0.0);
  EXPECT_TRUE(
      std::signbit(floatBitsToDouble(ElementType::F64, 0x8000000000000000u)));
}

TEST(ElementTypeTest, Classification) {
  EXPECT_TRUE(isNaNBits(ElementType::F32, 0x7fc00000));
  EXPECT_TRUE(isNaNBits(ElementType::F32, 0xffbadbad));
  EXPECT_FALSE(isNaNBits(ElementType::F32, 0x7f800000));
  EXPECT_TRUE(isInfBits(ElementType::F32, 0xff800000));
  EXPECT_TRUE(isZeroBits(ElementType::F32, 0x80000000));
  EXPECT_TRUE(isDenormalBits(ElementType::F32, 0x007fffff));
  EXPECT_FALSE(isDenormalBits(ElementType::F32, 0x00800000));
  EXPECT_TRUE(isDenormalBits(ElementType::F16, 0x8001));
  EXPECT_TRUE(isNaNBits(ElementType::BF16, 0x7fc1));
  EXPECT_TRUE(isNaNBits(ElementType::F64, 0x7ff0000000000001));
  EXPECT_FALSE(isNaNBits(ElementType::I32, 0x7fc00000));
  EXPECT_TRUE(isZeroBits(ElementType::I32, 0));
}

TEST(ElementTypeTest, IntegersSignExtendAndTruncate) {
  EXPECT_EQ(integerBitsToSigned(ElementType::I8, 0xff), -1);
  EXPECT_EQ(integerBitsToSigned(ElementType::I16, 0x8000), -32768);
  EXPECT_EQ(integerBitsToSigned(ElementType::I32, 0xffffffff), -1);
  EXPECT_EQ(integerBitsToSigned(ElementType::I1, 1), 1);
  EXPECT_EQ(signedToIntegerBits(ElementType::I8, -1), 0xffu);
  EXPECT_EQ(signedToIntegerBits(ElementType::I16, 65537), 1u);
  EXPECT_EQ(signedToIntegerBits(ElementType::I64, -2), 0xfffffffffffffffeu);
}

TEST(ElementTypeTest, Formatting) {
  EXPECT_EQ(formatElement(ElementType::F32, 0x3fc00000), "1.5");
  EXPECT_EQ(formatElement(ElementType::F32, 0x7fbadbad), "nan(0x7fbadbad)");
  EXPECT_EQ(formatElement(ElementType::F32, 0xff800000), "-inf");
  EXPECT_EQ(formatElement(ElementType::F32, 0x80000000), "-0");
  EXPECT_EQ(formatElement(ElementType::F32, 0x00000001), "1.40129846e-45");
  EXPECT_EQ(formatElement(ElementType::F16, 0x7e00), "nan(0x7e00)");
  EXPECT_EQ(formatElement(ElementType::F64, 0x3ff0000000000001),
            "1.0000000000000002");
  EXPECT_EQ(formatElement(ElementType::I8, 0xa5), "-91");
  EXPECT_EQ(formatElement(ElementType::I64, 42), "42");
}

} // namespace
