//===- RecordKernels.cpp - Record kernel sources for prompts ----*- C++ -*-===//
//
// Implements `llmgen-record-kernels`: the prompt shows the model each kernel
// as its author wrote it, and verification needs the memref types and which
// arguments the kernel writes, all of which the NVVM lowering erases.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenProperties.h"
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENRECORDKERNELS
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;
using namespace llmptx::llmgen;

namespace {
/// How a kernel uses one memref argument, from the ops that touch it
/// (through views too).
struct Access {
  bool read = false;
  bool written = false;
};
} // namespace

static void collectAccess(Value memref, Access &access) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(user)) {
      collectAccess(assume.getResult(), access);
    } else if (isa<memref::LoadOp>(user)) {
      access.read = true;
    } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (store.getMemRef() == memref)
        access.written = true;
      else
        access.read = true; // the memref is stored as a value: be safe
    } else if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(user)) {
      access.read = access.written = true;
    } else if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1) {
      collectAccess(user->getResult(0), access);
    } else if (isMemoryEffectFree(user)) {
      // memref.dim, extract_strided_metadata and the like read no element.
      continue;
    } else if (auto effects = dyn_cast<MemoryEffectOpInterface>(user)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffectsOnValue(memref, instances);
      for (const MemoryEffects::EffectInstance &effect : instances) {
        if (isa<MemoryEffects::Read>(effect.getEffect()))
          access.read = true;
        if (isa<MemoryEffects::Write>(effect.getEffect()))
          access.written = true;
      }
      if (instances.empty())
        access.read = access.written = true;
    } else {
      // Unknown use (a call, an unregistered op): assume both.
      access.read = access.written = true;
    }
  }
}

/// The alignment in bytes the kernel states for the aligned pointer of
/// argument `index`: `llvm.align` on the argument or a
/// `memref.assume_alignment` of it (the largest); 0 when it states none.
static int64_t statedAlignment(gpu::GPUFuncOp func, unsigned index) {
  int64_t alignment = 0;
  if (auto attr = func.getArgAttrOfType<IntegerAttr>(index, "llvm.align"))
    alignment = attr.getInt();
  Value arg = func.getArgument(index);
  for (Operation *user : arg.getUsers())
    if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(user))
      alignment = std::max<int64_t>(alignment, assume.getAlignment());
  return alignment;
}

static StringRef accessName(const Access &access) {
  if (access.read && access.written)
    return "readwrite";
  if (access.written)
    return "write";
  if (access.read)
    return "read";
  return "none";
}

namespace {
struct LLMGenRecordKernelsPass
    : public llmptx::llmgen::impl::LLMGenRecordKernelsBase<
          LLMGenRecordKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    Builder builder(&getContext());
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (module->hasAttr(kKernelsAttrName))
        continue;
      SmallVector<NamedAttribute> kernels;
      for (auto func : module.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel())
          continue;
        std::string source;
        llvm::raw_string_ostream os(source);
        // The custom form with local scope keeps SSA names stable and drops
        // unrelated module context.
        func->print(os, OpPrintingFlags().useLocalScope());

        SmallVector<Attribute> access;
        SmallVector<int64_t> alignment;
        for (BlockArgument arg : func.getArguments()) {
          alignment.push_back(statedAlignment(func, arg.getArgNumber()));
          if (!isa<BaseMemRefType>(arg.getType())) {
            access.push_back(builder.getStringAttr("value"));
            continue;
          }
          Access usage;
          collectAccess(arg, usage);
          access.push_back(builder.getStringAttr(accessName(usage)));
        }
        kernels.push_back(builder.getNamedAttr(
            func.getName(),
            builder.getDictionaryAttr(
                {builder.getNamedAttr(kRecordedSource,
                                      builder.getStringAttr(source)),
                 builder.getNamedAttr(kRecordedFunctionType,
                                      TypeAttr::get(func.getFunctionType())),
                 builder.getNamedAttr(kRecordedAccess,
                                      builder.getArrayAttr(access)),
                 builder.getNamedAttr(kRecordedAlignment,
                                      builder.getDenseI64ArrayAttr(
                                          alignment))})));
      }
      if (!kernels.empty())
        module->setAttr(kKernelsAttrName, builder.getDictionaryAttr(kernels));
    }
  }
};
} // namespace
