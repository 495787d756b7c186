//===- Plan.cpp - A bundle evaluated for one shape ------------------------===//

#include "llmptx/Runtime/Plan.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>

using namespace llmptx::runtime;

/// Allocations larger than this are a bundle error, not an attempt.
static constexpr uint64_t kMaxAllocationBytes = uint64_t(1) << 40;

uint64_t BufferLayout::elementByteOffset(uint64_t linear) const {
  uint64_t bytes = elementBytes();
  if (contiguous)
    return firstElementByteOffset() + linear * bytes;
  uint64_t physical = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    uint64_t extent = static_cast<uint64_t>(sizes[d]);
    uint64_t index = extent ? linear % extent : 0;
    linear = extent ? linear / extent : 0;
    physical += index * static_cast<uint64_t>(strides[d]);
  }
  return firstElementByteOffset() + physical * bytes;
}

std::vector<int64_t> BufferLayout::multiIndex(uint64_t linear) const {
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    uint64_t extent = static_cast<uint64_t>(sizes[d]);
    index[d] = extent ? static_cast<int64_t>(linear % extent) : 0;
    linear = extent ? linear / extent : 0;
  }
  return index;
}

std::vector<uint8_t> BufferLayout::elementMask() const {
  std::vector<uint8_t> mask(allocationBytes, 0);
  unsigned bytes = elementBytes();
  if (contiguous) {
    if (elementCount)
      std::memset(mask.data() + firstElementByteOffset(), 1,
                  elementCount * bytes);
    return mask;
  }
  for (uint64_t i = 0; i < elementCount; ++i)
    std::memset(mask.data() + elementByteOffset(i), 1, bytes);
  return mask;
}

std::string LaunchDims::describe() const {
  std::string text =
      "grid (" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) +
      ", " + std::to_string(grid[2]) + ") block (" + std::to_string(block[0]) +
      ", " + std::to_string(block[1]) + ", " + std::to_string(block[2]) + ")";
  if (dynamicSharedBytes)
    text += " dynamic shared " + std::to_string(dynamicSharedBytes);
  return text;
}

std::string llmptx::runtime::formatShape(const VerificationBundle &bundle,
                                         const SizeBindings &bindings) {
  std::string text;
  auto append = [&](const std::string &name, int64_t value) {
    if (!text.empty())
      text += ' ';
    text += name + "=" + std::to_string(value);
  };
  for (const std::string &size : bundle.sizes) {
    auto it = bindings.find(size);
    if (it != bindings.end())
      append(size, it->second);
  }
  for (const auto &[name, value] : bindings)
    if (std::find(bundle.sizes.begin(), bundle.sizes.end(), name) ==
        bundle.sizes.end())
      append(name, value);
  return text.empty() ? "(no sizes)" : text;
}

std::vector<std::pair<std::string, int64_t>> ShapePlan::nonZeroOffsets() const {
  std::vector<std::pair<std::string, int64_t>> result;
  for (const BufferLayout &layout : buffers)
    if (layout.offset != 0)
      result.emplace_back(layout.name, layout.offset);
  return result;
}

std::string ShapePlan::describe(const VerificationBundle &bundle) const {
  std::string text = formatShape(bundle, bindings);
  auto offsets = nonZeroOffsets();
  if (!offsets.empty()) {
    text += ", offsets";
    for (const auto &[name, offset] : offsets)
      text += " " + name + "=" + std::to_string(offset);
  }
  return text;
}

uint64_t ShapePlan::largestElementCount() const {
  uint64_t largest = 0;
  for (const BufferLayout &layout : buffers)
    largest = std::max(largest, layout.elementCount);
  return largest;
}

uint64_t ShapePlan::allocationBytes() const {
  uint64_t bytes = 0;
  for (const BufferLayout &layout : buffers)
    bytes += layout.allocationBytes;
  return bytes;
}

