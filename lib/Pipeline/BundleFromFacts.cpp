//===- BundleFromFacts.cpp - Verification bundles from stated facts -------===//
//
// The bundle says only what the module states: memref types and layouts,
// which arguments are written, the harness's sizes and grid, the host's
// constant launches and known_block_size. What is missing is named, never
// guessed.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/BundleFromFacts.h"

#include "llmptx/Runtime/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llmptx;

/// A fact the module lacks, as an error.
static llvm::Error missingFact(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), what);
}

static std::string argName(unsigned index) {
  return "arg" + std::to_string(index);
}

static std::string number(int64_t value) { return std::to_string(value); }

std::vector<runtime::SizeBindings>
llmptx::defaultShapes(const std::vector<std::string> &sizes) {
  // Rows of values for up to three sizes; each row mixes 1, primes and
  // non-multiples of 32/128/256, the last row is large.
  static const int64_t table[][3] = {
      {1, 1, 1},      {7, 13, 5},       {97, 31, 17},        {257, 130, 65},
      {1000, 61, 33}, {4099, 521, 129}, {1048583, 1031, 263}};
  const int64_t cap = int64_t(1) << 24;
  std::vector<runtime::SizeBindings> shapes;
  for (const auto &row : table) {
    runtime::SizeBindings binding;
    int64_t product = 1;
    for (auto [index, size] : llvm::enumerate(sizes)) {
      int64_t value = row[index % 3];
      // A single size takes the large value; several sizes keep the product
      // under the cap.
      product *= value;
      binding[size] = value;
    }
    if (product > cap)
      continue;
    shapes.push_back(std::move(binding));
  }
  return shapes;
}

static std::string scalarType(const std::string &element) {
  if (element == "i1")
    return "u8";
  return element;
}

static runtime::LaunchSpec launchSpec(const LaunchConfig &launch) {
  runtime::LaunchSpec spec;
  spec.grid = launch.grid;
  for (unsigned i = 0; i < 3; ++i)
    spec.block[i] = number(launch.block[i]);
  spec.dynamicSharedBytes = number(launch.dynamicSharedBytes);
  return spec;
}

std::vector<runtime::SizeBindings>
llmptx::bundleShapes(const KernelDescription &kernel) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  if (!harness || harness->sizes.empty())
    return {runtime::SizeBindings()};
  std::vector<runtime::SizeBindings> shapes;
  if (!harness->shapes.empty()) {
    for (const std::vector<int64_t> &values : harness->shapes) {
      runtime::SizeBindings binding;
      for (auto [index, size] : llvm::enumerate(harness->sizes))
        binding[size] = values[index];
      shapes.push_back(std::move(binding));
    }
    return shapes;
  }
  // Stated divisibility: each size becomes the smallest multiple of its
  // divisor at least as large, so the smallest legal size is tested and no
  // size beyond the facts is.
  for (runtime::SizeBindings &shape : defaultShapes(harness->sizes)) {
    for (const auto &[size, divisor] : harness->divisible)
      shape[size] = (shape[size] + divisor - 1) / divisor * divisor;
    if (!llvm::is_contained(shapes, shape))
      shapes.push_back(std::move(shape));
  }
  return shapes;
}

llvm::Expected<LaunchConfig>
llmptx::referenceLaunch(const KernelDescription &kernel) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  const ConstantLaunch *host =
      kernel.hostLaunch ? &*kernel.hostLaunch : nullptr;
  LaunchConfig launch;
  launch.block = kernel.blockSize;
  if (!launch.block[0] && harness && harness->block[0])
    launch.block = harness->block;
  if (!launch.block[0] && host)
    launch.block = host->block;
  if (!launch.block[0])
    return missingFact("no block size: set known_block_size on the gpu.func "
                       "or block in the harness");
  if (harness && harness->hasGrid) {
    launch.grid = harness->grid;
  } else if (kernel.gridSize[0]) {
    for (unsigned i = 0; i < 3; ++i)
      launch.grid[i] = number(kernel.gridSize[i]);
  } else if (host) {
    for (unsigned i = 0; i < 3; ++i)
      launch.grid[i] = number(host->grid[i]);
  } else {
    return missingFact(
        "no grid: give grid in the harness as expressions of the sizes");
  }
  return launch;
}

