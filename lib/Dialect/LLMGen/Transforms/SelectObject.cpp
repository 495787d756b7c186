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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

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

//===----------------------------------------------------------------------===//
// Dynamic shared memory and tensor maps
//===----------------------------------------------------------------------===//

/// The discardable attribute holding a launch's dynamic shared memory before
/// its first rewrite.
static constexpr StringLiteral kOriginalSharedBytes = "llmgen.shared_bytes";

/// Gives `launch` the dynamic shared memory `record` asks for, or back the
/// launch's own when the record asks for none.
static LogicalResult setSharedBytes(gpu::LaunchFuncOp launch,
                                    DictionaryAttr record) {
  auto asked = record.getAs<IntegerAttr>(kLaunchSharedBytes);
  auto original = launch->getAttrOfType<IntegerAttr>(kOriginalSharedBytes);
  if (!asked && !original)
    return success(); // never changed
  if (!original) {
    Value current = launch.getDynamicSharedMemorySize();
    APInt bytes(32, 0);
    if (current && !matchPattern(current, m_ConstantInt(&bytes)))
      return launch.emitError()
             << "llmgen-select-object: the object needs its own dynamic "
                "shared memory, and this launch's is not a constant";
    original = IntegerAttr::get(IntegerType::get(launch.getContext(), 32),
                                bytes.getSExtValue());
    launch->setAttr(kOriginalSharedBytes, original);
  }
  OpBuilder builder(launch);
  int64_t bytes = asked ? asked.getInt() : original.getInt();
  Value previous = launch.getDynamicSharedMemorySize();
  launch.getDynamicSharedMemorySizeMutable().assign(
      arith::ConstantIntOp::create(builder, launch.getLoc(), bytes, 32));
  // An earlier rewrite's constant that nothing uses any more.
  if (Operation *constant = previous ? previous.getDefiningOp() : nullptr;
      constant && isa<arith::ConstantOp>(constant) && constant->use_empty())
    constant->erase();
  return success();
}

/// `@mgpuTensorMapEncodeTiled` of the host runtime (lib/HostRuntime),
/// declared once in `top`.
static LLVM::LLVMFuncOp encodeFunction(ModuleOp top) {
  static constexpr StringLiteral name = "mgpuTensorMapEncodeTiled";
  if (auto existing = top.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  MLIRContext *context = top.getContext();
  Type ptr = LLVM::LLVMPointerType::get(context);
  Type i32 = IntegerType::get(context, 32);
  auto type = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context),
      {ptr, i32, i32, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32});
  OpBuilder builder = OpBuilder::atBlockEnd(top.getBody());
  return LLVM::LLVMFuncOp::create(builder, top.getLoc(), name, type);
}

/// The helper that describes a memref of `type` as `map` records it:
/// func(memref) -> !llvm.array<16 x i64>.
static FailureOr<func::FuncOp> tensorMapHelper(ModuleOp top, StringRef name,
                                               MemRefType type,
                                               DictionaryAttr map,
                                               Operation *anchor) {
  MLIRContext *context = top.getContext();
  Type mapType = LLVM::LLVMArrayType::get(IntegerType::get(context, 64), 16);
  if (auto existing = top.lookupSymbol<func::FuncOp>(name)) {
    if (existing.getFunctionType() ==
        FunctionType::get(context, {type}, {mapType}))
      return existing;
    return anchor->emitError()
           << "llmgen-select-object: @" << name << " exists with another type";
  }
  auto box = map.getAs<DenseI64ArrayAttr>("box");
  auto number = [&](StringRef key) -> std::optional<int64_t> {
    if (auto value = map.getAs<IntegerAttr>(key))
      return value.getInt();
    return std::nullopt;
  };
  int64_t rank = type.getRank();
  if (!box || box.size() != rank || !number("data_type") ||
      !number("interleave") || !number("swizzle") || !number("l2_promotion") ||
      !number("oob_fill") || rank < 1 || rank > 5)
    return anchor->emitError()
           << "llmgen-select-object: a tensor map record is malformed: " << map;
  LLVM::LLVMFuncOp encode = encodeFunction(top);
  OpBuilder builder = OpBuilder::atBlockEnd(top.getBody());
  Location loc = anchor->getLoc();
  auto helper = func::FuncOp::create(
      builder, loc, name, FunctionType::get(context, {type}, {mapType}));
  helper.setPrivate();
  Block *body = helper.addEntryBlock();
  builder.setInsertionPointToStart(body);
  Value memref = body->getArgument(0);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(context);
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  auto indexConstant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  auto toI64 = [&](Value index) -> Value {
    return arith::IndexCastOp::create(builder, loc, i64, index);
  };
  Value firstByte = arith::AddIOp::create(
      builder, loc, aligned,
      arith::MulIOp::create(builder, loc, metadata.getOffset(),
                            indexConstant(elementBytes)));
  Value address = LLVM::IntToPtrOp::create(builder, loc, ptr, toI64(firstByte));
  auto llvmConstant = [&](Type type, int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, type,
                                    builder.getIntegerAttr(type, value));
  };
  auto array = [&](Type element, int64_t count, unsigned align) -> Value {
    return LLVM::AllocaOp::create(builder, loc, ptr, element,
                                  llvmConstant(i64, count), align);
  };
  Value mapSlot = array(mapType, 1, 64);
  Value dims = array(i64, rank, 8), strides = array(i64, rank, 8);
  Value boxes = array(i32, rank, 4), steps = array(i32, rank, 4);
  auto store = [&](Value value, Value base, Type element, int64_t at) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptr, element, base,
                                     ArrayRef<LLVM::GEPArg>{at});
    LLVM::StoreOp::create(builder, loc, value, slot);
  };
  // The driver takes dimensions innermost first, strides in bytes.
  for (int64_t i = 0; i < rank; ++i) {
    int64_t outer = rank - 1 - i;
    store(toI64(metadata.getSizes()[outer]), dims, i64, i);
    store(llvmConstant(i32, box[outer]), boxes, i32, i);
    store(llvmConstant(i32, 1), steps, i32, i);
    if (i > 0)
      store(toI64(arith::MulIOp::create(builder, loc,
                                        metadata.getStrides()[outer],
                                        indexConstant(elementBytes))),
            strides, i64, i - 1);
  }
  LLVM::CallOp::create(
      builder, loc, encode,
      ValueRange{mapSlot, llvmConstant(i32, *number("data_type")),
                 llvmConstant(i32, rank), address, dims, strides, boxes, steps,
                 llvmConstant(i32, *number("interleave")),
                 llvmConstant(i32, *number("swizzle")),
                 llvmConstant(i32, *number("l2_promotion")),
                 llvmConstant(i32, *number("oob_fill"))});
  Value described = LLVM::LoadOp::create(builder, loc, mapType, mapSlot);
  func::ReturnOp::create(builder, loc, described);
  return helper;
}

