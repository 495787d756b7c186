//===- InputRecipe.cpp - Deterministic buffer contents --------------------===//

#include "llmptx/Runtime/InputRecipe.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

using namespace llmptx::runtime;

uint8_t llmptx::runtime::guardByte(uint64_t offset, unsigned buffer) {
  // Little-endian 0xffXX repeated, XX in 0xf1..0xfd: every aligned 2-, 4- or
  // 8-byte read is a NaN in f16, bf16, f32 and f64 (exponent all ones,
  // mantissa non-zero). Each buffer has its own XX, so a kernel that copies
  // one buffer's guard into another's changes it.
  return (offset & 1) ? 0xff : static_cast<uint8_t>(0xf1 + 2 * (buffer % 7));
}

uint64_t llmptx::runtime::poisonBits(ElementType type, unsigned run) {
  bool first = run % 2 == 0;
  switch (type) {
  case ElementType::F16:
    return first ? 0x7d5b : 0xf1e2;
  case ElementType::BF16:
    return first ? 0x7fad : 0xf1e2;
  case ElementType::F32:
    return first ? 0x7fbadbadull : 0xf1e2d3c4ull;
  case ElementType::F64:
    return first ? 0x7ff5badbadbadbadull : 0xc1e2d3c4b5a69788ull;
  case ElementType::I1:
  case ElementType::I8:
    return first ? 0xa5 : 0x5c;
  case ElementType::I16:
    return first ? 0xa5a5 : 0x5c5c;
  case ElementType::I32:
    return first ? 0xa5a5a5a5ull : 0x5c5c5c5cull;
  case ElementType::I64:
    return first ? 0xa5a5a5a5a5a5a5a5ull : 0x5c5c5c5c5c5c5c5cull;
  }
  return 0;
}

std::vector<uint64_t> llmptx::runtime::specialValueBits(ElementType type) {
  if (!isFloatType(type))
    return {};
  unsigned mantissa = type == ElementType::F16    ? 10
                      : type == ElementType::BF16 ? 7
                      : type == ElementType::F32  ? 23
                                                  : 52;
  unsigned width = elementByteSize(type) * 8;
  uint64_t sign = uint64_t(1) << (width - 1);
  uint64_t exponentMask = ((uint64_t(1) << (width - 1 - mantissa)) - 1)
                          << mantissa;
  uint64_t mantissaMask = (uint64_t(1) << mantissa) - 1;
  uint64_t quiet = uint64_t(1) << (mantissa - 1);
  uint64_t minNormalBits = uint64_t(1) << mantissa;
  double minNormal = floatBitsToDouble(type, minNormalBits);
  // About the square root of the smallest normal, so that products of two
  // such operands are denormal.
  double root = std::sqrt(minNormal) * 0x1p-4;
  auto bits = [&](double value) { return doubleToFloatBits(type, value); };
  // The order matters: small shapes pair the first entries with every
  // other entry (generateElements), so the operands whose sums,
  // differences and products are denormal come first.
  return {sign,                   // -0
          bits(1.25 * root),      // products with root are denormal
          bits(1.25 * minNormal), // differences with 1.5 min are too
          bits(1.5 * minNormal),
          bits(-1.5 * minNormal),
          1, // the smallest denormal
          bits(root),
          bits(-1.75 * root),
          0,            // +0
          mantissaMask, // the largest denormal
          mantissaMask / 3,
          sign | (mantissaMask / 5),
          minNormalBits,
          sign | minNormalBits,
          exponentMask | quiet,        // NaN
          exponentMask | quiet | 1,    // NaN with a payload
          sign | exponentMask | quiet, // -NaN
          exponentMask,                // +inf
          sign | exponentMask,         // -inf
          exponentMask - 1,            // the largest finite value
          sign | (exponentMask - 1)};
}

namespace {
/// splitmix64: tiny, fast and good enough for test data.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  /// Uniform integer in [0, bound).
  uint64_t below(uint64_t bound) { return bound ? next() % bound : 0; }

private:
  uint64_t state;
};

uint64_t streamSeed(uint64_t seed, const std::string &name) {
  // FNV-1a of the name, mixed with the seed: each buffer its own stream.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return seed ^ (hash * 0x9e3779b97f4a7c15ull);
}

