//===- SelectObject.cpp - Select an object and launch it as it needs -*- C++
//-*-//
//
// Implements `llmgen-select-object`. The grid expressions are the bundle
// expression language of the verifier (runtime::Expression), translated node
// by node into arith ops with the same floor semantics, so the host computes
// exactly the grid the candidate was verified under.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenProperties.h"
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "llmptx/Runtime/Expression.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENSELECTOBJECT
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;
using namespace llmptx;
using namespace llmptx::llmgen;

namespace {
struct LLMGenSelectObjectPass
    : public llmptx::llmgen::impl::LLMGenSelectObjectBase<
          LLMGenSelectObjectPass> {
  using Base::Base;

  void runOnOperation() override;
};
} // namespace

/// Whether llm-lower made `binary` (its objects carry llmgen provenance).
static bool isLLMGenBinary(gpu::BinaryOp binary) {
  return llvm::any_of(binary.getObjects(), [](Attribute attr) {
    auto object = dyn_cast<gpu::ObjectAttr>(attr);
    return object && object.getProperties() &&
           object.getProperties().get(kSlotProperty);
  });
}

/// The index of the object `binary` loads: its select_object handler's, or
/// 0 (gpu-to-llvm's default).
static int64_t selectedIndex(gpu::BinaryOp binary) {
  auto handler = dyn_cast_or_null<gpu::SelectObjectAttr>(
      binary.getOffloadingHandlerAttr());
  // A handler without a target (what gpu-module-to-binary attaches) loads
  // the first object.
  if (!handler || !handler.getTarget())
    return 0;
  if (auto index = dyn_cast<IntegerAttr>(handler.getTarget()))
    return index.getInt();
  // Selected by target: the last object with that target.
  int64_t found = 0;
  for (auto [i, object] : llvm::enumerate(binary.getObjects()))
    if (cast<gpu::ObjectAttr>(object).getTarget() == handler.getTarget())
      found = i;
  return found;
}

/// The value of each size at `launch`, read from its operands as `sizes`
/// says.
static FailureOr<llvm::StringMap<Value>>
readSizes(OpBuilder &builder, gpu::LaunchFuncOp launch, DictionaryAttr sizes) {
  llvm::StringMap<Value> values;
  Location loc = launch.getLoc();
  OperandRange operands = launch.getKernelOperands();
  for (NamedAttribute entry : sizes) {
    auto where = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
    if (!where || where.empty() || where.size() > 2 || where[0] < 0 ||
        where[0] >= static_cast<int64_t>(operands.size()))
      return launch.emitError()
             << "llmgen-select-object: size '" << entry.getName().getValue()
             << "' names no argument of this launch";
    Value operand = operands[where[0]];
    Value size;
    if (where.size() == 2) {
      if (!isa<MemRefType>(operand.getType()))
        return launch.emitError()
               << "llmgen-select-object: size '" << entry.getName().getValue()
               << "' is a dimension of argument " << where[0]
               << ", which is not a memref";
      size = memref::DimOp::create(builder, loc, operand, where[1]);
    } else if (operand.getType().isIndex()) {
      size = operand;
    } else if (isa<IntegerType>(operand.getType())) {
      size = arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                                operand);
    } else {
      return launch.emitError()
             << "llmgen-select-object: size '" << entry.getName().getValue()
             << "' is argument " << where[0] << ", which is not an integer";
    }
    values[entry.getName().getValue()] = size;
  }
  return values;
}

/// Builds `text` (the verifier's expression language) as index arithmetic.
static FailureOr<Value> buildExpression(OpBuilder &builder, Location loc,
                                        StringRef text,
                                        const llvm::StringMap<Value> &sizes,
                                        Operation *anchor) {
  runtime::ValueOrError<runtime::Expression> parsed =
      runtime::Expression::parse(std::string_view(text.data(), text.size()));
  if (!parsed)
    return anchor->emitError()
           << "llmgen-select-object: grid '" << text << "': " << parsed.error();
  const std::vector<runtime::Expression::Node> &nodes = parsed->nodes();
  using Op = runtime::Expression::Op;
  std::function<FailureOr<Value>(int)> build =
      [&](int index) -> FailureOr<Value> {
    const runtime::Expression::Node &node = nodes[index];
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, value);
    };
    switch (node.op) {
    case Op::Literal:
      return constant(node.literal);
    case Op::Name: {
      auto found = sizes.find(node.name);
      if (found == sizes.end())
        return anchor->emitError()
               << "llmgen-select-object: grid '" << text << "' uses '"
               << node.name << "', which is not a recorded size";
      return found->second;
    }
    case Op::Negate: {
      FailureOr<Value> operand = build(node.lhs);
      if (failed(operand))
        return failure();
      return arith::SubIOp::create(builder, loc, constant(0), *operand)
          .getResult();
    }
    default:
      break;
    }
    FailureOr<Value> lhs = build(node.lhs);
    FailureOr<Value> rhs = build(node.rhs);
    if (failed(lhs) || failed(rhs))
      return failure();
    switch (node.op) {
    case Op::Add:
      return arith::AddIOp::create(builder, loc, *lhs, *rhs).getResult();
    case Op::Sub:
      return arith::SubIOp::create(builder, loc, *lhs, *rhs).getResult();
    case Op::Mul:
      return arith::MulIOp::create(builder, loc, *lhs, *rhs).getResult();
    case Op::Div:
      return arith::FloorDivSIOp::create(builder, loc, *lhs, *rhs).getResult();
    case Op::Mod: {
      // Floor modulo: a - floordiv(a, b) * b.
      Value quotient = arith::FloorDivSIOp::create(builder, loc, *lhs, *rhs);
      Value product = arith::MulIOp::create(builder, loc, quotient, *rhs);
      return arith::SubIOp::create(builder, loc, *lhs, product).getResult();
    }
    case Op::CeilDiv:
      return arith::CeilDivSIOp::create(builder, loc, *lhs, *rhs).getResult();
    case Op::Min:
      return arith::MinSIOp::create(builder, loc, *lhs, *rhs).getResult();
    case Op::Max:
      return arith::MaxSIOp::create(builder, loc, *lhs, *rhs).getResult();
    default:
      return failure();
    }
  };
  return build(parsed->rootNode());
}