/// The shape of memref `arg` (%arg`index`): static sizes, then each
/// dynamic one from the harness's args or the host's constant allocation.
static llvm::Expected<std::vector<std::string>>
bufferShape(const KernelDescription &kernel, const ArgumentInfo &arg,
            unsigned index) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  const ConstantLaunch *host =
      kernel.hostLaunch ? &*kernel.hostLaunch : nullptr;
  std::vector<std::string> dynamicDims;
  if (harness && index < harness->args.size())
    dynamicDims = runtime::splitExpressionList(harness->args[index]);
  std::vector<std::string> shape;
  unsigned nextDynamic = 0;
  for (auto [dim, size] : llvm::enumerate(arg.shape)) {
    if (size >= 0) {
      shape.push_back(number(size));
      continue;
    }
    if (nextDynamic >= dynamicDims.size() && host &&
        index < host->memrefShapes.size() &&
        dim < host->memrefShapes[index].size()) {
      // The host allocates it with a constant size.
      shape.push_back(number(host->memrefShapes[index][dim]));
      continue;
    }
    if (nextDynamic >= dynamicDims.size())
      return missingFact(llvm::formatv("no size for dynamic dimension {0} of "
                                       "%arg{1} ({2}): list it in the "
                                       "harness's args",
                                       dim, index, arg.mlirType));
    shape.push_back(dynamicDims[nextDynamic++]);
  }
  return shape;
}

/// Static strides are the layout's. Dynamic ones are tested with a gap: the
/// innermost dynamic stride is 2, outer ones span the dimension inside them,
/// so a candidate that assumes a contiguous view writes into the gaps, which
/// the runner watches.
static void setLayout(const ArgumentInfo &arg, runtime::BufferSpec &buffer) {
  if (arg.strides.empty())
    return;
  buffer.strides.assign(arg.strides.size(), "1");
  for (size_t dim = arg.strides.size(); dim-- > 0;) {
    if (arg.strides[dim] >= 0) {
      buffer.strides[dim] = number(arg.strides[dim]);
      continue;
    }
    buffer.strides[dim] = dim + 1 == arg.strides.size()
                              ? "2"
                              : "(" + buffer.shape[dim + 1] + ") * (" +
                                    buffer.strides[dim + 1] + ")";
  }
  buffer.offset = arg.offset < 0 ? "any" : number(arg.offset);
}

/// Input, output or both: from the kernel's stores, unless the harness
/// lists the outputs.
static runtime::BufferRole bufferRole(const ArgumentInfo &arg, unsigned index,
                                      const HarnessFacts *harness) {
  bool output =
      arg.access == "write" || arg.access == "readwrite" || arg.access.empty();
  bool input = arg.access != "write";
  if (harness && !harness->outputs.empty()) {
    output = llvm::is_contained(harness->outputs, int64_t(index));
    input = !output || arg.access != "write";
  }
  return output ? (input ? runtime::BufferRole::InOut
                         : runtime::BufferRole::Output)
                : runtime::BufferRole::Input;
}

/// Inputs, tolerances and alignment of a buffer.
static void setValues(const ArgumentInfo &arg, unsigned index,
                      const HarnessFacts *harness,
                      runtime::BufferSpec &buffer) {
  bool isFloat = runtime::isFloatType(buffer.element);
  // Float inputs mix in NaN, infinities, -0, denormals and operands whose
  // results are denormal, so a candidate that flushes or drops NaN fails.
  if (buffer.role != runtime::BufferRole::Output && isFloat) {
    runtime::InitRecipe recipe;
    recipe.kind = runtime::InitRecipe::Kind::Uniform;
    recipe.lo = -4;
    recipe.hi = 4;
    recipe.special = true;
    buffer.init = recipe;
  }
  // A stated value range replaces the default inputs: values across the
  // range, and no special values, which lie outside it.
  if (harness && buffer.role != runtime::BufferRole::Output)
    for (const auto &[argIndex, bounds] : harness->ranges) {
      if (argIndex != index)
        continue;
      runtime::InitRecipe recipe;
      recipe.kind = isFloat ? runtime::InitRecipe::Kind::Uniform
                            : runtime::InitRecipe::Kind::RandInt;
      recipe.lo = bounds.first;
      recipe.hi = bounds.second;
      buffer.init = recipe;
    }
  // Tolerances compare outputs; inputs are checked unchanged, bit for bit.
  if (harness && buffer.role != runtime::BufferRole::Input) {
    if (harness->ulp)
      buffer.tolerance.ulp = *harness->ulp;
    if (harness->rel)
      buffer.tolerance.rel = *harness->rel;
    if (harness->abs)
      buffer.tolerance.abs = *harness->abs;
  }
  buffer.alignment =
      std::max<uint64_t>(arg.alignment, harness ? harness->align : 0);
}

