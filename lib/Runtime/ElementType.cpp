//===- ElementType.cpp - Element types of verification buffers ------------===//

#include "llmptx/Runtime/ElementType.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace llmptx::runtime;

std::optional<ElementType>
llmptx::runtime::parseElementType(std::string_view name) {
  static const std::pair<const char *, ElementType> table[] = {
      {"f16", ElementType::F16}, {"bf16", ElementType::BF16},
      {"f32", ElementType::F32}, {"f64", ElementType::F64},
      {"i1", ElementType::I1},   {"i8", ElementType::I8},
      {"i16", ElementType::I16}, {"i32", ElementType::I32},
      {"i64", ElementType::I64}};
  for (const auto &[spelling, type] : table)
    if (name == spelling)
      return type;
  return std::nullopt;
}

const char *llmptx::runtime::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::I1:
    return "i1";
  case ElementType::I8:
    return "i8";
  case ElementType::I16:
    return "i16";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  }
  return "?";
}

unsigned llmptx::runtime::elementByteSize(ElementType type) {
  switch (type) {
  case ElementType::I1:
  case ElementType::I8:
    return 1;
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::I16:
    return 2;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  }
  return 1;
}

bool llmptx::runtime::isFloatType(ElementType type) {
  return type == ElementType::F16 || type == ElementType::BF16 ||
         type == ElementType::F32 || type == ElementType::F64;
}

uint64_t llmptx::runtime::loadElementBits(ElementType type,
                                          const uint8_t *data) {
  uint64_t bits = 0;
  // The host is little-endian x86-64 or AArch64, like the GPU.
  std::memcpy(&bits, data, elementByteSize(type));
  return bits;
}

void llmptx::runtime::storeElementBits(ElementType type, uint64_t bits,
                                       uint8_t *data) {
  std::memcpy(data, &bits, elementByteSize(type));
}

namespace {
/// Layout of an IEEE-style binary format.
struct FloatFormat {
  unsigned exponentBits;
  unsigned mantissaBits;
};

FloatFormat floatFormat(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return {5, 10};
  case ElementType::BF16:
    return {8, 7};
  case ElementType::F32:
    return {8, 23};
  default:
    return {11, 52};
  }
}

/// Decodes any binary format exactly into a double (every f16/bf16/f32
/// value is representable in f64).
double decode(FloatFormat format, uint64_t bits) {
  unsigned total = 1 + format.exponentBits + format.mantissaBits;
  bool negative = (bits >> (total - 1)) & 1;
  uint64_t exponentMask = (uint64_t(1) << format.exponentBits) - 1;
  uint64_t exponent = (bits >> format.mantissaBits) & exponentMask;
  uint64_t mantissa = bits & ((uint64_t(1) << format.mantissaBits) - 1);
  int bias = static_cast<int>(exponentMask >> 1);
  double magnitude;
  if (exponent == exponentMask)
    magnitude = mantissa ? std::nan("") : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa),
                           1 - bias - static_cast<int>(format.mantissaBits));
  else
    magnitude = std::ldexp(
        static_cast<double>(mantissa | (uint64_t(1) << format.mantissaBits)),
        static_cast<int>(exponent) - bias -
            static_cast<int>(format.mantissaBits));
  return negative ? -magnitude : magnitude;
}

/// Encodes a double into a narrower format with round-to-nearest-even.
uint64_t encode(FloatFormat format, double value) {
  unsigned total = 1 + format.exponentBits + format.mantissaBits;
  uint64_t sign = std::signbit(value) ? uint64_t(1) << (total - 1) : 0;
  uint64_t exponentMask = (uint64_t(1) << format.exponentBits) - 1;
  if (std::isnan(value))
    return sign | (exponentMask << format.mantissaBits) |
           (uint64_t(1) << (format.mantissaBits - 1));
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return sign | (exponentMask << format.mantissaBits);
  if (magnitude == 0)
    return sign;
  int bias = static_cast<int>(exponentMask >> 1);
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = f * 2^exponent, f in [.5,1)
  int unbiased = exponent - 1;
  // Denormals share the smallest normal exponent.
  int scaleExponent = std::max(unbiased, 1 - bias);
  // Scaled so that the integer part holds the significand bits.
  double scaled = std::ldexp(magnitude, static_cast<int>(format.mantissaBits) -
                                            scaleExponent);
  double rounded = std::nearbyint(scaled); // default mode: ties to even
  uint64_t significand = static_cast<uint64_t>(rounded);
  if (significand >> (format.mantissaBits + 1)) {
    // Rounding carried into the next binade.
    significand >>= 1;
    ++scaleExponent;
  }
  uint64_t biased;
  if (significand >> format.mantissaBits)
    biased = static_cast<uint64_t>(scaleExponent + bias);
  else
    biased = 0; // still denormal
  if (biased >= exponentMask)
    return sign | (exponentMask << format.mantissaBits);
  uint64_t mantissa = significand & ((uint64_t(1) << format.mantissaBits) - 1);
  return sign | (biased << format.mantissaBits) | mantissa;
}
} // namespace

