//===- HostFacts.cpp - What host code states about a launch -----*- C++ -*-===//

#include "HostFacts.h"

#include "llmptx/Runtime/Expression.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace mlir;
using namespace llmptx;

std::string llmptx::locationText(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(file.getFilename()),
                         file.getLine(), file.getColumn())
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

namespace {

/// Folds host values to constants. Chains are short in real programs; the
/// depth bound keeps a pathological one from recursing without end.
class HostFolder {
public:
  /// The constant value of the integer or index `value`; else nothing, and
  /// `missing` says why (`what` names the value for the user).
  std::optional<int64_t> integer(Value value, const llvm::Twine &what);
  /// The shape of memref `value` with every dimension constant.
  std::optional<SmallVector<int64_t>> shape(Value value,
                                            const llvm::Twine &what);

  std::string missing;

private:
  std::optional<int64_t> fail(Value value, const llvm::Twine &what);
  std::optional<int64_t> fold(Operation *op, const llvm::Twine &what);

  unsigned depth = 0;
};

/// Where a value that is not constant comes from, for the message.
std::string origin(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    Operation *owner = argument.getOwner()->getParentOp();
    if (auto function = dyn_cast_or_null<FunctionOpInterface>(owner))
      return llvm::formatv("argument {0} of @{1}", argument.getArgNumber(),
                           function.getName())
          .str();
    return "a block argument of '" +
           (owner ? owner->getName().getStringRef().str() : "?") + "'";
  }
  Operation *op = value.getDefiningOp();
  return "'" + op->getName().getStringRef().str() + "' at " +
         locationText(op->getLoc());
}

std::optional<int64_t> HostFolder::fail(Value value, const llvm::Twine &what) {
  if (missing.empty())
    missing =
        (what + " is not a constant: it comes from " + origin(value)).str();
  return std::nullopt;
}

std::optional<int64_t> HostFolder::integer(Value value,
                                           const llvm::Twine &what) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *op = value.getDefiningOp();
  if (!op || depth > 64)
    return fail(value, what);
  ++depth;
  std::optional<int64_t> result = fold(op, what);
  --depth;
  if (!result && missing.empty())
    return fail(value, what);
  return result;
}

std::optional<int64_t> HostFolder::fold(Operation *op,
                                        const llvm::Twine &what) {
  auto operand = [&](unsigned index) {
    return integer(op->getOperand(index), what);
  };
  // Casts keep the value (the host's sizes are small and non-negative).
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op))
    return operand(0);
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    std::optional<int64_t> index = integer(dim.getIndex(), what);
    std::optional<SmallVector<int64_t>> dims = shape(dim.getSource(), what);
    if (!index || !dims || *index < 0 ||
        *index >= static_cast<int64_t>(dims->size()))
      return std::nullopt;
    return (*dims)[*index];
  }
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return std::nullopt;
  std::optional<int64_t> lhs = operand(0), rhs = operand(1);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t a = *lhs, b = *rhs, result = 0;
  bool fine =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case<arith::AddIOp>(
              [&](auto) { return !__builtin_add_overflow(a, b, &result); })
          .Case<arith::SubIOp>(
              [&](auto) { return !__builtin_sub_overflow(a, b, &result); })
          .Case<arith::MulIOp>(
              [&](auto) { return !__builtin_mul_overflow(a, b, &result); })
          .Case<arith::DivSIOp, arith::DivUIOp>([&](auto) {
            if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
              return false;
            result = a / b; // truncating, as the ops are
            return true;
          })
          .Case<arith::FloorDivSIOp>(
              [&](auto) { return runtime::floorDivide(a, b, result); })
          .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>(
              [&](auto) { return runtime::ceilDivide(a, b, result); })
          .Case<arith::RemSIOp, arith::RemUIOp>([&](auto) {
            result = b ? a % b : 0;
            return b != 0;
          })
          .Case<arith::MinSIOp, arith::MinUIOp>([&](auto) {
            result = std::min(a, b);
            return true;
          })
          .Case<arith::MaxSIOp, arith::MaxUIOp>([&](auto) {
            result = std::max(a, b);
            return true;
          })
          .Default([](Operation *) { return false; });
  if (!fine)
    return std::nullopt;
  return result;
}

