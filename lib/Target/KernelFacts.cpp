//===- KernelFacts.cpp - Describe the kernels of a gpu.module ---*- C++ -*-===//
//
// The lowering keeps discardable attributes (llmgen.spec, llmgen.harness,
// gpu.known_block_size) on the llvm.func, but not the memref types: those
// come from what llmgen-record-kernels stored on the module.
//
//===----------------------------------------------------------------------===//

#include "KernelFacts.h"

#include "HostFacts.h"
#include "LaunchFreedom.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenProperties.h"
#include "llmptx/PTX/Parser.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>

using namespace mlir;
using namespace llmptx;

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The runtime's spelling of a scalar or element type; empty if unsupported.
static std::string elementName(Type type) {
  if (type.isIndex())
    return "i64";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
    case 8:
    case 16:
    case 32:
    case 64:
      return "i" + std::to_string(integer.getWidth());
    default:
      return {};
    }
  }
  return {};
}

static ArgumentInfo describeArgument(Type type, StringRef access) {
  ArgumentInfo info;
  info.mlirType = typeToString(type);
  if (auto memref = dyn_cast<MemRefType>(type)) {
    info.isMemref = true;
    info.element = elementName(memref.getElementType());
    for (int64_t dim : memref.getShape())
      info.shape.push_back(ShapedType::isDynamic(dim) ? -1 : dim);
    if (!memref.getLayout().isIdentity()) {
      SmallVector<int64_t> strides;
      int64_t offset = 0;
      if (succeeded(memref.getStridesAndOffset(strides, offset))) {
        for (int64_t stride : strides)
          info.strides.push_back(ShapedType::isDynamic(stride) ? -1 : stride);
        info.offset = ShapedType::isDynamic(offset) ? -1 : offset;
      }
    }
    info.access = access.str();
    return info;
  }
  info.element = elementName(type);
  return info;
}

static std::string attrToExpression(Attribute attr) {
  if (auto text = dyn_cast<StringAttr>(attr))
    return text.getValue().str();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return std::to_string(integer.getInt());
  if (auto real = dyn_cast<FloatAttr>(attr)) {
    SmallString<32> text;
    real.getValue().toString(text);
    return text.str().str();
  }
  return {};
}

static HarnessFacts readHarness(llmgen::HarnessAttr harness) {
  HarnessFacts facts;
  for (Attribute size : harness.getSizes())
    facts.sizes.push_back(cast<StringAttr>(size).getValue().str());
  if (ArrayAttr shapes = harness.getShapes()) {
    for (Attribute shape : shapes) {
      std::vector<int64_t> values;
      for (Attribute value : cast<ArrayAttr>(shape))
        values.push_back(cast<IntegerAttr>(value).getInt());
      facts.shapes.push_back(std::move(values));
    }
  }
  if (ArrayAttr args = harness.getArgs())
    for (Attribute arg : args)
      facts.args.push_back(attrToExpression(arg));
  if (ArrayAttr grid = harness.getGrid()) {
    facts.hasGrid = true;
    for (unsigned i = 0; i < 3; ++i)
      facts.grid[i] = attrToExpression(grid[i]);
  }
  if (DenseI32ArrayAttr block = harness.getBlock())
    for (unsigned i = 0; i < 3; ++i)
      facts.block[i] = block[i];
  if (DenseI32ArrayAttr outputs = harness.getOutputs())
    for (int32_t output : outputs.asArrayRef())
      facts.outputs.push_back(output);
  if (StringAttr flops = harness.getFlops())
    facts.flops = flops.getValue().str();
  if (ArrayAttr timing = harness.getTiming())
    for (Attribute value : timing)
      facts.timing.push_back(cast<IntegerAttr>(value).getInt());
  if (DictionaryAttr tolerance = harness.getTolerance()) {
    if (auto ulp = tolerance.getAs<IntegerAttr>("ulp"))
      facts.ulp = ulp.getInt();
    auto number = [&](StringRef key) -> std::optional<double> {
      Attribute value = tolerance.get(key);
      if (auto real = dyn_cast_or_null<FloatAttr>(value))
        return real.getValueAsDouble();
      if (auto integer = dyn_cast_or_null<IntegerAttr>(value))
        return static_cast<double>(integer.getInt());
      return std::nullopt;
    };
    facts.rel = number("rel");
    facts.abs = number("abs");
  }
  if (DictionaryAttr stated = harness.getFacts()) {
    if (auto align = stated.getAs<IntegerAttr>("align"))
      facts.align = align.getInt();
    if (auto divisible = stated.getAs<DictionaryAttr>("divisible"))
      for (NamedAttribute entry : divisible)
        facts.divisible.emplace_back(
            entry.getName().getValue().str(),
            cast<IntegerAttr>(entry.getValue()).getInt());
    if (auto ranges = stated.getAs<DictionaryAttr>("range")) {
      auto number = [](Attribute attr) {
        if (auto integer = dyn_cast<IntegerAttr>(attr))
          return static_cast<double>(integer.getInt());
        return cast<FloatAttr>(attr).getValueAsDouble();
      };
      for (NamedAttribute entry : ranges) {
        unsigned index = 0;
        entry.getName().getValue().drop_front(3).getAsInteger(10, index);
        auto bounds = cast<ArrayAttr>(entry.getValue());
        facts.ranges.push_back({index, {number(bounds[0]), number(bounds[1])}});
      }
    }
  }
  return facts;
}

