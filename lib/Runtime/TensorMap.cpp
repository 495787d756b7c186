//===- TensorMap.cpp - TMA tensor maps a candidate asks for -----*- C++ -*-===//
//
// The limits are those cuTensorMapEncodeTiled documents for tiled maps; a
// request that breaks one is refused before the driver sees it, with the
// field named, so a model learns what to change.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/TensorMap.h"

using namespace llmptx::runtime;

namespace {

/// The index of `text` among `spellings`, or -1.
int spellingIndex(const std::string &text,
                  std::initializer_list<const char *> spellings) {
  int index = 0;
  for (const char *spelling : spellings) {
    if (text == spelling)
      return index;
    ++index;
  }
  return -1;
}

int swizzleOf(const std::string &text) {
  return spellingIndex(text, {"none", "32B", "64B", "128B"});
}
int interleaveOf(const std::string &text) {
  return spellingIndex(text, {"none", "16B", "32B"});
}
int l2PromotionOf(const std::string &text) {
  return spellingIndex(text, {"none", "64B", "128B", "256B"});
}
int oobFillOf(const std::string &text) {
  return spellingIndex(text, {"none", "nan"});
}

/// CUtensorMapDataType of an element type (cuda.h's numbering).
int dataTypeOf(ElementType element) {
  switch (element) {
  case ElementType::I1:
  case ElementType::I8:
    return 0; // UINT8
  case ElementType::I16:
    return 1; // UINT16
  case ElementType::I32:
    return 3; // INT32
  case ElementType::I64:
    return 5; // INT64
  case ElementType::F16:
    return 6; // FLOAT16
  case ElementType::F32:
    return 7; // FLOAT32
  case ElementType::F64:
    return 8; // FLOAT64
  case ElementType::BF16:
    return 9; // BFLOAT16
  }
  return 0;
}

} // namespace

TensorMapEnums llmptx::runtime::tensorMapEnums(const TensorMapSpec &spec,
                                               ElementType element) {
  TensorMapEnums enums;
  enums.dataType = dataTypeOf(element);
  enums.interleave = interleaveOf(spec.interleave);
  enums.swizzle = swizzleOf(spec.swizzle);
  enums.l2Promotion = l2PromotionOf(spec.l2Promotion);
  enums.oobFill = oobFillOf(spec.oobFill);
  return enums;
}

unsigned llmptx::runtime::tensorMapBaseAlignment(const TensorMapSpec &spec) {
  return spec.interleave == "32B" ? 32 : 16;
}

std::optional<std::string>
llmptx::runtime::checkTensorMapSpec(const TensorMapSpec &spec,
                                    ElementType element, size_t rank) {
  if (swizzleOf(spec.swizzle) < 0)
    return "swizzle: '" + spec.swizzle + "' is not none, 32B, 64B or 128B";
  if (interleaveOf(spec.interleave) < 0)
    return "interleave: '" + spec.interleave + "' is not none, 16B or 32B";
  if (l2PromotionOf(spec.l2Promotion) < 0)
    return "l2_promotion: '" + spec.l2Promotion +
           "' is not none, 64B, 128B or 256B";
  if (oobFillOf(spec.oobFill) < 0)
    return "oob_fill: '" + spec.oobFill + "' is not none or nan";
  if (rank < 1 || rank > kMaxTensorMapRank)
    return "the buffer has rank " + std::to_string(rank) +
           "; a tensor map takes rank 1 to 5";
  if (spec.interleave != "none" && rank < 3)
    return "interleave: an interleaved map needs rank 3 or more, the buffer "
           "has " +
           std::to_string(rank);
  if (spec.box.size() != rank)
    return "box: " + std::to_string(spec.box.size()) +
           " entries for a buffer of rank " + std::to_string(rank) +
           " (one per dimension, outermost first)";
  for (size_t i = 0; i < rank; ++i)
    if (spec.box[i] < 1 || spec.box[i] > 256)
      return "box[" + std::to_string(i) + "]: " + std::to_string(spec.box[i]) +
             " is not in 1..256";
  if (spec.oobFill == "nan" && !isFloatType(element))
    return "oob_fill: nan needs a float element type";
  uint64_t innerBytes =
      static_cast<uint64_t>(spec.box.back()) * elementByteSize(element);
  if (spec.interleave == "none" && innerBytes % 16 != 0)
    return "box[" + std::to_string(rank - 1) + "]: the innermost box is " +
           std::to_string(innerBytes) + " bytes, not a multiple of 16";
  static const unsigned spans[] = {0, 32, 64, 128};
  unsigned span = spans[swizzleOf(spec.swizzle)];
  if (span && spec.interleave == "none" && innerBytes > span)
    return "box[" + std::to_string(rank - 1) + "]: the innermost box is " +
           std::to_string(innerBytes) + " bytes, wider than the " +
           spec.swizzle + " swizzle span";
  return std::nullopt;
}

ValueOrError<TensorMapArgs>
llmptx::runtime::tensorMapArgs(const TensorMapSpec &spec, ElementType element,
                               const std::vector<int64_t> &sizes,
                               const std::vector<int64_t> &strides,
                               uint64_t baseAddress) {
  if (auto problem = checkTensorMapSpec(spec, element, sizes.size()))
    return Failure{*problem};
  unsigned alignment = tensorMapBaseAlignment(spec);
  if (baseAddress % alignment != 0)
    return Failure{"the first element's address is not " +
                   std::to_string(alignment) + "-byte aligned (offset " +
                   std::to_string(baseAddress % alignment) + ")"};
  TensorMapArgs args;
  TensorMapEnums enums = tensorMapEnums(spec, element);
  args.dataType = enums.dataType;
  args.rank = static_cast<unsigned>(sizes.size());
  args.interleave = enums.interleave;
  args.swizzle = enums.swizzle;
  args.l2Promotion = enums.l2Promotion;
  args.oobFill = enums.oobFill;
  uint64_t elementBytes = elementByteSize(element);
  for (unsigned i = 0; i < args.rank; ++i) {
    unsigned outer = args.rank - 1 - i;
    if (sizes[outer] < 1 || static_cast<uint64_t>(sizes[outer]) >> 32)
      return Failure{"size " + std::to_string(outer) + " is " +
                     std::to_string(sizes[outer]) + ", outside 1..2^32-1"};
    args.globalDim[i] = static_cast<uint64_t>(sizes[outer]);
    args.boxDim[i] = spec.box[outer];
    args.elementStrides[i] = 1;
    if (i == 0) {
      if (strides[outer] != 1)
        return Failure{"the innermost stride is " +
                       std::to_string(strides[outer]) +
                       " elements; a tensor map needs it 1"};
      continue;
    }
    uint64_t bytes = static_cast<uint64_t>(strides[outer]) * elementBytes;
    if (strides[outer] < 1 || bytes % 16 != 0 || bytes >> 40)
      return Failure{"stride " + std::to_string(outer) + " is " +
                     std::to_string(bytes) +
                     " bytes; a tensor map needs a multiple of 16 below 2^40"};
    args.globalStrides[i - 1] = bytes;
  }
  return args;
}