/// The buffer of memref argument `index`.
static llvm::Expected<runtime::BufferSpec>
bufferOf(const KernelDescription &kernel, const ArgumentInfo &arg,
         unsigned index) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  runtime::BufferSpec buffer;
  buffer.name = argName(index);
  std::optional<runtime::ElementType> element =
      runtime::parseElementType(arg.element);
  if (!element)
    return missingFact(llvm::formatv("%arg{0} has an element type the runner "
                                     "does not support ({1})",
                                     index, arg.mlirType));
  buffer.element = *element;
  llvm::Expected<std::vector<std::string>> shape =
      bufferShape(kernel, arg, index);
  if (!shape)
    return shape.takeError();
  buffer.shape = std::move(*shape);
  setLayout(arg, buffer);
  buffer.role = bufferRole(arg, index, harness);
  setValues(arg, index, harness, buffer);
  return buffer;
}

static runtime::ParamRole paramRole(ptx::AbiRole role) {
  switch (role) {
  case ptx::AbiRole::BarePointer:
    return runtime::ParamRole::BarePtr;
  case ptx::AbiRole::MemrefAllocatedPointer:
    return runtime::ParamRole::AllocatedPtr;
  case ptx::AbiRole::MemrefAlignedPointer:
    return runtime::ParamRole::AlignedPtr;
  case ptx::AbiRole::MemrefOffset:
    return runtime::ParamRole::Offset;
  case ptx::AbiRole::MemrefSize:
    return runtime::ParamRole::Size;
  case ptx::AbiRole::MemrefStride:
    return runtime::ParamRole::Stride;
  case ptx::AbiRole::Scalar:
  case ptx::AbiRole::TensorMap: // a candidate's, never the kernel's own ABI
    return runtime::ParamRole::Scalar;
  }
  return runtime::ParamRole::Scalar;
}

/// One PTX parameter, from its ABI role; a scalar takes its value from the
/// harness's args or the host's constant launch.
static llvm::Expected<runtime::ParamSpec>
paramOf(const KernelDescription &kernel, const ptx::AbiParam &param) {
  runtime::ParamSpec spec;
  spec.buffer = argName(param.argIndex);
  spec.dim = param.dim;
  spec.role = paramRole(param.role);
  if (param.role != ptx::AbiRole::Scalar)
    return spec;
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  const ConstantLaunch *host =
      kernel.hostLaunch ? &*kernel.hostLaunch : nullptr;
  spec.buffer.clear();
  const ArgumentInfo &arg = kernel.args[param.argIndex];
  spec.type = scalarType(arg.element);
  if (harness && param.argIndex < harness->args.size() &&
      !harness->args[param.argIndex].empty())
    spec.value = harness->args[param.argIndex];
  else if (host && param.argIndex < host->scalarValues.size())
    spec.value = host->scalarValues[param.argIndex];
  if (spec.value.empty() || spec.type.empty())
    return missingFact(llvm::formatv("no value for scalar %arg{0} ({1}): give "
                                     "it in the harness's args",
                                     param.argIndex, arg.mlirType));
  return spec;
}

/// The reference, then each candidate (under its own launch, when it
/// brings one: dynamic shared memory stays the host's unless the candidate
/// asks for its own, and its tensor maps map the buffers of their memrefs).
static void addKernels(const KernelDescription &kernel,
                       const std::vector<const Candidate *> &candidates,
                       runtime::VerificationBundle &bundle) {
  bundle.reference.name = kernel.referenceKind;
  bundle.reference.entry = kernel.name;
  bundle.reference.ptx = kernel.referencePtx;
  for (const Candidate *candidate : candidates) {
    runtime::KernelObject object;
    object.name = candidate->name();
    object.entry = kernel.name;
    object.ptx = candidate->ptx;
    if (const std::optional<LaunchConfig> &launch = candidate->launch) {
      object.launch = launchSpec(*launch);
      if (!launch->dynamicSharedBytes)
        object.launch->dynamicSharedBytes = bundle.launch.dynamicSharedBytes;
      for (const TensorMapRequest &map : launch->tensorMaps) {
        runtime::TensorMapSpec spec = map.spec;
        spec.buffer = argName(map.arg);
        object.tensorMaps.push_back(std::move(spec));
      }
    }
    bundle.candidates.push_back(std::move(object));
  }
}

