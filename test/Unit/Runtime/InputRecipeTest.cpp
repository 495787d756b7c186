//===- InputRecipeTest.cpp - Input recipes, poison and guard bands --------===//

#include "llmptx/Runtime/InputRecipe.h"
#include "TestBundles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace llmptx::runtime;
using llmptx::runtime::testing::stridedBundle;
using llmptx::runtime::testing::vaddBundle;

namespace {

std::vector<uint64_t> elements(ElementType type,
                               const std::vector<uint8_t> &data) {
  std::vector<uint64_t> bits;
  unsigned bytes = elementByteSize(type);
  for (size_t i = 0; i + bytes <= data.size(); i += bytes)
    bits.push_back(loadElementBits(type, data.data() + i));
  return bits;
}

InitRecipe uniform(double lo, double hi, bool special = false) {
  InitRecipe recipe;
  recipe.kind = InitRecipe::Kind::Uniform;
  recipe.lo = lo;
  recipe.hi = hi;
  recipe.special = special;
  return recipe;
}

TEST(InputRecipeTest, DeterministicPerSeedAndBuffer) {
  InitRecipe recipe = uniform(-1, 1);
  auto first = generateElements(recipe, ElementType::F32, 1000, 1, "a");
  auto again = generateElements(recipe, ElementType::F32, 1000, 1, "a");
  auto otherBuffer = generateElements(recipe, ElementType::F32, 1000, 1, "b");
  auto otherSeed = generateElements(recipe, ElementType::F32, 1000, 2, "a");
  ASSERT_TRUE(first.ok() && again.ok() && otherBuffer.ok() && otherSeed.ok());
  EXPECT_EQ(*first, *again);
  EXPECT_NE(*first, *otherBuffer);
  EXPECT_NE(*first, *otherSeed);
  // A prefix of a longer buffer is the same data.
  auto longer = generateElements(recipe, ElementType::F32, 2000, 1, "a");
  EXPECT_TRUE(std::equal(first->begin(), first->end(), longer->begin()));
}

TEST(InputRecipeTest, UniformStaysInRange) {
  for (ElementType type : {ElementType::F16, ElementType::BF16,
                           ElementType::F32, ElementType::F64}) {
    auto data = generateElements(uniform(-4, 4), type, 5000, 3, "x");
    ASSERT_TRUE(data.ok());
    double lo = 1e9, hi = -1e9;
    for (uint64_t bits : elements(type, *data)) {
      double value = floatBitsToDouble(type, bits);
      ASSERT_TRUE(std::isfinite(value));
      lo = std::min(lo, value);
      hi = std::max(hi, value);
    }
    EXPECT_GE(lo, -4.0) << elementTypeName(type);
    EXPECT_LE(hi, 4.0) << elementTypeName(type);
    EXPECT_LT(lo, -3.5) << elementTypeName(type);
    EXPECT_GT(hi, 3.5) << elementTypeName(type);
  }
}

TEST(InputRecipeTest, SpecialValuesAppearEvenInSmallShapes) {
  for (ElementType type : {ElementType::F16, ElementType::BF16,
                           ElementType::F32, ElementType::F64}) {
    std::vector<uint64_t> specials = specialValueBits(type);
    ASSERT_EQ(specials.size(), 21u);
    auto data = generateElements(uniform(-1, 1, true), type,
                                 2 * specials.size(), 5, "a");
    ASSERT_TRUE(data.ok());
    std::vector<uint64_t> bits = elements(type, *data);
    std::set<uint64_t> seen;
    for (size_t i = 0; i < bits.size(); i += 2)
      seen.insert(bits[i]);
    EXPECT_EQ(seen, std::set<uint64_t>(specials.begin(), specials.end()))
        << elementTypeName(type);
    bool nan = false, posInf = false, negInf = false, negZero = false,
         denormal = false, productDenormal = false, differenceDenormal = false;
    for (uint64_t value : specials) {
      double v = floatBitsToDouble(type, value);
      nan |= std::isnan(v);
      posInf |= std::isinf(v) && v > 0;
      negInf |= std::isinf(v) && v < 0;
      negZero |= v == 0 && std::signbit(v);
      denormal |= isDenormalBits(type, value);
      for (uint64_t other : specials) {
        double w = floatBitsToDouble(type, other);
        if (!std::isfinite(v) || !std::isfinite(w) || v == 0 || w == 0)
          continue;
        if (isDenormalBits(type, value) || isDenormalBits(type, other))
          continue;
        // Both operands normal, result denormal: the flush-to-zero traps.
        productDenormal |= isDenormalBits(type, doubleToFloatBits(type, v * w));
        differenceDenormal |=
            isDenormalBits(type, doubleToFloatBits(type, v - w));
      }
    }
    EXPECT_TRUE(nan && posInf && negInf && negZero && denormal)
        << elementTypeName(type);
    EXPECT_TRUE(productDenormal) << elementTypeName(type);
    EXPECT_TRUE(differenceDenormal) << elementTypeName(type);
  }
}

TEST(InputRecipeTest, TwoSpecialBuffersMeetEveryPair) {
  std::vector<uint64_t> specials = specialValueBits(ElementType::F32);
  size_t kinds = specials.size();
  auto a = generateElements(uniform(-1, 1, true), ElementType::F32,
                            2 * kinds * kinds, 5, "a", nullptr, 0);
  auto b = generateElements(uniform(-1, 1, true), ElementType::F32,
                            2 * kinds * kinds, 5, "b", nullptr, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<uint64_t> x = elements(ElementType::F32, *a);
  std::vector<uint64_t> y = elements(ElementType::F32, *b);
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (size_t i = 0; i < x.size(); i += 2)
    pairs.insert({x[i], y[i]});
  EXPECT_EQ(pairs.size(), kinds * kinds);
  // Odd positions are ordinary values.
  for (size_t i = 1; i < x.size(); i += 2)
    ASSERT_TRUE(std::fabs(floatBitsToDouble(ElementType::F32, x[i])) <= 1);
}

TEST(InputRecipeTest, NinetySevenElementsAlreadyCatchFlushToZero) {
  // The N=97 shape of the corpus: within it, some sum, some difference and
  // some product of two special operands is denormal.
  auto a = generateElements(uniform(-4, 4, true), ElementType::F32, 97, 5, "a",
                            nullptr, 0);
  auto b = generateElements(uniform(-4, 4, true), ElementType::F32, 97, 5, "b",
                            nullptr, 1);
  std::vector<uint64_t> x = elements(ElementType::F32, *a);
  std::vector<uint64_t> y = elements(ElementType::F32, *b);
  bool sum = false, difference = false, product = false;
  for (size_t i = 0; i < 97; ++i) {
    float p = static_cast<float>(floatBitsToDouble(ElementType::F32, x[i]));
    float q = static_cast<float>(floatBitsToDouble(ElementType::F32, y[i]));
    auto denormal = [](float value) {
      return isDenormalBits(ElementType::F32,
                            doubleToFloatBits(ElementType::F32, value));
    };
    sum |= denormal(p + q);
    difference |= denormal(p - q);
    product |= denormal(p * q);
  }
  EXPECT_TRUE(sum);
  EXPECT_TRUE(difference);
  EXPECT_TRUE(product);
}

TEST(InputRecipeTest, SpecialValuesKeepComingInLargeShapes) {
  auto data =
      generateElements(uniform(-1, 1, true), ElementType::F32, 100000, 9, "a");
  ASSERT_TRUE(data.ok());
  size_t nans = 0, denormals = 0;
  std::vector<uint64_t> bits = elements(ElementType::F32, *data);
  for (size_t i = 1000; i < bits.size(); ++i) {
    nans += isNaNBits(ElementType::F32, bits[i]);
    denormals += isDenormalBits(ElementType::F32, bits[i]);
  }
  // One in eight elements is special, drawn from 21 values.
  EXPECT_GT(nans, 1000u);
  EXPECT_GT(denormals, 1000u);
  EXPECT_LT(nans + denormals, 20000u);
}

TEST(InputRecipeTest, IntegerRecipes) {
  InitRecipe randint;
  randint.kind = InitRecipe::Kind::RandInt;
  randint.lo = -3;
  randint.hi = 3;
  auto data = generateElements(randint, ElementType::I8, 2000, 1, "k");
  ASSERT_TRUE(data.ok());
  std::set<int64_t> values;
  for (uint64_t bits : elements(ElementType::I8, *data))
    values.insert(integerBitsToSigned(ElementType::I8, bits));
  EXPECT_EQ(values, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3}));

