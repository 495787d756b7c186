//===- LaunchFreedom.cpp - Launch configurations chosen with a kernel ----===//
//
// The host launches are rebuilt from the sizes after selection, so a launch
// is only free when every launch of the kernel is in the module and each one
// is provably the launch verification runs the reference under: its grid is
// translated into an expression of the sizes and compared with
// verification's on every shape verification tests (the same shapes a
// candidate is verified on, so nothing is taken on trust beyond them).
//
//===----------------------------------------------------------------------===//

#include "LaunchFreedom.h"

#include "HostFacts.h"
#include "llmptx/Pipeline/BundleFromFacts.h"

#include "llmptx/Support/UntrustedText.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace llmptx;

static std::string joinInts(llvm::ArrayRef<int64_t> values) {
  return llvm::join(
      llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
      ", ");
}

/// The SSA value a buffer's dynamic dimension `dim` was allocated with
/// (gpu.alloc or memref.alloc), or null.
static Value allocatedExtent(Value buffer, int64_t dim) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || dim >= type.getRank() || !type.isDynamicDim(dim))
    return {};
  OperandRange sizes = {nullptr, 0};
  if (auto alloc = buffer.getDefiningOp<gpu::AllocOp>())
    sizes = alloc.getDynamicSizes();
  else if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
    sizes = alloc.getDynamicSizes();
  else
    return {};
  unsigned position = type.getDynamicDimIndex(dim);
  return position < sizes.size() ? sizes[position] : Value();
}

/// `value` as an expression of the sizes read at `launch`, for the integer
/// arithmetic host code computes grids with; nothing for anything else.
static std::optional<std::string>
hostExpression(Value value, gpu::LaunchFuncOp launch,
               llvm::ArrayRef<SizeSource> sources, unsigned depth = 0) {
  if (depth > 64)
    return std::nullopt;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return std::to_string(constant.getSExtValue());
  OperandRange operands = launch.getKernelOperands();
  for (const SizeSource &source : sources) {
    if (source.dim < 0 && operands[source.argIndex] == value)
      return source.size;
    // The size a buffer was allocated with is its dimension.
    if (source.dim >= 0 &&
        allocatedExtent(operands[source.argIndex], source.dim) == value)
      return source.size;
  }
  Operation *definition = value.getDefiningOp();
  if (!definition)
    return std::nullopt;
  if (auto dim = dyn_cast<memref::DimOp>(definition)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    for (const SizeSource &source : sources)
      if (index && source.dim == *index &&
          operands[source.argIndex] == dim.getSource())
        return source.size;
    return std::nullopt;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(definition))
    return hostExpression(definition->getOperand(0), launch, sources,
                          depth + 1);
  if (definition->getNumOperands() != 2)
    return std::nullopt;
  std::optional<std::string> lhs =
      hostExpression(definition->getOperand(0), launch, sources, depth + 1);
  std::optional<std::string> rhs =
      hostExpression(definition->getOperand(1), launch, sources, depth + 1);
  if (!lhs || !rhs)
    return std::nullopt;
  auto infix = [&](StringRef op) { return "(" + *lhs + op.str() + *rhs + ")"; };
  auto call = [&](StringRef name) {
    return name.str() + "(" + *lhs + ", " + *rhs + ")";
  };
  // Signed and unsigned forms agree on the non-negative values grids are
  // computed from; the comparison on every shape below checks the rest.
  if (isa<arith::AddIOp>(definition))
    return infix(" + ");
  if (isa<arith::SubIOp>(definition))
    return infix(" - ");
  if (isa<arith::MulIOp>(definition))
    return infix(" * ");
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(definition))
    return infix(" / ");
  if (isa<arith::RemUIOp, arith::RemSIOp>(definition))
    return infix(" % ");
  if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(definition))
    return call("ceildiv");
  if (isa<arith::MinUIOp, arith::MinSIOp>(definition))
    return call("min");
  if (isa<arith::MaxUIOp, arith::MaxSIOp>(definition))
    return call("max");
  return std::nullopt;
}