/// `probe` at `shape`: the compulsory traffic, the stated flops and the
/// allocation of one kernel's buffers; nothing when it cannot be planned
/// (a grid dimension over the device limits, say).
struct ShapeCost {
  uint64_t bytes = 0;
  uint64_t flops = 0;
  uint64_t allocation = 0;

  bool fits() const { return allocation <= kProductionAllocationBytes; }
  bool isProductionSize() const {
    return bytes >= kProductionBytes || flops >= kProductionFlops;
  }
};
static std::optional<ShapeCost> costAt(runtime::VerificationBundle &probe,
                                       const runtime::SizeBindings &shape) {
  probe.timing.production = shape;
  auto plan = runtime::planShape(probe, probe.shapes.size(), 0);
  if (!plan)
    return std::nullopt;
  ShapeCost cost;
  cost.bytes = plan->compulsoryBytes();
  cost.flops = plan->flops.value_or(0);
  cost.allocation = plan->allocationBytes();
  return cost;
}

std::optional<runtime::SizeBindings>
llmptx::productionShape(const runtime::VerificationBundle &bundle,
                        const KernelDescription &kernel) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  if (harness && !harness->timing.empty()) {
    runtime::SizeBindings shape;
    for (auto [size, value] : llvm::zip(harness->sizes, harness->timing))
      shape[size] = value;
    return shape;
  }
  if (bundle.sizes.empty())
    return std::nullopt;
  // The largest correctness shape is where doubling starts; when it is
  // already large enough, speed is decided there.
  runtime::VerificationBundle probe = bundle;
  runtime::SizeBindings shape =
      bundle.shapes[runtime::largestCheckedShapeIndex(bundle)];
  std::optional<ShapeCost> cost = costAt(probe, shape);
  if (!cost || !cost->fits() || cost->isProductionSize())
    return std::nullopt;
  for (unsigned doublings = 1; doublings <= 48; ++doublings) {
    runtime::SizeBindings next = shape;
    for (auto &[size, value] : next)
      value *= 2;
    cost = costAt(probe, next);
    // Stop at the last shape that can run within the allocation budget.
    if (!cost || !cost->fits())
      return doublings > 1 ? std::optional(shape) : std::nullopt;
    shape = std::move(next);
    if (cost->isProductionSize())
      return shape;
  }
  return shape;
}

llvm::Expected<runtime::VerificationBundle>
llmptx::buildBundle(const KernelDescription &kernel, llvm::StringRef chip,
                    const std::vector<const Candidate *> &candidates) {
  if (kernel.args.empty() && !kernel.abi.params.empty())
    return missingFact("the kernel's signature was not recorded (run "
                       "llmgen-record-kernels before the NVVM lowering, as "
                       "llm-lower does)");
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  if (!harness && !kernel.hostLaunch)
    return missingFact("no launch facts: put #llmgen.harness<sizes = ..., "
                       "args = ..., grid = ...> on the gpu.func or launch it "
                       "from host code with constant sizes (" +
                       kernel.hostLaunchMissing + ")");

  runtime::VerificationBundle bundle;
  bundle.kernel = kernel.name;
  bundle.chip = chip.str();
  if (harness) {
    bundle.sizes = harness->sizes;
    bundle.timing.flops = harness->flops;
  }
  bundle.shapes = bundleShapes(kernel);
  for (auto [index, arg] : llvm::enumerate(kernel.args)) {
    if (!arg.isMemref)
      continue;
    llvm::Expected<runtime::BufferSpec> buffer = bufferOf(kernel, arg, index);
    if (!buffer)
      return buffer.takeError();
    bundle.buffers.push_back(std::move(*buffer));
  }
  for (const ptx::AbiParam &param : kernel.abi.params) {
    llvm::Expected<runtime::ParamSpec> spec = paramOf(kernel, param);
    if (!spec)
      return spec.takeError();
    bundle.params.push_back(std::move(*spec));
  }
  llvm::Expected<LaunchConfig> launch = referenceLaunch(kernel);
  if (!launch)
    return launch.takeError();
  bundle.launch = launchSpec(*launch);
  if (kernel.hostLaunch)
    bundle.launch.dynamicSharedBytes =
        number(kernel.hostLaunch->dynamicSharedBytes);
  bundle.timing.production = productionShape(bundle, kernel);
  addKernels(kernel, candidates, bundle);
  if (std::optional<std::string> invalid = runtime::validateBundle(bundle))
    return missingFact("the module's facts do not make a valid bundle: " +
                       *invalid);
  return bundle;
}