std::optional<SmallVector<int64_t>> HostFolder::shape(Value value,
                                                      const llvm::Twine &what) {
  auto type = cast<MemRefType>(value.getType());
  if (type.hasStaticShape())
    return SmallVector<int64_t>(type.getShape());
  Operation *op = value.getDefiningOp();
  // A cast keeps the buffer: its source may know more of the shape.
  if (auto cast = dyn_cast_or_null<memref::CastOp>(op))
    return shape(cast.getSource(), what);
  ValueRange dynamicSizes;
  if (auto alloc = dyn_cast_or_null<memref::AllocOp>(op))
    dynamicSizes = alloc.getDynamicSizes();
  else if (auto alloca = dyn_cast_or_null<memref::AllocaOp>(op))
    dynamicSizes = alloca.getDynamicSizes();
  else if (auto alloc = dyn_cast_or_null<gpu::AllocOp>(op))
    dynamicSizes = alloc.getDynamicSizes();
  else {
    if (missing.empty())
      missing = (what +
                 " has dynamic sizes and is not allocated in the "
                 "host code: it comes from " +
                 origin(value))
                    .str();
    return std::nullopt;
  }
  SmallVector<int64_t> dims;
  unsigned next = 0;
  for (auto [index, dim] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(dim)) {
      dims.push_back(dim);
      continue;
    }
    std::optional<int64_t> size = integer(
        dynamicSizes[next++], what + " dimension " + llvm::Twine(index));
    if (!size)
      return std::nullopt;
    dims.push_back(*size);
  }
  return dims;
}

} // namespace

llvm::Expected<ConstantLaunch>
llmptx::describeConstantLaunch(gpu::LaunchFuncOp launch) {
  HostFolder folder;
  std::string where = " (the launch at " + locationText(launch.getLoc()) + ")";
  auto missing = [&] {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   folder.missing + where);
  };
  ConstantLaunch constant;
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value dims[] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  const char *names[] = {"the grid x size",  "the grid y size",
                         "the grid z size",  "the block x size",
                         "the block y size", "the block z size"};
  for (auto [i, dim] : llvm::enumerate(dims)) {
    std::optional<int64_t> value = folder.integer(dim, names[i]);
    if (!value)
      return missing();
    (i < 3 ? constant.grid[i] : constant.block[i - 3]) = *value;
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    std::optional<int64_t> bytes =
        folder.integer(shared, "the dynamic shared memory size");
    if (!bytes)
      return missing();
    constant.dynamicSharedBytes = *bytes;
  }
  for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
    std::string what = llvm::formatv("kernel operand {0}", index).str();
    if (isa<MemRefType>(operand.getType())) {
      std::optional<SmallVector<int64_t>> shape = folder.shape(operand, what);
      if (!shape)
        return missing();
      constant.memrefShapes.emplace_back(shape->begin(), shape->end());
      constant.scalarValues.emplace_back();
      continue;
    }
    constant.memrefShapes.emplace_back();
    FloatAttr real;
    if (matchPattern(operand, m_Constant(&real))) {
      SmallString<32> text;
      real.getValue().toString(text);
      constant.scalarValues.push_back(text.str().str());
      continue;
    }
    std::optional<int64_t> value = folder.integer(operand, what);
    if (!value)
      return missing();
    constant.scalarValues.push_back(std::to_string(*value));
  }
  return constant;
}

llvm::Expected<ConstantLaunch>
llmptx::findConstantLaunch(gpu::GPUModuleOp module, StringRef kernel) {
  Operation *host = module->getParentOp();
  std::optional<ConstantLaunch> found;
  std::string firstProblem;
  if (host)
    host->walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() != module.getNameAttr() ||
          launch.getKernelName().getValue() != kernel)
        return WalkResult::advance();
      llvm::Expected<ConstantLaunch> constant = describeConstantLaunch(launch);
      if (constant) {
        found = std::move(*constant);
        return WalkResult::interrupt();
      }
      std::string problem = llvm::toString(constant.takeError());
      if (firstProblem.empty())
        firstProblem = std::move(problem);
      return WalkResult::advance();
    });
  if (found)
    return std::move(*found);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      firstProblem.empty()
          ? "the host code has no gpu.launch_func of @" + kernel
          : firstProblem);
}