static std::string joinDims(ArrayRef<int64_t> dims) {
  return llvm::join(
      llvm::map_range(dims, [](int64_t dim) { return std::to_string(dim); }),
      ", ");
}

/// A number as a person writes it: 0, 1.5, 1e-06.
static std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

/// What the model may assume, spelled for the prompt.
static void collectStatedFacts(KernelDescription &kernel) {
  for (auto [index, arg] : llvm::enumerate(kernel.args)) {
    if (!arg.isMemref)
      continue;
    std::string fact = llvm::formatv("%arg{0}: {1}", index, arg.mlirType);
    uint64_t align = arg.alignment;
    if (kernel.harness && kernel.harness->align > align)
      align = kernel.harness->align;
    if (align)
      fact += llvm::formatv("; its aligned pointer is {0}-byte aligned", align);
    else
      fact += "; its aligned pointer is only known to be aligned to its "
              "element size";
    if (arg.offset == -1)
      fact += "; the offset is dynamic (honour it)";
    else if (!arg.strides.empty() && arg.offset != 0)
      fact += llvm::formatv("; static offset {0}", arg.offset);
    if (!arg.access.empty())
      fact += "; accessed: " + arg.access;
    kernel.statedFacts.push_back(std::move(fact));
  }
  if (!kernel.harness)
    return;
  for (const auto &[size, divisor] : kernel.harness->divisible)
    kernel.statedFacts.push_back(
        llvm::formatv("{0} is a multiple of {1}", size, divisor));
  for (const auto &[index, bounds] : kernel.harness->ranges)
    kernel.statedFacts.push_back(
        llvm::formatv("the values of %arg{0} lie in [{1}, {2}]", index,
                      shortNumber(bounds.first), shortNumber(bounds.second)));
}

static void spellLaunchFacts(KernelDescription &kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (kernel.blockSize[0] && kernel.launch.allowed)
    os << "block size (known_block_size): " << joinDims(kernel.blockSize)
       << " in the original launch (see Launch configuration).\n";
  else if (kernel.blockSize[0])
    os << "block size (known_block_size): " << joinDims(kernel.blockSize)
       << "; launches with another block size do not happen.\n";
  else
    os << "block size: not known at compile time; handle any block size.\n";
  if (kernel.gridSize[0])
    os << "grid size (known_grid_size): " << joinDims(kernel.gridSize) << "\n";
  if (kernel.harness) {
    const HarnessFacts &harness = *kernel.harness;
    if (!harness.sizes.empty())
      os << "problem sizes: " << llvm::join(harness.sizes, ", ") << "\n";
    for (auto [index, arg] : llvm::enumerate(harness.args))
      if (!arg.empty())
        os << "%arg" << index << ": " << arg << "\n";
    if (harness.hasGrid)
      os << "grid: (" << llvm::join(harness.grid, ", ") << ")\n";
  }
  if (kernel.hostLaunch)
    os << "host launch: grid (" << joinDims(kernel.hostLaunch->grid)
       << "), block (" << joinDims(kernel.hostLaunch->block) << ")\n";
  kernel.launchFacts = std::move(text);
}