bool parseConstant(const std::string &text, double &value) {
  const char *begin = text.c_str();
  char *end = nullptr;
  errno = 0;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0';
}
} // namespace

std::optional<std::string>
llmptx::runtime::checkConstant(const std::string &value, ElementType type) {
  double number;
  if (!parseConstant(value, number))
    return "constant '" + value + "' is not a number";
  if (!isFloatType(type) &&
      (!std::isfinite(number) || number != std::floor(number) ||
       std::fabs(number) >= 0x1p63))
    return "constant '" + value + "' is not an integer";
  return std::nullopt;
}

InitRecipe llmptx::runtime::defaultRecipe(const BufferSpec &buffer) {
  InitRecipe recipe;
  if (buffer.role == BufferRole::Scratch || buffer.role == BufferRole::Output) {
    recipe.kind = InitRecipe::Kind::Zeros;
  } else if (isFloatType(buffer.element)) {
    recipe.kind = InitRecipe::Kind::Uniform;
    recipe.lo = -1;
    recipe.hi = 1;
  } else {
    recipe.kind = InitRecipe::Kind::RandInt;
    recipe.lo = buffer.element == ElementType::I1 ? 0 : -100;
    recipe.hi = buffer.element == ElementType::I1 ? 1 : 100;
  }
  return recipe;
}

namespace {
/// The packed elements of one buffer being generated, written as bit
/// patterns of its element type.
class ElementWriter {
public:
  ElementWriter(ElementType type, uint64_t count)
      : type(type), bytes(elementByteSize(type)), data(count * bytes, 0) {}

  bool isFloat() const { return isFloatType(type); }
  void store(uint64_t index, uint64_t bits) {
    storeElementBits(type, bits, data.data() + index * bytes);
  }
  /// `value` in the element type, rounded to an integer for integer types.
  uint64_t fromDouble(double value) const {
    if (isFloat())
      return doubleToFloatBits(type, value);
    return signedToIntegerBits(type, static_cast<int64_t>(std::llround(value)));
  }

  const ElementType type;
  const unsigned bytes;
  std::vector<uint8_t> data;
};

/// Uniform over the integers of [lo, hi], for an integer element type; the
/// error when there are none.
std::optional<std::string> fillUniformIntegers(const InitRecipe &recipe,
                                               uint64_t count,
                                               SplitMix64 &random,
                                               ElementWriter &out) {
  int64_t lo = static_cast<int64_t>(std::ceil(recipe.lo));
  int64_t hi = static_cast<int64_t>(std::floor(recipe.hi));
  if (hi < lo)
    return "uniform range [" + std::to_string(recipe.lo) + ", " +
           std::to_string(recipe.hi) + "] holds no integer";
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  for (uint64_t i = 0; i < count; ++i)
    out.store(i, signedToIntegerBits(
                     out.type, lo + static_cast<int64_t>(random.below(span))));
  return std::nullopt;
}

/// Uniform floats in [lo, hi), with special values mixed in when asked.
/// The first 2 * kinds^2 elements alternate between an ordinary value and a
/// special one; the specials enumerate every pair across the first two
/// special buffers (one walks the list fast, the other slow), so
/// element-wise kernels meet every combination. After that, one element in
/// eight is special, drawn at random.
void fillUniformFloats(const InitRecipe &recipe, uint64_t count,
                       unsigned specialOrdinal, SplitMix64 &random,
                       ElementWriter &out) {
  std::vector<uint64_t> specials;
  if (recipe.special)
    specials = specialValueBits(out.type);
  uint64_t kinds = specials.size();
  uint64_t enumerated = 2 * kinds * kinds;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t draw = random.next();
    double value = recipe.lo + (recipe.hi - recipe.lo) * random.unit();
    if (kinds && i < enumerated && i % 2 == 0) {
      uint64_t pair = i / 2;
      uint64_t walk = specialOrdinal % 2 ? pair / kinds : pair;
      out.store(i, specials[(walk + specialOrdinal / 2) % kinds]);
    } else if (kinds && i >= enumerated && (draw & 7) == 0) {
      out.store(i, specials[(draw >> 3) % kinds]);
    } else {
      out.store(i, out.fromDouble(value));
    }
  }
}