/// Gives `launch` the block and grid `record` describes.
static LogicalResult relaunch(gpu::LaunchFuncOp launch, DictionaryAttr record) {
  auto block = record.getAs<DenseI64ArrayAttr>(kLaunchBlock);
  auto grid = record.getAs<ArrayAttr>(kLaunchGrid);
  auto sizes = record.getAs<DictionaryAttr>(kLaunchSizes);
  if (!block || block.size() != 3 || !grid || grid.size() != 3 || !sizes)
    return launch.emitError()
           << "llmgen-select-object: the launch recorded "
              "for @"
           << launch.getKernelName().getValue() << " is malformed: " << record;
  OpBuilder builder(launch);
  Location loc = launch.getLoc();
  FailureOr<llvm::StringMap<Value>> values = readSizes(builder, launch, sizes);
  if (failed(values))
    return failure();
  OpOperand *gridOperands[] = {&launch.getGridSizeXMutable(),
                               &launch.getGridSizeYMutable(),
                               &launch.getGridSizeZMutable()};
  OpOperand *blockOperands[] = {&launch.getBlockSizeXMutable(),
                                &launch.getBlockSizeYMutable(),
                                &launch.getBlockSizeZMutable()};
  for (unsigned i = 0; i < 3; ++i) {
    auto text = dyn_cast<StringAttr>(grid[i]);
    if (!text)
      return launch.emitError()
             << "llmgen-select-object: grid entries must be strings";
    FailureOr<Value> dim =
        buildExpression(builder, loc, text.getValue(), *values, launch);
    if (failed(dim))
      return failure();
    gridOperands[i]->set(*dim);
  }
  for (unsigned i = 0; i < 3; ++i)
    blockOperands[i]->set(
        arith::ConstantIndexOp::create(builder, loc, block[i]));
  // Sizes the grid does not use were read for nothing.
  for (auto &entry : *values)
    if (Operation *read = entry.second.getDefiningOp();
        read && entry.second.use_empty() &&
        isa<memref::DimOp, arith::IndexCastOp>(read))
      read->erase();
  return success();
}

void LLMGenSelectObjectPass::runOnOperation() {
  ModuleOp top = getOperation();
  Builder builder(&getContext());
  for (auto binary : top.getOps<gpu::BinaryOp>()) {
    if (!isLLMGenBinary(binary))
      continue;
    ArrayAttr objects = binary.getObjects();
    int64_t chosen = selectedIndex(binary);
    if (index >= 0) {
      if (index >= static_cast<int64_t>(objects.size())) {
        binary.emitError() << "llmgen-select-object: index " << index.getValue()
                           << " is out of range: the binary has "
                           << objects.size() << " object(s)";
        return signalPassFailure();
      }
      chosen = index;
      binary.setOffloadingHandlerAttr(gpu::SelectObjectAttr::get(
          &getContext(), builder.getI64IntegerAttr(index)));
    }
    if (chosen < 0 || chosen >= static_cast<int64_t>(objects.size()))
      continue;
    DictionaryAttr properties =
        cast<gpu::ObjectAttr>(objects[chosen]).getProperties();
    auto kernels = properties
                       ? properties.getAs<DictionaryAttr>(kKernelsAttrName)
                       : DictionaryAttr();
    if (!kernels)
      continue;
    for (NamedAttribute kernel : kernels) {
      auto entry = dyn_cast<DictionaryAttr>(kernel.getValue());
      auto record = entry ? entry.getAs<DictionaryAttr>(kLaunchEntry) : nullptr;
      if (!record)
        continue;
      SmallVector<gpu::LaunchFuncOp> launches;
      top.walk([&](gpu::LaunchFuncOp launch) {
        if (launch.getKernelModuleName() == binary.getNameAttr() &&
            launch.getKernelName() == kernel.getName())
          launches.push_back(launch);
      });
      for (gpu::LaunchFuncOp launch : launches)
        if (failed(relaunch(launch, record)))
          return signalPassFailure();
    }
  }
}