uint64_t ShapePlan::compulsoryBytes() const {
  uint64_t bytes = 0;
  for (const BufferLayout &layout : buffers) {
    uint64_t logical = layout.elementCount * layout.elementBytes();
    switch (layout.role) {
    case BufferRole::Input:
    case BufferRole::Output:
      bytes += logical;
      break;
    case BufferRole::InOut:
      bytes += 2 * logical;
      break;
    case BufferRole::Scratch:
      break;
    }
  }
  return bytes;
}

size_t llmptx::runtime::timingShapeIndex(const VerificationBundle &bundle) {
  if (bundle.timing.production)
    return bundle.shapes.size();
  return largestCheckedShapeIndex(bundle);
}

size_t
llmptx::runtime::largestCheckedShapeIndex(const VerificationBundle &bundle) {
  int64_t count = static_cast<int64_t>(bundle.shapes.size());
  int64_t index = bundle.timing.shape < 0 ? count + bundle.timing.shape
                                          : bundle.timing.shape;
  return static_cast<size_t>(std::max<int64_t>(index, 0));
}

ValueOrError<uint64_t>
llmptx::runtime::compulsoryBytes(const VerificationBundle &bundle,
                                 size_t shapeIndex) {
  auto plan = planShape(bundle, shapeIndex, 0);
  if (!plan)
    return Failure{plan.error()};
  return plan->compulsoryBytes();
}

unsigned llmptx::runtime::offsetVariantCount(const VerificationBundle &bundle) {
  for (const BufferSpec &buffer : bundle.buffers)
    if (buffer.anyOffset())
      return 2;
  return 1;
}

unsigned llmptx::runtime::scalarTypeByteSize(std::string_view type) {
  if (type == "i8" || type == "u8")
    return 1;
  if (type == "i16" || type == "u16" || type == "f16" || type == "bf16")
    return 2;
  if (type == "i32" || type == "u32" || type == "f32")
    return 4;
  if (type == "i64" || type == "u64" || type == "f64")
    return 8;
  return 0;
}

unsigned llmptx::runtime::paramByteSize(const ParamSpec &param) {
  switch (param.role) {
  case ParamRole::AllocatedPtr:
  case ParamRole::AlignedPtr:
  case ParamRole::BarePtr:
    return 8;
  case ParamRole::Offset:
  case ParamRole::Size:
  case ParamRole::Stride:
    return param.type == "i32" ? 4 : 8;
  case ParamRole::Scalar:
    return scalarTypeByteSize(param.type);
  }
  return 0;
}

std::vector<unsigned>
llmptx::runtime::kernelParamSizes(const VerificationBundle &bundle,
                                  const KernelObject &kernel) {
  std::vector<unsigned> sizes;
  for (const ParamSpec &param : bundle.params)
    sizes.push_back(paramByteSize(param));
  sizes.insert(sizes.end(), kernel.tensorMaps.size(), kTensorMapBytes);
  return sizes;
}

static std::vector<uint8_t> littleEndian(uint64_t bits, unsigned bytes) {
  std::vector<uint8_t> result(bytes);
  std::memcpy(result.data(), &bits, bytes);
  return result;
}

/// A float literal as C's strtod reads it, the whole text.
static bool parseFloatLiteral(std::string_view text, double &value) {
  std::string copy(text);
  while (!copy.empty() && copy.back() == ' ')
    copy.pop_back();
  size_t start = copy.find_first_not_of(' ');
  if (start == std::string::npos)
    return false;
  const char *begin = copy.c_str() + start;
  char *end = nullptr;
  errno = 0;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0';
}