/// Gives `launch` the tensor maps `record` asks for after the kernel's
/// arguments, dropping those an earlier rewrite added.
static LogicalResult setTensorMaps(gpu::LaunchFuncOp launch,
                                   DictionaryAttr record) {
  ModuleOp top = launch->getParentOfType<ModuleOp>();
  SmallVector<Value> operands(launch.getKernelOperands());
  if (auto added = launch->getAttrOfType<IntegerAttr>(kLaunchTensorMapCount)) {
    int64_t count = std::min<int64_t>(added.getInt(), operands.size());
    SmallVector<Value> dropped(
        llvm::drop_begin(operands, operands.size() - count));
    operands.resize(operands.size() - count);
    launch.getKernelOperandsMutable().assign(operands);
    launch->removeAttr(kLaunchTensorMapCount);
    // The descriptions no launch uses any more.
    for (Value map : dropped)
      if (Operation *call = map.getDefiningOp();
          call && isa<func::CallOp>(call) && call->use_empty())
        call->erase();
  }
  auto maps = record.getAs<ArrayAttr>(kLaunchTensorMaps);
  for (auto [index, entry] :
       llvm::enumerate(maps ? maps.getValue() : ArrayRef<Attribute>())) {
    auto map = dyn_cast<DictionaryAttr>(entry);
    auto arg = map ? map.getAs<IntegerAttr>("arg") : nullptr;
    if (!arg || arg.getInt() < 0 ||
        arg.getInt() >= static_cast<int64_t>(operands.size()) ||
        !isa<MemRefType>(operands[arg.getInt()].getType()))
      return launch.emitError() << "llmgen-select-object: tensor map " << index
                                << " names no memref argument";
    Value memref = operands[arg.getInt()];
    std::string name =
        ("__llmgen_tensor_map_" + launch.getKernelName().getValue() + "_" +
         std::to_string(index))
            .str();
    FailureOr<func::FuncOp> helper = tensorMapHelper(
        top, name, cast<MemRefType>(memref.getType()), map, launch);
    if (failed(helper))
      return failure();
    // Once per buffer: right after the memref is defined.
    OpBuilder builder(launch.getContext());
    if (Operation *definition = memref.getDefiningOp())
      builder.setInsertionPointAfter(definition);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(memref).getOwner());
    operands.push_back(
        func::CallOp::create(builder, launch.getLoc(), *helper, memref)
            .getResult(0));
  }
  launch.getKernelOperandsMutable().assign(operands);
  if (maps && !maps.empty())
    launch->setAttr(kLaunchTensorMapCount,
                    IntegerAttr::get(IntegerType::get(launch.getContext(), 64),
                                     maps.size()));
  return success();
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
  if (failed(setSharedBytes(launch, record)))
    return failure();
  return setTensorMaps(launch, record);
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
