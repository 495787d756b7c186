//===- LLMGenDialect.cpp - The llmgen dialect -------------------*- C++ -*-===//
//
// Registers the dialect's attributes and promises the GPU target interface,
// whose implementation lives in the LLMPTXTarget library.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"

#include "llmptx/Runtime/Expression.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace llmptx::llmgen;

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.cpp.inc"

void LLMGenDialect::initialize() {
  registerAttributes();
  // The serialization pulls in the NVVM target and the LLM pipeline, so it is
  // attached as an external model; promising it lets `gpu.module` verify its
  // target list without that library loaded.
  declarePromisedInterface<gpu::TargetAttrInterface, TargetAttr>();
}

//===----------------------------------------------------------------------===//
// llmgen.harness on a gpu.func
//===----------------------------------------------------------------------===//

/// What HarnessAttr::verify cannot see: the harness against the kernel it
/// describes. Every entry of `args` must fit its argument (one expression
/// per dynamic dimension of a memref, one value per scalar, a float literal
/// only for a float scalar), outputs and ranges must name arguments that
/// exist, and a harness block must agree with known_block_size.
static LogicalResult verifyHarnessOn(gpu::GPUFuncOp func, HarnessAttr harness) {
  auto error = [&]() { return func.emitOpError() << "llmgen.harness: "; };
  if (!func.isKernel())
    return error() << "only a gpu.func kernel has a harness";
  ArrayRef<Type> types = func.getArgumentTypes();
  auto describe = [&](unsigned index) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "%arg" << index << " (" << types[index] << ")";
    return text;
  };
  if (ArrayAttr args = harness.getArgs()) {
    if (args.size() != types.size())
      return error() << "args has " << args.size() << " entries, the kernel "
                     << types.size() << " arguments (one entry per argument; "
                     << "\"\" where the host supplies it)";
    for (auto [index, arg] : llvm::enumerate(args)) {
      auto text = dyn_cast<StringAttr>(arg);
      if (auto memref = dyn_cast<MemRefType>(types[index])) {
        if (!text)
          return error() << "args[" << index << "] of memref "
                         << describe(index)
                         << " must list its dynamic dimensions as a string";
        size_t given =
            llmptx::runtime::splitExpressionList(
                std::string_view(text.getValue().data(), text.size()))
                .size();
        int64_t dynamic = memref.getNumDynamicDims();
        if (given != 0 && static_cast<int64_t>(given) != dynamic)
          return error() << "args[" << index << "] gives " << given
                         << " dimension(s) for " << describe(index)
                         << ", which has " << dynamic << " dynamic one(s)";
        continue;
      }
      bool isFloat = isa<FloatType>(types[index]);
      if (isa<FloatAttr>(arg) && !isFloat)
        return error() << "args[" << index << "] is a float for the integer "
                       << describe(index);
      if (!text)
        continue;
      StringRef value = text.getValue().trim();
      if (isFractionalLiteral(value) && !isFloat)
        return error() << "args[" << index << "] is a float for the integer "
                       << describe(index);
      if (llmptx::runtime::splitExpressionList(
              std::string_view(value.data(), value.size()))
              .size() > 1)
        return error() << "args[" << index << "] gives several values for the "
                       << "scalar " << describe(index);
    }
  }
  if (DenseI32ArrayAttr outputs = harness.getOutputs())
    for (int32_t output : outputs.asArrayRef())
      if (output >= static_cast<int64_t>(types.size()) ||
          !isa<MemRefType>(types[output]))
        return error() << "outputs names argument " << output
                       << ", which is not a memref argument of the kernel";
  if (DictionaryAttr facts = harness.getFacts())
    if (auto ranges = facts.getAs<DictionaryAttr>("range"))
      for (NamedAttribute range : ranges) {
        unsigned index = 0;
        range.getName().getValue().drop_front(3).getAsInteger(10, index);
        if (index >= types.size())
          return error() << "facts: range names " << range.getName().getValue()
                         << ", but the kernel "
                         << "has " << types.size() << " arguments";
      }
  if (DenseI32ArrayAttr block = harness.getBlock())
    if (DenseI32ArrayAttr known = func.getKnownBlockSizeAttr())
      if (known.asArrayRef() != block.asArrayRef())
        return error() << "block " << block << " disagrees with the kernel's "
                       << "known_block_size " << known;
  return success();
}

LogicalResult LLMGenDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != "llmgen.harness")
    return success();
  auto harness = dyn_cast<HarnessAttr>(attr.getValue());
  if (!harness)
    return op->emitOpError() << "llmgen.harness must be a #llmgen.harness";
  // The lowering carries the attribute to the llvm.func, where the memref
  // types it talks about are gone; it was checked on the gpu.func.
  auto func = dyn_cast<gpu::GPUFuncOp>(op);
  if (!func)
    return success();
  return verifyHarnessOn(func, harness);
}