  InitRecipe iota;
  iota.kind = InitRecipe::Kind::Iota;
  iota.start = 250;
  auto wrapped = generateElements(iota, ElementType::I8, 10, 1, "k");
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(elements(ElementType::I8, *wrapped)[0], 250u);
  EXPECT_EQ(elements(ElementType::I8, *wrapped)[6], 0u); // 256 wraps

  InitRecipe floats;
  floats.kind = InitRecipe::Kind::Iota;
  floats.start = 1;
  floats.step = 0.5;
  auto steps = generateElements(floats, ElementType::F32, 3, 1, "k");
  EXPECT_EQ(elements(ElementType::F32, *steps),
            (std::vector<uint64_t>{0x3f800000, 0x3fc00000, 0x40000000}));
}

TEST(InputRecipeTest, ConstantsZerosAndCopies) {
  InitRecipe constant;
  constant.kind = InitRecipe::Kind::Constant;
  constant.value = "-0";
  auto negativeZero = generateElements(constant, ElementType::F32, 2, 1, "k");
  EXPECT_EQ(elements(ElementType::F32, *negativeZero),
            (std::vector<uint64_t>{0x80000000, 0x80000000}));
  constant.value = "nan";
  auto nan = generateElements(constant, ElementType::F16, 1, 1, "k");
  EXPECT_TRUE(isNaNBits(ElementType::F16, elements(ElementType::F16, *nan)[0]));
  constant.value = "2.5";
  EXPECT_EQ(generateElements(constant, ElementType::I32, 1, 1, "k").error(),
            "constant '2.5' is not an integer");
  constant.value = "x";
  EXPECT_FALSE(generateElements(constant, ElementType::F32, 1, 1, "k").ok());

  InitRecipe zeros;
  auto zero = generateElements(zeros, ElementType::I64, 3, 1, "k");
  EXPECT_EQ(*zero, std::vector<uint8_t>(24, 0));

  InitRecipe copy;
  copy.kind = InitRecipe::Kind::Copy;
  copy.from = "a";
  std::vector<uint8_t> source = {1, 2, 3, 4};
  auto copied = generateElements(copy, ElementType::I16, 2, 1, "k", &source);
  EXPECT_EQ(*copied, source);
  EXPECT_FALSE(
      generateElements(copy, ElementType::I16, 3, 1, "k", &source).ok());
}

