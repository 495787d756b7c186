//===- TensorMap.h - TMA tensor maps a candidate asks for -------*- C++ -*-===//
//
// A candidate for sm_90 and later may ask for tensor maps (CUtensorMap, the
// TMA descriptor) over its memref arguments; they are built on the host and
// passed by value after the memref parameters, each as
// `.param .align 64 .b8 NAME[128]`. This header is the one description of
// such a request and of the limits of cuTensorMapEncodeTiled: the pipeline
// checks a request against the facts the module states, the runner encodes
// it for every shape it runs, and the host runtime does the same in a
// program. LLVM-free (the runner links no LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_TENSORMAP_H
#define LLMPTX_RUNTIME_TENSORMAP_H

#include "llmptx/Runtime/ElementType.h"
#include "llmptx/Runtime/ValueOrError.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmptx::runtime {

/// The largest rank cuTensorMapEncodeTiled takes.
inline constexpr unsigned kMaxTensorMapRank = 5;
/// Bytes and alignment of a CUtensorMap kernel parameter.
inline constexpr unsigned kTensorMapBytes = 128;
inline constexpr unsigned kTensorMapParamAlign = 64;

/// One tensor map over one buffer, as a candidate's launch block asks for it
/// and a bundle carries it.
struct TensorMapSpec {
  /// What the candidate calls it (its .param), for messages.
  std::string name;
  /// The buffer (bundle) or memref argument (pipeline) it maps.
  std::string buffer;
  /// The box, one entry per dimension of the buffer, outermost first (the
  /// memref's order; the driver gets them innermost first).
  std::vector<uint32_t> box;
  /// "none", "32B", "64B", "128B".
  std::string swizzle = "none";
  /// "none", "16B", "32B".
  std::string interleave = "none";
  /// "none", "64B", "128B", "256B".
  std::string l2Promotion = "none";
  /// "none" (zeros), "nan" (NaN_REQUEST_ZERO_FMA).
  std::string oobFill = "none";
};

/// The request's own limits, for a buffer of `element` and `rank`: one box
/// entry per dimension, each in 1..256; rank 1..5 (3..5 interleaved); the
/// innermost box a multiple of 16 bytes and, swizzled, no wider than the
/// swizzle span; known spellings. The error names the field
/// ("box[1]: 512 is larger than 256"), without a path prefix.
std::optional<std::string> checkTensorMapSpec(const TensorMapSpec &spec,
                                              ElementType element, size_t rank);

/// The base-pointer alignment the map needs (16, or 32 interleaved).
unsigned tensorMapBaseAlignment(const TensorMapSpec &spec);

/// The enums of cuTensorMapEncodeTiled for a request over `element`, as
/// cuda.h numbers them (unknown spellings are -1: checkTensorMapSpec
/// refuses them first).
struct TensorMapEnums {
  int dataType = 0, interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
};
TensorMapEnums tensorMapEnums(const TensorMapSpec &spec, ElementType element);

/// The arguments of cuTensorMapEncodeTiled for one buffer layout, with the
/// enums as cuda.h numbers them.
struct TensorMapArgs {
  int dataType = 0;
  unsigned rank = 0;
  /// globalDim, globalStrides (rank - 1 entries, bytes), boxDim and
  /// elementStrides, innermost first.
  uint64_t globalDim[kMaxTensorMapRank] = {};
  uint64_t globalStrides[kMaxTensorMapRank] = {};
  uint32_t boxDim[kMaxTensorMapRank] = {};
  uint32_t elementStrides[kMaxTensorMapRank] = {};
  int interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
};

/// The arguments for a buffer of `element` with `sizes` and `strides`
/// (elements, outermost first); fails when the layout breaks a limit of
/// the driver: the innermost stride not 1, another stride not a multiple of
/// 16 bytes or not below 2^40 bytes, a size of 0 or of 2^32 and more.
/// `baseAddress` (the first element's address) must be aligned as
/// tensorMapBaseAlignment says.
ValueOrError<TensorMapArgs> tensorMapArgs(const TensorMapSpec &spec,
                                          ElementType element,
                                          const std::vector<int64_t> &sizes,
                                          const std::vector<int64_t> &strides,
                                          uint64_t baseAddress);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_TENSORMAP_H