double llmptx::runtime::floatBitsToDouble(ElementType type, uint64_t bits) {
  if (type == ElementType::F64) {
    double value;
    std::memcpy(&value, &bits, 8);
    return value;
  }
  if (type == ElementType::F32) {
    float value;
    uint32_t narrow = static_cast<uint32_t>(bits);
    std::memcpy(&value, &narrow, 4);
    return value;
  }
  return decode(floatFormat(type), bits);
}

uint64_t llmptx::runtime::doubleToFloatBits(ElementType type, double value) {
  if (type == ElementType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &value, 8);
    return bits;
  }
  if (type == ElementType::F32) {
    // The host's conversion rounds to nearest even as well.
    float narrow = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &narrow, 4);
    return bits;
  }
  return encode(floatFormat(type), value);
}

int64_t llmptx::runtime::integerBitsToSigned(ElementType type, uint64_t bits) {
  switch (type) {
  case ElementType::I1:
    return static_cast<int64_t>(bits & 0xff);
  case ElementType::I8:
    return static_cast<int8_t>(bits);
  case ElementType::I16:
    return static_cast<int16_t>(bits);
  case ElementType::I32:
    return static_cast<int32_t>(bits);
  default:
    return static_cast<int64_t>(bits);
  }
}

uint64_t llmptx::runtime::signedToIntegerBits(ElementType type, int64_t value) {
  unsigned bytes = elementByteSize(type);
  if (bytes == 8)
    return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(value) & ((uint64_t(1) << (8 * bytes)) - 1);
}

namespace {
struct FloatFields {
  uint64_t exponent, exponentMask, mantissa;
};
FloatFields fields(ElementType type, uint64_t bits) {
  FloatFormat format = floatFormat(type);
  uint64_t exponentMask = (uint64_t(1) << format.exponentBits) - 1;
  return {(bits >> format.mantissaBits) & exponentMask, exponentMask,
          bits & ((uint64_t(1) << format.mantissaBits) - 1)};
}
} // namespace

bool llmptx::runtime::isNaNBits(ElementType type, uint64_t bits) {
  if (!isFloatType(type))
    return false;
  FloatFields f = fields(type, bits);
  return f.exponent == f.exponentMask && f.mantissa != 0;
}

bool llmptx::runtime::isInfBits(ElementType type, uint64_t bits) {
  if (!isFloatType(type))
    return false;
  FloatFields f = fields(type, bits);
  return f.exponent == f.exponentMask && f.mantissa == 0;
}

bool llmptx::runtime::isZeroBits(ElementType type, uint64_t bits) {
  if (!isFloatType(type))
    return bits == 0;
  FloatFields f = fields(type, bits);
  return f.exponent == 0 && f.mantissa == 0;
}

bool llmptx::runtime::isDenormalBits(ElementType type, uint64_t bits) {
  if (!isFloatType(type))
    return false;
  FloatFields f = fields(type, bits);
  return f.exponent == 0 && f.mantissa != 0;
}

std::string llmptx::runtime::formatElement(ElementType type, uint64_t bits) {
  char buffer[64];
  if (!isFloatType(type)) {
    std::snprintf(buffer, sizeof(buffer), "%lld",
                  static_cast<long long>(integerBitsToSigned(type, bits)));
    return buffer;
  }
  unsigned width = elementByteSize(type) * 2;
  if (isNaNBits(type, bits)) {
    std::snprintf(buffer, sizeof(buffer), "nan(0x%0*llx)", width,
                  static_cast<unsigned long long>(bits));
    return buffer;
  }
  double value = floatBitsToDouble(type, bits);
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  if (value == 0)
    return std::signbit(value) ? "-0" : "0";
  // Digits enough to tell neighbours apart: 5 (f16/bf16), 9 (f32), 17.
  int digits = type == ElementType::F64 ? 17 : type == ElementType::F32 ? 9 : 5;
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
  return buffer;
}