/// Why the launch is not free, as an error.
static llvm::Error fixedLaunch(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

/// Where each size can be read at a launch, from the harness's args: every
/// scalar argument that is exactly the size, and every memref dynamic
/// dimension that is exactly the size, in argument order. Fails on the
/// first size that has none.
static llvm::Expected<std::vector<SizeSource>>
findSizeSources(const KernelDescription &kernel) {
  std::vector<SizeSource> sources;
  if (!kernel.harness)
    return sources;
  const HarnessFacts &harness = *kernel.harness;
  for (const std::string &size : harness.sizes) {
    size_t before = sources.size();
    for (auto [index, arg] : llvm::enumerate(kernel.args)) {
      if (index >= harness.args.size())
        break;
      llvm::StringRef entry = llvm::StringRef(harness.args[index]).trim();
      if (!arg.isMemref) {
        if (entry == size)
          sources.push_back({size, static_cast<unsigned>(index), -1});
        continue;
      }
      std::vector<std::string> dims = runtime::splitExpressionList(entry);
      unsigned nextDynamic = 0;
      for (auto [dim, extent] : llvm::enumerate(arg.shape)) {
        if (extent >= 0)
          continue;
        if (nextDynamic < dims.size() && dims[nextDynamic] == size)
          sources.push_back(
              {size, static_cast<unsigned>(index), static_cast<int64_t>(dim)});
        ++nextDynamic;
      }
    }
    if (sources.size() == before)
      return fixedLaunch("size " + size +
                         " is neither a scalar argument nor a memref "
                         "dimension in the harness's args, so a launch "
                         "cannot compute a grid from it");
  }
  return sources;
}

/// Every gpu.launch_func of `kernel` in the host module around `module`;
/// fails when the kernel may be launched elsewhere or is referenced by
/// anything but a launch.
static llvm::Expected<SmallVector<gpu::LaunchFuncOp>>
collectLaunches(gpu::GPUModuleOp module, const KernelDescription &kernel) {
  auto host = dyn_cast_or_null<ModuleOp>(module->getParentOp());
  if (!host || host->getParentOp())
    return fixedLaunch("the gpu.module is not in a top-level module, so its "
                       "launches may be elsewhere");
  SymbolRefAttr kernelRef = SymbolRefAttr::get(
      module.getNameAttr(),
      {FlatSymbolRefAttr::get(module.getContext(), kernel.name)});
  SmallVector<gpu::LaunchFuncOp> launches;
  std::string otherUse;
  host->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module.getOperation())
      return WalkResult::skip();
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (launch.getKernel() == kernelRef)
        launches.push_back(launch);
      return WalkResult::advance();
    }
    op->getAttrDictionary().walk([&](SymbolRefAttr ref) {
      if (ref == kernelRef && otherUse.empty())
        otherUse = op->getName().getStringRef().str() + " at " +
                   locationText(op->getLoc());
    });
    return WalkResult::advance();
  });
  if (!otherUse.empty())
    return fixedLaunch("@" + kernel.name + " is referenced by " + otherUse +
                       ", not only launched");
  if (launches.empty())
    return fixedLaunch("the module has no gpu.launch_func of @" + kernel.name +
                       " (its launches are elsewhere)");
  return launches;
}

/// The launch's block must be verification's, as constants.
static llvm::Error checkBlock(gpu::LaunchFuncOp launch,
                              const LaunchFreedom &freedom,
                              const std::string &where) {
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  std::array<int64_t, 3> blockValues{0, 0, 0};
  Value blockDims[] = {block.x, block.y, block.z};
  for (unsigned i = 0; i < 3; ++i) {
    APInt value;
    if (!matchPattern(blockDims[i], m_ConstantInt(&value)))
      return fixedLaunch(where + " has a block size that is not constant");
    blockValues[i] = value.getSExtValue();
  }
  if (blockValues != freedom.original.block)
    return fixedLaunch(where + " has block (" + joinInts(blockValues) +
                       ") where verification runs (" +
                       joinInts(freedom.original.block) + ")");
  return llvm::Error::success();
}