TEST(InputRecipeTest, GuardPatternIsNaNInEveryFloatType) {
  for (unsigned buffer = 0; buffer < 9; ++buffer) {
    uint8_t guard[8];
    for (int i = 0; i < 8; ++i)
      guard[i] = guardByte(static_cast<uint64_t>(i), buffer);
    for (int offset = 0; offset < 8; offset += 2)
      EXPECT_TRUE(isNaNBits(ElementType::F16,
                            loadElementBits(ElementType::F16, guard + offset)));
    EXPECT_TRUE(isNaNBits(ElementType::BF16,
                          loadElementBits(ElementType::BF16, guard)));
    EXPECT_TRUE(isNaNBits(ElementType::F32,
                          loadElementBits(ElementType::F32, guard + 4)));
    EXPECT_TRUE(
        isNaNBits(ElementType::F64, loadElementBits(ElementType::F64, guard)));
  }
  // Neighbouring buffers differ.
  for (unsigned buffer = 0; buffer < 6; ++buffer)
    EXPECT_NE(guardByte(0, buffer), guardByte(0, buffer + 1));
}

TEST(InputRecipeTest, TwoDifferentPoisonsPerType) {
  for (ElementType type :
       {ElementType::F16, ElementType::BF16, ElementType::F32, ElementType::F64,
        ElementType::I1, ElementType::I8, ElementType::I16, ElementType::I32,
        ElementType::I64}) {
    uint64_t first = poisonBits(type, 0), second = poisonBits(type, 1);
    EXPECT_NE(first, second) << elementTypeName(type);
    if (isFloatType(type)) {
      EXPECT_TRUE(isNaNBits(type, first)) << elementTypeName(type);
      EXPECT_TRUE(std::isfinite(floatBitsToDouble(type, second)))
          << elementTypeName(type);
      // Neither poison is among the specials fed to kernels.
      for (uint64_t special : specialValueBits(type)) {
        EXPECT_NE(special, first);
        EXPECT_NE(special, second);
      }
    }
  }
  EXPECT_GT(poisonBits(ElementType::I1, 0), 1u); // never a valid i1
}

TEST(InputRecipeTest, ImagesScatterAndGatherElements) {
  VerificationBundle bundle = stridedBundle();
  auto plan = planShape(bundle, 0, 1);
  ASSERT_TRUE(plan.ok());
  auto inputs = generateInputs(bundle, *plan);
  ASSERT_TRUE(inputs.ok()) << inputs.error();
  EXPECT_EQ((*inputs)[0].size(), 15u * 4);
  EXPECT_TRUE((*inputs)[1].empty()); // the output has no inputs
  auto images = buildRunImages(*plan, *inputs, 1);
  const BufferLayout &a = plan->buffers[0];
  ASSERT_EQ(images[0].size(), a.allocationBytes);
  EXPECT_EQ(gatherElements(a, images[0].data()), (*inputs)[0]);
  // Everything that is not an element holds the guard pattern.
  std::vector<uint8_t> mask = a.elementMask();
  for (size_t i = 0; i < images[0].size(); ++i) {
    if (!mask[i]) {
      ASSERT_EQ(images[0][i], guardByte(i, 0)) << i;
    }
  }
  // The output is poison 1 everywhere.
  const BufferLayout &c = plan->buffers[1];
  for (uint64_t e = 0; e < c.elementCount; ++e)
    EXPECT_EQ(loadElementBits(ElementType::F32,
                              images[1].data() + c.elementByteOffset(e)),
              poisonBits(ElementType::F32, 1));
}

TEST(InputRecipeTest, DefaultRecipes) {
  BufferSpec floats;
  floats.element = ElementType::F32;
  floats.role = BufferRole::Input;
  EXPECT_EQ(defaultRecipe(floats).kind, InitRecipe::Kind::Uniform);
  BufferSpec flags;
  flags.element = ElementType::I1;
  flags.role = BufferRole::InOut;
  InitRecipe recipe = defaultRecipe(flags);
  EXPECT_EQ(recipe.kind, InitRecipe::Kind::RandInt);
  EXPECT_EQ(recipe.hi, 1);
  BufferSpec scratch;
  scratch.role = BufferRole::Scratch;
  EXPECT_EQ(defaultRecipe(scratch).kind, InitRecipe::Kind::Zeros);
}

} // namespace