ValueOrError<std::vector<uint8_t>>
llmptx::runtime::encodeScalar(std::string_view type, std::string_view text,
                              const SizeBindings &bindings) {
  unsigned bytes = scalarTypeByteSize(type);
  if (!bytes)
    return Failure{"unknown scalar type '" + std::string(type) +
                   "' (i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64)"};
  bool isFloat = type[0] == 'f' || type[0] == 'b';
  if (isFloat) {
    double value;
    if (!parseFloatLiteral(text, value)) {
      auto integer = evaluateExpression(text, bindings);
      if (!integer)
        return Failure{"'" + std::string(text) +
                       "' is neither a float literal nor an expression: " +
                       integer.error()};
      value = static_cast<double>(*integer);
    }
    ElementType element = type == "f16"    ? ElementType::F16
                          : type == "bf16" ? ElementType::BF16
                          : type == "f32"  ? ElementType::F32
                                           : ElementType::F64;
    return littleEndian(doubleToFloatBits(element, value), bytes);
  }
  auto integer = evaluateExpression(text, bindings);
  if (!integer)
    return Failure{integer.error()};
  int64_t value = *integer;
  bool isUnsigned = type[0] == 'u';
  if (bytes < 8) {
    int64_t lo = isUnsigned ? 0 : -(int64_t(1) << (8 * bytes - 1));
    int64_t hi = isUnsigned ? (int64_t(1) << (8 * bytes)) - 1
                            : (int64_t(1) << (8 * bytes - 1)) - 1;
    if (value < lo || value > hi)
      return Failure{"value " + std::to_string(value) + " of '" +
                     std::string(text) + "' does not fit " + std::string(type)};
  } else if (isUnsigned && value < 0) {
    return Failure{"negative value " + std::to_string(value) + " for " +
                   std::string(type)};
  }
  return littleEndian(static_cast<uint64_t>(value), bytes);
}

namespace {
/// Evaluates bundle expressions for one shape, naming the JSON path and the
/// shape in errors.
class ShapeEvaluator {
public:
  ShapeEvaluator(const VerificationBundle &bundle, size_t shapeIndex)
      : bundle(bundle), shapeIndex(shapeIndex),
        bindings(bundle.shapeAt(shapeIndex)) {}

  bool evaluate(const std::string &text, const std::string &path,
                int64_t &value) {
    auto result = evaluateExpression(text, bindings);
    if (!result) {
      fail(path, result.error());
      return false;
    }
    value = *result;
    return true;
  }

  void fail(const std::string &path, const std::string &message) {
    if (error.empty())
      error = path + ": " + message + " (shape " + std::to_string(shapeIndex) +
              ": " + formatShape(bundle, bindings) + ")";
  }

  const VerificationBundle &bundle;
  size_t shapeIndex;
  const SizeBindings &bindings;
  std::string error;
};
} // namespace

static bool planLaunch(ShapeEvaluator &evaluator, const LaunchSpec &spec,
                       const std::string &path, LaunchDims &dims) {
  static const char *axes[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    int64_t grid, block;
    std::string gridPath = path + ".grid[" + std::to_string(axis) + "]";
    std::string blockPath = path + ".block[" + std::to_string(axis) + "]";
    if (!evaluator.evaluate(spec.grid[axis], gridPath, grid) ||
        !evaluator.evaluate(spec.block[axis], blockPath, block))
      return false;
    int64_t gridLimit = axis == 0 ? 2147483647 : 65535;
    if (grid < 0 || grid > gridLimit) {
      evaluator.fail(gridPath, "grid " + std::string(axes[axis]) + " = " +
                                   std::to_string(grid) + " is outside [0, " +
                                   std::to_string(gridLimit) + "]");
      return false;
    }
    if (block < 1 || block > 1024) {
      evaluator.fail(blockPath, "block " + std::string(axes[axis]) + " = " +
                                    std::to_string(block) +
                                    " is outside [1, 1024]");
      return false;
    }
    dims.grid[axis] = static_cast<uint32_t>(grid);
    dims.block[axis] = static_cast<uint32_t>(block);
  }
  int64_t shared;
  std::string sharedPath = path + ".dynamic_shared_bytes";
  if (!evaluator.evaluate(spec.dynamicSharedBytes, sharedPath, shared))
    return false;
  if (shared < 0 || shared > (int64_t(1) << 30)) {
    evaluator.fail(sharedPath, "dynamic shared bytes " +
                                   std::to_string(shared) + " out of range");
    return false;
  }
  dims.dynamicSharedBytes = static_cast<uint32_t>(shared);
  return true;
}