/// The launch's dynamic shared memory must be verification's, as a
/// constant.
static llvm::Error checkSharedMemory(gpu::LaunchFuncOp launch,
                                     const KernelDescription &kernel,
                                     const std::string &where) {
  int64_t sharedBytes =
      kernel.hostLaunch ? kernel.hostLaunch->dynamicSharedBytes : 0;
  int64_t shared = 0;
  if (Value bytes = launch.getDynamicSharedMemorySize()) {
    APInt value;
    if (!matchPattern(bytes, m_ConstantInt(&value)))
      return fixedLaunch(where + " has a dynamic shared memory size that is "
                                 "not constant");
    shared = value.getSExtValue();
  }
  if (shared != sharedBytes)
    return fixedLaunch(where + " uses " + std::to_string(shared) +
                       " bytes of dynamic shared memory where verification "
                       "uses " +
                       std::to_string(sharedBytes));
  return llvm::Error::success();
}

/// Each grid dimension of the launch must be an expression of the sizes
/// equal to verification's on every shape it tests.
static llvm::Error checkGrid(gpu::LaunchFuncOp launch,
                             const LaunchFreedom &freedom,
                             const std::string &where) {
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  Value gridDims[] = {grid.x, grid.y, grid.z};
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<std::string> expression =
        hostExpression(gridDims[i], launch, freedom.sources);
    if (!expression)
      return fixedLaunch(where + ": grid dimension " + std::to_string(i) +
                         " is not an integer expression of the sizes");
    for (const runtime::SizeBindings &shape : freedom.shapes) {
      runtime::ValueOrError<int64_t> hostValue =
          runtime::evaluateExpression(*expression, shape);
      runtime::ValueOrError<int64_t> verifiedValue =
          runtime::evaluateExpression(freedom.original.grid[i], shape);
      if (!hostValue || !verifiedValue || *hostValue != *verifiedValue)
        return fixedLaunch(llvm::formatv("{0} computes grid dimension {1} as "
                                         "{2}, which is not verification's "
                                         "{3} on every shape",
                                         where, i, *expression,
                                         freedom.original.grid[i]));
    }
  }
  return llvm::Error::success();
}

/// One host launch must be exactly the launch verification runs.
static llvm::Error checkLaunch(gpu::LaunchFuncOp launch,
                               const KernelDescription &kernel,
                               const LaunchFreedom &freedom) {
  std::string where = "the launch at " + locationText(launch.getLoc());
  if (launch.getKernelOperands().size() != kernel.args.size())
    return fixedLaunch(
        where + " passes " + std::to_string(launch.getKernelOperands().size()) +
        " arguments, the kernel has " + std::to_string(kernel.args.size()));
  if (llvm::Error error = checkBlock(launch, freedom, where))
    return error;
  if (llvm::Error error = checkSharedMemory(launch, kernel, where))
    return error;
  if (!freedom.sources.empty())
    return checkGrid(launch, freedom, where);
  // No sizes: verification ran the host's constant launch, so every launch
  // must be that launch exactly.
  llvm::Expected<ConstantLaunch> constant = describeConstantLaunch(launch);
  if (!constant)
    return fixedLaunch(where +
                       " is not the constant launch verification "
                       "runs: " +
                       llvm::toString(constant.takeError()));
  if (!kernel.hostLaunch || !(*constant == *kernel.hostLaunch))
    return fixedLaunch(where + " is not the constant launch verification "
                               "runs");
  return llvm::Error::success();
}

LaunchFreedom llmptx::analyzeLaunchFreedom(gpu::GPUModuleOp module,
                                           const KernelDescription &kernel) {
  LaunchFreedom freedom;
  auto refuse = [&](llvm::Error why) {
    freedom.allowed = false;
    freedom.reason = llvm::toString(std::move(why));
    return freedom;
  };
  llvm::Expected<LaunchConfig> original = referenceLaunch(kernel);
  if (!original)
    return refuse(fixedLaunch("verification cannot run the kernel: " +
                              llvm::toString(original.takeError())));
  freedom.original = *original;
  freedom.shapes = bundleShapes(kernel);
  llvm::Expected<std::vector<SizeSource>> sources = findSizeSources(kernel);
  if (!sources)
    return refuse(sources.takeError());
  freedom.sources = std::move(*sources);
  llvm::Expected<SmallVector<gpu::LaunchFuncOp>> launches =
      collectLaunches(module, kernel);
  if (!launches)
    return refuse(launches.takeError());
  for (gpu::LaunchFuncOp launch : *launches)
    if (llvm::Error why = checkLaunch(launch, kernel, freedom))
      return refuse(std::move(why));
  freedom.allowed = true;
  freedom.launches = launches->size();
  return freedom;
}
