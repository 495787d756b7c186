//===- Bundle.h - Verification bundles --------------------------*- C++ -*-===//
//
// A verification bundle is the self-contained, versioned JSON document that
// the compiler hands to llmptx-runner: the reference PTX, the candidate PTX,
// the kernel ABI with the role of every parameter, the buffers with their
// element types, shapes, layouts, input recipes and tolerances, the launch
// configuration and the shapes to run. docs/verification.md is the format's
// reference. Expressions (sizes, strides, launch dimensions...) are kept as
// text here and evaluated per shape by Plan.h.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_BUNDLE_H
#define LLMPTX_RUNTIME_BUNDLE_H

#include "llmptx/Runtime/ElementType.h"
#include "llmptx/Runtime/Expression.h"
#include "llmptx/Runtime/TensorMap.h"
#include "llmptx/Runtime/ValueOrError.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmptx::runtime {

inline constexpr const char *kBundleFormat = "llmptx-verification-bundle";
inline constexpr unsigned kBundleVersion = 1;
/// Seed of the input recipes when the bundle names none.
inline constexpr uint64_t kDefaultSeed = 0x6c6c6d707478ull; // "llmptx"

enum class BufferRole { Input, Output, InOut, Scratch };
const char *bufferRoleName(BufferRole role);

/// How a buffer's elements are initialised. Every recipe is deterministic in
/// (bundle seed, buffer name), so reference and candidate see the same data.
struct InitRecipe {
  enum class Kind { Uniform, RandInt, Iota, Zeros, Constant, Copy };
  Kind kind = Kind::Zeros;
  /// uniform: [lo, hi); randint: [lo, hi] (integers).
  double lo = 0, hi = 1;
  /// uniform: mix in NaN, +-Inf, -0, denormals and operands whose products
  /// and differences are denormal.
  bool special = false;
  /// iota: start + step * linear index.
  double start = 0, step = 1;
  /// constant: a number or "nan", "inf", "-inf", "-0".
  std::string value;
  /// copy: name of an input buffer with the same element type and count.
  std::string from;
};
const char *initRecipeKindName(InitRecipe::Kind kind);

/// The widest ulp tolerance a bundle or harness may state: 2^20 ulp is an
/// eighth of a binade in f32 and already accepts wrong bf16/f16 results, so
/// anything wider is a typo that would accept every finite output.
inline constexpr uint64_t kMaxUlpTolerance = 1u << 20;

/// When a float output element counts as equal to the reference: bit-equal,
/// or within any one of the bounds that is set. NaN equals NaN of any
/// payload; -0 equals +0 unless signedZero.
struct Tolerance {
  uint64_t ulp = 0;
  double rel = 0;
  double abs = 0;
  bool signedZero = false;
};

struct BufferSpec {
  std::string name;
  ElementType element = ElementType::F32;
  /// One expression per dimension.
  std::vector<std::string> shape;
  /// One expression per dimension, in elements; empty means row-major
  /// contiguous.
  std::vector<std::string> strides;
  /// Element offset of the memref: an expression, or "any" for a dynamic
  /// offset layout, which the runner tests with 0 and with a non-zero offset.
  std::string offset = "0";
  BufferRole role = BufferRole::Input;
  /// Absent: uniform [-1, 1) for floats, randint [-100, 100] for integers
  /// ([0, 1] for i1) on inputs and inouts, zeros on scratch buffers.
  std::optional<InitRecipe> init;
  Tolerance tolerance;
  /// Alignment in bytes of the aligned pointer; 0 = the bundle's.
  uint64_t alignment = 0;

  bool anyOffset() const { return offset == "any"; }
};

enum class ParamRole {
  AllocatedPtr,
  AlignedPtr,
  Offset,
  Size,
  Stride,
  BarePtr,
  Scalar
};
const char *paramRoleName(ParamRole role);

/// One kernel parameter, in PTX .param order.
struct ParamSpec {
  ParamRole role = ParamRole::Scalar;
  /// The buffer of pointer, offset, size and stride parameters.
  std::string buffer;
  /// The dimension of size and stride parameters.
  unsigned dim = 0;
  /// Scalars: i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64. Offset, size
  /// and stride: i64 (default) or i32 (index-bitwidth=32).
  std::string type;
  /// Scalars: an expression, or a float literal for float types.
  std::string value;
};

struct LaunchSpec {
  std::array<std::string, 3> grid{"1", "1", "1"};
  std::array<std::string, 3> block{"1", "1", "1"};
  std::string dynamicSharedBytes = "0";
};

struct KernelObject {
  std::string name;
  std::string entry;
  std::string ptx;
  /// Overrides the bundle's launch configuration for this kernel.
  std::optional<LaunchSpec> launch;
  /// Tensor maps the runner builds for every shape and passes after the
  /// bundle's parameters, in order (candidates only).
  std::vector<TensorMapSpec> tensorMaps;
};

/// Speedups above this are confirmed before they count (see
/// docs/verification.md, "Confirmation").
inline constexpr double kDefaultConfirmAbove = 10.0;

struct TimingSpec {
  /// The largest shape of the correctness checks: an index into shapes;
  /// negative counts from the end (-1 = last).
  int64_t shape = -1;
  unsigned minRuns = 30;
  double maxMs = 2000;
  /// Floating-point operations of one run, an expression of the sizes
  /// ("2 * M * N * K"); empty when unknown. The results then give GFLOP/s.
  std::string flops;
  /// The production shape speed is decided at: sizes of their own, timed
  /// (and checked after timing) but not among the four-run checks. Where a
  /// shape index is taken, shapes.size() names it. Absent: speed is
  /// decided at `shape`.
  std::optional<SizeBindings> production;
  /// A candidate faster than this many times the reference is confirmed
  /// (fresh inputs on every shape, a second timed input set, sanitizers)
  /// before its results count; 0 confirms every candidate.
  double confirmAbove = kDefaultConfirmAbove;
};

struct VerificationBundle {
  std::string kernel;
  std::string chip;
  uint64_t seed = kDefaultSeed;
  std::vector<std::string> sizes;
  std::vector<SizeBindings> shapes;
  LaunchSpec launch;
  std::vector<BufferSpec> buffers;
  /// Bytes the module guarantees for aligned pointers; 0 = element size.
  uint64_t alignment = 0;
  std::vector<ParamSpec> params;
  KernelObject reference;
  std::vector<KernelObject> candidates;
  TimingSpec timing;

  /// The buffer named `name`, or -1.
  int findBuffer(std::string_view name) const;
  /// The correctness shapes, plus the production shape when there is one.
  size_t shapeCount() const;
  /// shapes[index], or the production shape at index shapes.size().
  const SizeBindings &shapeAt(size_t index) const;
  /// The effective alignment of buffer `index` in bytes.
  uint64_t bufferAlignment(size_t index) const;
};

/// Parses and validates a bundle. Errors carry the JSON path of the
/// offending value ("$.buffers[1].shape[0]: unknown size 'Q'") or the
/// line and column of a syntax error.
ValueOrError<VerificationBundle> parseBundleJson(std::string_view text);

/// Reads and parses a bundle file; errors start with the path.
ValueOrError<VerificationBundle> readBundleFile(const std::string &path);

/// Checks everything parseBundleJson checks on an in-memory bundle (the
/// compiler side builds bundles in memory): returns the first problem.
std::optional<std::string> validateBundle(const VerificationBundle &bundle);

/// Serialises a bundle (format and version included). Expressions that are
/// plain integers are written as JSON numbers.
std::string writeBundleJson(const VerificationBundle &bundle);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_BUNDLE_H