void fillRandomIntegers(const InitRecipe &recipe, uint64_t count,
                        SplitMix64 &random, ElementWriter &out) {
  int64_t lo = static_cast<int64_t>(recipe.lo);
  int64_t hi = static_cast<int64_t>(recipe.hi);
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  for (uint64_t i = 0; i < count; ++i) {
    int64_t value = lo + static_cast<int64_t>(random.below(span));
    out.store(i, out.isFloat()
                     ? doubleToFloatBits(out.type, static_cast<double>(value))
                     : signedToIntegerBits(out.type, value));
  }
}

void fillIota(const InitRecipe &recipe, uint64_t count, ElementWriter &out) {
  for (uint64_t i = 0; i < count; ++i) {
    double value = recipe.start + recipe.step * static_cast<double>(i);
    if (out.isFloat()) {
      out.store(i, doubleToFloatBits(out.type, value));
    } else {
      // Integers wrap at the element width, as the kernel's would.
      int64_t start = static_cast<int64_t>(recipe.start);
      int64_t step = static_cast<int64_t>(recipe.step);
      uint64_t wrapped =
          static_cast<uint64_t>(start) + static_cast<uint64_t>(step) * i;
      out.store(i,
                signedToIntegerBits(out.type, static_cast<int64_t>(wrapped)));
    }
  }
}

/// The error when the constant is not a number of the element type.
std::optional<std::string> fillConstant(const InitRecipe &recipe,
                                        uint64_t count, ElementWriter &out) {
  if (auto problem = checkConstant(recipe.value, out.type))
    return problem;
  double value;
  parseConstant(recipe.value, value);
  uint64_t bits =
      out.isFloat()
          ? doubleToFloatBits(out.type, value)
          : signedToIntegerBits(out.type, static_cast<int64_t>(value));
  for (uint64_t i = 0; i < count; ++i)
    out.store(i, bits);
  return std::nullopt;
}
} // namespace

ValueOrError<std::vector<uint8_t>> llmptx::runtime::generateElements(
    const InitRecipe &recipe, ElementType type, uint64_t count, uint64_t seed,
    const std::string &bufferName, const std::vector<uint8_t> *copySource,
    unsigned specialOrdinal) {
  ElementWriter out(type, count);
  SplitMix64 random(streamSeed(seed, bufferName));
  std::optional<std::string> error;
  switch (recipe.kind) {
  case InitRecipe::Kind::Zeros:
    break;
  case InitRecipe::Kind::Uniform:
    if (out.isFloat())
      fillUniformFloats(recipe, count, specialOrdinal, random, out);
    else
      error = fillUniformIntegers(recipe, count, random, out);
    break;
  case InitRecipe::Kind::RandInt:
    fillRandomIntegers(recipe, count, random, out);
    break;
  case InitRecipe::Kind::Iota:
    fillIota(recipe, count, out);
    break;
  case InitRecipe::Kind::Constant:
    error = fillConstant(recipe, count, out);
    break;
  case InitRecipe::Kind::Copy:
    if (!copySource || copySource->size() != out.data.size())
      return Failure{"copy from '" + recipe.from +
                     "': source has a different size"};
    out.data = *copySource;
    break;
  }
  if (error)
    return Failure{*error};
  return std::move(out.data);
}

/// Fills [begin, end) of an image with the guard pattern of its buffer.
static void fillGuard(std::vector<uint8_t> &image, const BufferLayout &layout,
                      uint64_t begin, uint64_t end) {
  for (uint64_t i = begin; i < end; ++i)
    image[i] = guardByte(i, layout.index);
}

std::vector<uint8_t>
llmptx::runtime::buildImage(const BufferLayout &layout,
                            const std::vector<uint8_t> &packedElements) {
  std::vector<uint8_t> image(layout.allocationBytes);
  unsigned bytes = layout.elementBytes();
  if (layout.contiguous) {
    // Only the bytes around the elements need the pattern.
    uint64_t first = layout.firstElementByteOffset();
    uint64_t end = first + layout.elementCount * bytes;
    fillGuard(image, layout, 0, first);
    fillGuard(image, layout, end, image.size());
    if (!packedElements.empty())
      std::memcpy(image.data() + first, packedElements.data(), end - first);
    return image;
  }
  fillGuard(image, layout, 0, image.size());
  for (uint64_t i = 0; i < layout.elementCount; ++i)
    std::memcpy(image.data() + layout.elementByteOffset(i),
                packedElements.data() + i * bytes, bytes);
  return image;
}

