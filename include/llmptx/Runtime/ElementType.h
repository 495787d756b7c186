//===- ElementType.h - Element types of verification buffers ----*- C++ -*-===//
//
// Buffers hold f16, bf16, f32, f64, i1 (one byte), i8, i16, i32 or i64
// elements. Elements are handled as raw little-endian bit patterns (up to
// 64 bits) so that comparisons can be bit-exact and NaN payloads survive.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_ELEMENTTYPE_H
#define LLMPTX_RUNTIME_ELEMENTTYPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmptx::runtime {

enum class ElementType { F16, BF16, F32, F64, I1, I8, I16, I32, I64 };

std::optional<ElementType> parseElementType(std::string_view name);
const char *elementTypeName(ElementType type);
unsigned elementByteSize(ElementType type);
bool isFloatType(ElementType type);

/// Reads/writes one element's bits (little-endian, zero-extended).
uint64_t loadElementBits(ElementType type, const uint8_t *data);
void storeElementBits(ElementType type, uint64_t bits, uint8_t *data);

/// Float bit patterns <-> double. Conversion to the narrow type rounds to
/// nearest even, keeps NaN (as a quiet NaN), infinities, signed zero and
/// denormals.
double floatBitsToDouble(ElementType type, uint64_t bits);
uint64_t doubleToFloatBits(ElementType type, double value);

/// Sign-extends integer bits (i1 is unsigned: 0 or 1).
int64_t integerBitsToSigned(ElementType type, uint64_t bits);
/// Truncates a value to the type's width.
uint64_t signedToIntegerBits(ElementType type, int64_t value);

/// Classification of float bits.
bool isNaNBits(ElementType type, uint64_t bits);
bool isInfBits(ElementType type, uint64_t bits);
bool isZeroBits(ElementType type, uint64_t bits);
bool isDenormalBits(ElementType type, uint64_t bits);

/// A readable rendering for reports: integers in decimal; floats with
/// enough digits to round-trip, "nan(0x7fc00000)", "inf", "-inf", "-0".
std::string formatElement(ElementType type, uint64_t bits);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_ELEMENTTYPE_H