/// The sizes and element count of buffer `spec`, whose JSON path is `path`.
static bool planExtents(ShapeEvaluator &evaluator, const BufferSpec &spec,
                        const std::string &path, BufferLayout &layout) {
  uint64_t count = 1;
  for (size_t d = 0; d < spec.shape.size(); ++d) {
    int64_t size;
    std::string dimPath = path + ".shape[" + std::to_string(d) + "]";
    if (!evaluator.evaluate(spec.shape[d], dimPath, size))
      return false;
    if (size < 0) {
      evaluator.fail(dimPath, "negative size " + std::to_string(size));
      return false;
    }
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(size), &count) ||
        count > kMaxAllocationBytes) {
      evaluator.fail(dimPath, "buffer '" + spec.name + "' is too large");
      return false;
    }
    layout.sizes.push_back(size);
  }
  layout.elementCount = count;
  return true;
}

/// The strides of the buffer (row-major unless given) and whether they
/// make it contiguous.
static bool planStrides(ShapeEvaluator &evaluator, const BufferSpec &spec,
                        const std::string &path, BufferLayout &layout) {
  size_t rank = layout.sizes.size();
  std::vector<int64_t> dense(rank, 1);
  for (size_t d = rank; d-- > 1;)
    dense[d - 1] = dense[d] * std::max<int64_t>(layout.sizes[d], 1);
  if (spec.strides.empty()) {
    layout.strides = dense;
  } else {
    for (size_t d = 0; d < spec.strides.size(); ++d) {
      int64_t stride;
      std::string stridePath = path + ".strides[" + std::to_string(d) + "]";
      if (!evaluator.evaluate(spec.strides[d], stridePath, stride))
        return false;
      if (stride < 0) {
        evaluator.fail(stridePath, "negative stride " + std::to_string(stride));
        return false;
      }
      layout.strides.push_back(stride);
    }
  }
  layout.contiguous = true;
  for (size_t d = 0; d < rank; ++d)
    if (layout.sizes[d] > 1 && layout.strides[d] != dense[d])
      layout.contiguous = false;
  return true;
}

/// The buffer's offset in elements: the bundle's, or for a buffer whose
/// offset may be anything, 0 in variant 0 and a distinct non-zero one in
/// variant 1 (`anyIndex` counts such buffers before this one).
static bool planOffset(ShapeEvaluator &evaluator, const BufferSpec &spec,
                       const std::string &path, unsigned offsetVariant,
                       int anyIndex, BufferLayout &layout) {
  if (spec.anyOffset()) {
    layout.offset = offsetVariant == 0 ? 0 : kNonZeroOffset + 2 * anyIndex;
    return true;
  }
  int64_t offset;
  if (!evaluator.evaluate(spec.offset, path + ".offset", offset))
    return false;
  if (offset < 0) {
    evaluator.fail(path + ".offset",
                   "negative offset " + std::to_string(offset));
    return false;
  }
  layout.offset = offset;
  return true;
}

/// Elements of outputs must not alias: sorted by stride, each stride must
/// step over everything the smaller ones reach.
static bool checkOutputElementsDistinct(ShapeEvaluator &evaluator,
                                        const BufferSpec &spec,
                                        const std::string &path,
                                        const BufferLayout &layout) {
  if ((spec.role != BufferRole::Output && spec.role != BufferRole::InOut) ||
      layout.elementCount <= 1)
    return true;
  std::vector<size_t> order;
  for (size_t d = 0; d < layout.sizes.size(); ++d)
    if (layout.sizes[d] > 1)
      order.push_back(d);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return layout.strides[a] < layout.strides[b];
  });
  uint64_t reach = 0;
  for (size_t d : order) {
    if (static_cast<uint64_t>(layout.strides[d]) <= reach) {
      evaluator.fail(path + ".strides", "elements of output buffer '" +
                                            spec.name + "' overlap (stride " +
                                            std::to_string(layout.strides[d]) +
                                            ")");
      return false;
    }
    reach += static_cast<uint64_t>(layout.strides[d]) *
             static_cast<uint64_t>(layout.sizes[d] - 1);
  }
  return true;
}