std::vector<uint8_t>
llmptx::runtime::buildPoisonedImage(const BufferLayout &layout, unsigned run) {
  unsigned bytes = layout.elementBytes();
  std::vector<uint8_t> packed(layout.elementCount * bytes);
  uint64_t poison = poisonBits(layout.element, run);
  for (uint64_t i = 0; i < layout.elementCount; ++i)
    std::memcpy(packed.data() + i * bytes, &poison, bytes);
  return buildImage(layout, packed);
}

std::vector<uint8_t> llmptx::runtime::gatherElements(const BufferLayout &layout,
                                                     const uint8_t *image) {
  unsigned bytes = layout.elementBytes();
  std::vector<uint8_t> packed(layout.elementCount * bytes);
  if (layout.contiguous) {
    if (!packed.empty())
      std::memcpy(packed.data(), image + layout.firstElementByteOffset(),
                  packed.size());
    return packed;
  }
  for (uint64_t i = 0; i < layout.elementCount; ++i)
    std::memcpy(packed.data() + i * bytes, image + layout.elementByteOffset(i),
                bytes);
  return packed;
}

ValueOrError<std::vector<std::vector<uint8_t>>>
llmptx::runtime::generateInputs(const VerificationBundle &bundle,
                                const ShapePlan &plan) {
  return generateInputs(bundle, plan, bundle.seed);
}

ValueOrError<std::vector<std::vector<uint8_t>>>
llmptx::runtime::generateInputs(const VerificationBundle &bundle,
                                const ShapePlan &plan, uint64_t seed) {
  std::vector<std::vector<uint8_t>> inputs(bundle.buffers.size());
  // Each buffer with special values gets its own walk through them.
  std::vector<unsigned> ordinals(bundle.buffers.size(), 0);
  unsigned specialBuffers = 0;
  for (size_t b = 0; b < bundle.buffers.size(); ++b) {
    const BufferSpec &spec = bundle.buffers[b];
    if (spec.init && spec.init->kind == InitRecipe::Kind::Uniform &&
        spec.init->special)
      ordinals[b] = specialBuffers++;
  }
  // Copies read their source, so sources are generated first.
  for (int pass = 0; pass < 2; ++pass)
    for (size_t b = 0; b < bundle.buffers.size(); ++b) {
      const BufferSpec &spec = bundle.buffers[b];
      if (spec.role == BufferRole::Output)
        continue;
      InitRecipe recipe = spec.init ? *spec.init : defaultRecipe(spec);
      bool isCopy = recipe.kind == InitRecipe::Kind::Copy;
      if (isCopy != (pass == 1))
        continue;
      const std::vector<uint8_t> *source = nullptr;
      if (isCopy) {
        int from = bundle.findBuffer(recipe.from);
        if (from < 0)
          return Failure{"buffer '" + spec.name + "': unknown copy source '" +
                         recipe.from + "'"};
        source = &inputs[from];
      }
      auto elements =
          generateElements(recipe, spec.element, plan.buffers[b].elementCount,
                           seed, spec.name, source, ordinals[b]);
      if (!elements)
        return Failure{"buffer '" + spec.name + "': " + elements.error()};
      inputs[b] = elements.take();
    }
  return inputs;
}

std::vector<std::vector<uint8_t>>
llmptx::runtime::buildRunImages(const ShapePlan &plan,
                                const std::vector<std::vector<uint8_t>> &inputs,
                                unsigned run) {
  std::vector<std::vector<uint8_t>> images;
  images.reserve(plan.buffers.size());
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const BufferLayout &layout = plan.buffers[b];
    if (layout.role == BufferRole::Output)
      images.push_back(buildPoisonedImage(layout, run));
    else
      images.push_back(buildImage(layout, inputs[b]));
  }
  return images;
}
