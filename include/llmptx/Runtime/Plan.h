//===- Plan.h - A bundle evaluated for one shape ----------------*- C++ -*-===//
//
// Evaluates every expression of a bundle for one shape and one offset
// variant: buffer layouts inside their guarded allocations, the bytes of
// every kernel parameter, and the launch dimensions. This is pure CPU code;
// the GPU side only allocates what the plan says and copies bytes.
//
// An allocation is laid out as
//
//   [guard: kGuardBytes][pad: stated alignment][offset elements][elements,
//   with stride gaps][guard: kGuardBytes]
//
// The allocation start is 256-byte aligned, so the aligned pointer is
// aligned to exactly the stated alignment and no more: a candidate may only
// rely on the facts the module states. Timing plans (Placement::Allocator)
// leave the pad out: the pointer is 256-byte aligned, as allocated. Every
// byte that is not an element (guards, padding, offset, stride gaps) is
// filled with a NaN-like pattern and checked after every run.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_PLAN_H
#define LLMPTX_RUNTIME_PLAN_H

#include "llmptx/Runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmptx::runtime {

/// Guard bytes before the aligned pointer and after the last element.
inline constexpr uint64_t kGuardBytes = 4096;
/// The element offset of "any"-offset buffers in the non-zero variant; the
/// k-th such buffer gets kNonZeroOffset + 2k so that mixing up two buffers'
/// offsets is caught as well.
inline constexpr int64_t kNonZeroOffset = 3;
/// The largest alignment a bundle may state.
inline constexpr uint64_t kMaxAlignment = 256;

/// Where an aligned pointer sits in its allocation. Checks put it at the
/// edge of the stated facts; timing puts it where a program's allocator
/// does (cuMemAlloc: 256-byte aligned), as it already takes offset 0 for
/// "any"-offset buffers, so a kernel is timed as a program runs it.
enum class Placement {
  Stated,   // aligned to exactly the stated alignment and no more
  Allocator // aligned to kMaxAlignment (the allocation's own alignment)
};

struct BufferLayout {
  std::string name;
  /// Position in the bundle's buffer list.
  unsigned index = 0;
  ElementType element = ElementType::F32;
  BufferRole role = BufferRole::Input;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  uint64_t elementCount = 0;
  /// Where the aligned pointer points, from the allocation start.
  uint64_t alignedByteOffset = 0;
  uint64_t allocationBytes = 0;
  /// Strides are the dense row-major ones.
  bool contiguous = true;

  unsigned elementBytes() const { return elementByteSize(element); }
  uint64_t firstElementByteOffset() const {
    return alignedByteOffset + static_cast<uint64_t>(offset) * elementBytes();
  }
  /// Byte position in the allocation of the element with row-major logical
  /// index `linear`.
  uint64_t elementByteOffset(uint64_t linear) const;
  /// The multi-dimensional index of row-major logical index `linear`.
  std::vector<int64_t> multiIndex(uint64_t linear) const;
  /// One byte per allocation byte: 1 where an element lives.
  std::vector<uint8_t> elementMask() const;
};

struct LaunchDims {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
  /// A grid with a zero dimension launches nothing.
  bool empty() const { return grid[0] == 0 || grid[1] == 0 || grid[2] == 0; }
  std::string describe() const;
};

/// The value of one kernel parameter.
struct ParamSlot {
  enum class Kind { BufferAddress, Immediate };
  Kind kind = Kind::Immediate;
  /// BufferAddress: allocation start of buffer `buffer` + byteOffset.
  size_t buffer = 0;
  uint64_t byteOffset = 0;
  /// Immediate: the little-endian bytes.
  std::vector<uint8_t> bytes;
  unsigned byteSize() const {
    return kind == Kind::BufferAddress ? 8
                                       : static_cast<unsigned>(bytes.size());
  }
};

struct ShapePlan {
  size_t shapeIndex = 0;
  unsigned offsetVariant = 0;
  Placement placement = Placement::Stated;
  SizeBindings bindings;
  std::vector<BufferLayout> buffers;
  std::vector<ParamSlot> params;
  LaunchDims referenceLaunch;
  std::vector<LaunchDims> candidateLaunches;
  /// timing.flops at this shape; absent when the bundle states none.
  std::optional<uint64_t> flops;

  /// "N=97" or "M=3 N=5, offsets a=3 c=5".
  std::string describe(const VerificationBundle &bundle) const;
  /// Offsets of buffers whose offset is not 0.
  std::vector<std::pair<std::string, int64_t>> nonZeroOffsets() const;
  uint64_t largestElementCount() const;
  /// The traffic one run cannot avoid: every input and output buffer's
  /// logical elements (the product of its shape, whatever its strides)
  /// times the element size, once; inouts twice (read and written);
  /// scratch buffers not at all.
  uint64_t compulsoryBytes() const;
  /// What one kernel's buffers allocate, guards and padding included.
  uint64_t allocationBytes() const;
};

/// 2 when some buffer has an "any" offset (offset 0 and non-zero), else 1.
unsigned offsetVariantCount(const VerificationBundle &bundle);

/// Evaluates the bundle for shapeAt(shapeIndex). Errors name the JSON path of
/// the expression and the shape. `guardBytes` 0 gives tight allocations
/// (used under compute-sanitizer, whose memcheck sees only accesses outside
/// an allocation).
ValueOrError<ShapePlan> planShape(const VerificationBundle &bundle,
                                  size_t shapeIndex, unsigned offsetVariant,
                                  uint64_t guardBytes = kGuardBytes,
                                  Placement placement = Placement::Stated);

/// The shape index speed is decided at: the production shape when the
/// bundle has one, else largestCheckedShapeIndex.
size_t timingShapeIndex(const VerificationBundle &bundle);

/// The correctness shape timed when there is no production shape (and
/// besides it when there is): timing.shape, negative from the end.
size_t largestCheckedShapeIndex(const VerificationBundle &bundle);

/// ShapePlan::compulsoryBytes of shapes[shapeIndex] (offset variant 0).
ValueOrError<uint64_t> compulsoryBytes(const VerificationBundle &bundle,
                                       size_t shapeIndex);

/// Bytes of a parameter as the bundle declares it (pointers are 8 bytes).
unsigned paramByteSize(const ParamSpec &param);

/// The parameter bytes `kernel` declares: the bundle's parameters, then one
/// 128-byte tensor map per map it asks for.
std::vector<unsigned> kernelParamSizes(const VerificationBundle &bundle,
                                       const KernelObject &kernel);

/// Bytes of a scalar parameter type, or 0 when the name is unknown.
unsigned scalarTypeByteSize(std::string_view type);

/// Encodes a scalar value of `type`; `text` is an expression, or a float
/// literal ("2.5", "-0", "nan", "inf") for float types.
ValueOrError<std::vector<uint8_t>> encodeScalar(std::string_view type,
                                                std::string_view text,
                                                const SizeBindings &bindings);

/// "N=97 M=3", sizes in the bundle's order.
std::string formatShape(const VerificationBundle &bundle,
                        const SizeBindings &bindings);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_PLAN_H