/// Where the aligned pointer sits and how many bytes the allocation has:
/// `guardBytes` of guard on each side of the elements the layout reaches.
static bool planAllocation(ShapeEvaluator &evaluator,
                           const VerificationBundle &bundle, size_t index,
                           const std::string &path, uint64_t guardBytes,
                           Placement placement, BufferLayout &layout) {
  const BufferSpec &spec = bundle.buffers[index];
  uint64_t span = static_cast<uint64_t>(layout.offset);
  if (layout.elementCount > 0) {
    uint64_t last = 0;
    for (size_t d = 0; d < layout.sizes.size(); ++d) {
      uint64_t term;
      if (__builtin_mul_overflow(static_cast<uint64_t>(layout.sizes[d] - 1),
                                 static_cast<uint64_t>(layout.strides[d]),
                                 &term) ||
          __builtin_add_overflow(last, term, &last)) {
        evaluator.fail(path, "buffer '" + spec.name + "' is too large");
        return false;
      }
    }
    span += last + 1;
  }
  uint64_t alignment = bundle.bufferAlignment(index);
  bool pad = placement == Placement::Stated && alignment < kMaxAlignment;
  layout.alignedByteOffset = guardBytes + (pad ? alignment : 0);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(span, uint64_t(elementByteSize(spec.element)),
                             &bytes) ||
      bytes > kMaxAllocationBytes) {
    evaluator.fail(path, "buffer '" + spec.name + "' is too large");
    return false;
  }
  uint64_t total = layout.alignedByteOffset + bytes + guardBytes;
  // Guarded allocations end on a 256-byte boundary; tight ones end right
  // after the last element.
  layout.allocationBytes = guardBytes ? (total + 255) / 256 * 256 : total;
  return true;
}

static bool planBuffer(ShapeEvaluator &evaluator,
                       const VerificationBundle &bundle, size_t index,
                       unsigned offsetVariant, int anyIndex,
                       uint64_t guardBytes, Placement placement,
                       BufferLayout &layout) {
  const BufferSpec &spec = bundle.buffers[index];
  std::string path = "$.buffers[" + std::to_string(index) + "]";
  layout.name = spec.name;
  layout.index = static_cast<unsigned>(index);
  layout.element = spec.element;
  layout.role = spec.role;
  return planExtents(evaluator, spec, path, layout) &&
         planStrides(evaluator, spec, path, layout) &&
         planOffset(evaluator, spec, path, offsetVariant, anyIndex, layout) &&
         checkOutputElementsDistinct(evaluator, spec, path, layout) &&
         planAllocation(evaluator, bundle, index, path, guardBytes, placement,
                        layout);
}

/// The reference's and each candidate's launch: the bundle's, or their own.
static bool planLaunches(ShapeEvaluator &evaluator,
                         const VerificationBundle &bundle, ShapePlan &plan) {
  LaunchDims base;
  if (!planLaunch(evaluator, bundle.launch, "$.launch", base))
    return false;
  plan.referenceLaunch = base;
  if (bundle.reference.launch &&
      !planLaunch(evaluator, *bundle.reference.launch, "$.reference.launch",
                  plan.referenceLaunch))
    return false;
  for (size_t c = 0; c < bundle.candidates.size(); ++c) {
    LaunchDims dims = base;
    if (bundle.candidates[c].launch &&
        !planLaunch(evaluator, *bundle.candidates[c].launch,
                    "$.candidates[" + std::to_string(c) + "].launch", dims))
      return false;
    plan.candidateLaunches.push_back(dims);
  }
  return true;
}

/// The flop count of the bundle's timing section, when it gives one.
static bool planFlops(ShapeEvaluator &evaluator,
                      const VerificationBundle &bundle, ShapePlan &plan) {
  if (bundle.timing.flops.empty())
    return true;
  int64_t flops;
  if (!evaluator.evaluate(bundle.timing.flops, "$.timing.flops", flops))
    return false;
  if (flops < 0) {
    evaluator.fail("$.timing.flops",
                   "negative flop count " + std::to_string(flops));
    return false;
  }
  plan.flops = static_cast<uint64_t>(flops);
  return true;
}