FailureOr<std::vector<KernelDescription>>
llmptx::describeKernels(Operation *op, StringRef referencePtx,
                        bool analyzeLaunches) {
  auto module = cast<gpu::GPUModuleOp>(op);
  ptx::ParseResult parsed = ptx::parsePtx(referencePtx);
  auto recorded =
      module->getAttrOfType<DictionaryAttr>(llmgen::kKernelsAttrName);

  std::vector<KernelDescription> kernels;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) &&
        !func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      continue;
    KernelDescription kernel;
    kernel.name = func.getName().str();
    const ptx::Function *entry = parsed.module.findFunction(kernel.name);
    if (!entry) {
      module.emitError() << "llmgen: the reference PTX has no entry for "
                            "kernel @"
                         << kernel.name;
      return failure();
    }

    // Arguments as written, when llmgen-record-kernels saw them.
    DictionaryAttr record =
        recorded ? recorded.getAs<DictionaryAttr>(kernel.name) : nullptr;
    if (record) {
      kernel.source =
          record.getAs<StringAttr>(llmgen::kRecordedSource).getValue().str();
      auto type = record.getAs<TypeAttr>(llmgen::kRecordedFunctionType);
      auto access = record.getAs<ArrayAttr>(llmgen::kRecordedAccess);
      auto alignment =
          record.getAs<DenseI64ArrayAttr>(llmgen::kRecordedAlignment);
      if (type) {
        auto function = cast<FunctionType>(type.getValue());
        for (auto [index, input] : llvm::enumerate(function.getInputs())) {
          StringRef usage;
          if (access && index < access.size())
            usage = cast<StringAttr>(access[index]).getValue();
          kernel.args.push_back(describeArgument(input, usage));
          if (alignment && index < static_cast<size_t>(alignment.size()))
            kernel.args.back().alignment = alignment[index];
        }
      }
    } else {
      llvm::raw_string_ostream os(kernel.source);
      func->print(os, OpPrintingFlags().useLocalScope());
      kernel.sourceIsLowered = true;
    }

    if (auto spec = func->getAttrOfType<StringAttr>("llmgen.spec"))
      kernel.intent = spec.getValue().str();
    if (auto harness =
            func->getAttrOfType<llmgen::HarnessAttr>("llmgen.harness"))
      kernel.harness = readHarness(harness);
    if (auto block =
            func->getAttrOfType<DenseI32ArrayAttr>("gpu.known_block_size"))
      for (unsigned i = 0; i < 3 && i < block.size(); ++i)
        kernel.blockSize[i] = block[i];
    if (auto grid =
            func->getAttrOfType<DenseI32ArrayAttr>("gpu.known_grid_size"))
      for (unsigned i = 0; i < 3 && i < grid.size(); ++i)
        kernel.gridSize[i] = grid[i];
    llvm::Expected<ConstantLaunch> hostLaunch =
        findConstantLaunch(module, kernel.name);
    if (hostLaunch)
      kernel.hostLaunch = std::move(*hostLaunch);
    else
      kernel.hostLaunchMissing = llvm::toString(hostLaunch.takeError());

    // The ABI: types from the reference entry, roles from the signature.
    std::vector<ptx::AbiParam> roles;
    if (!kernel.args.empty()) {
      roles = abiRolesFor(kernel.args, /*barePointers=*/false);
      if (roles.size() != entry->params.size()) {
        roles = abiRolesFor(kernel.args, /*barePointers=*/true);
        kernel.barePointers = true;
      }
      if (roles.size() != entry->params.size())
        roles.clear();
    }
    setAbiFromEntry(kernel, *entry, roles);

    collectStatedFacts(kernel);
    if (analyzeLaunches)
      kernel.launch = analyzeLaunchFreedom(module, kernel);
    else
      kernel.launch.reason = "launches are only rewritten after verification "
                             "by execution (verify=exec)";
    spellLaunchFacts(kernel);
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}