/// The bytes (or buffer address) of parameter `index`, whose buffers are
/// already planned.
static ValueOrError<ParamSlot> planParam(ShapeEvaluator &evaluator,
                                         const VerificationBundle &bundle,
                                         size_t index, const ShapePlan &plan) {
  const ParamSpec &spec = bundle.params[index];
  std::string path = "$.params[" + std::to_string(index) + "]";
  ParamSlot slot;
  if (spec.role == ParamRole::Scalar) {
    auto bytes = encodeScalar(spec.type, spec.value, plan.bindings);
    if (!bytes) {
      evaluator.fail(path + ".value", bytes.error());
      return Failure{evaluator.error};
    }
    slot.bytes = bytes.take();
    return slot;
  }
  int buffer = bundle.findBuffer(spec.buffer);
  if (buffer < 0)
    return Failure{path + ".buffer: unknown buffer '" + spec.buffer + "'"};
  const BufferLayout &layout = plan.buffers[buffer];
  unsigned bytes = paramByteSize(spec);
  switch (spec.role) {
  case ParamRole::AllocatedPtr:
    slot.kind = ParamSlot::Kind::BufferAddress;
    slot.buffer = buffer;
    slot.byteOffset = 0;
    break;
  case ParamRole::AlignedPtr:
    slot.kind = ParamSlot::Kind::BufferAddress;
    slot.buffer = buffer;
    slot.byteOffset = layout.alignedByteOffset;
    break;
  case ParamRole::BarePtr:
    slot.kind = ParamSlot::Kind::BufferAddress;
    slot.buffer = buffer;
    slot.byteOffset = layout.firstElementByteOffset();
    break;
  case ParamRole::Offset:
    slot.bytes = littleEndian(static_cast<uint64_t>(layout.offset), bytes);
    break;
  case ParamRole::Size:
  case ParamRole::Stride: {
    if (spec.dim >= layout.sizes.size())
      return Failure{path + ".dim: dimension " + std::to_string(spec.dim) +
                     " of buffer '" + spec.buffer + "' of rank " +
                     std::to_string(layout.sizes.size())};
    int64_t value = spec.role == ParamRole::Size ? layout.sizes[spec.dim]
                                                 : layout.strides[spec.dim];
    if (bytes == 4 && value > std::numeric_limits<int32_t>::max()) {
      evaluator.fail(path, std::string(paramRoleName(spec.role)) + " " +
                               std::to_string(value) + " does not fit i32");
      return Failure{evaluator.error};
    }
    slot.bytes = littleEndian(static_cast<uint64_t>(value), bytes);
    break;
  }
  case ParamRole::Scalar:
    break;
  }
  return slot;
}

ValueOrError<ShapePlan>
llmptx::runtime::planShape(const VerificationBundle &bundle, size_t shapeIndex,
                           unsigned offsetVariant, uint64_t guardBytes,
                           Placement placement) {
  if (shapeIndex >= bundle.shapeCount())
    return Failure{"shape index " + std::to_string(shapeIndex) +
                   " out of range"};
  ShapeEvaluator evaluator(bundle, shapeIndex);
  ShapePlan plan;
  plan.shapeIndex = shapeIndex;
  plan.offsetVariant = offsetVariant;
  plan.placement = placement;
  plan.bindings = bundle.shapeAt(shapeIndex);

  int anyIndex = 0;
  for (size_t i = 0; i < bundle.buffers.size(); ++i) {
    BufferLayout layout;
    if (!planBuffer(evaluator, bundle, i, offsetVariant, anyIndex, guardBytes,
                    placement, layout))
      return Failure{evaluator.error};
    if (bundle.buffers[i].anyOffset())
      ++anyIndex;
    plan.buffers.push_back(std::move(layout));
  }
  if (!planLaunches(evaluator, bundle, plan) ||
      !planFlops(evaluator, bundle, plan))
    return Failure{evaluator.error};
  for (size_t p = 0; p < bundle.params.size(); ++p) {
    auto slot = planParam(evaluator, bundle, p, plan);
    if (!slot)
      return Failure{slot.error()};
    plan.params.push_back(slot.take());
  }
  return plan;
}
