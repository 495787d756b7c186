//===- RecordKernels.cpp - Record kernel sources for prompts ----*- C++ -*-===//
//
// Implements `llmgen-record-kernels`: the prompt shows the model each kernel
// as its author wrote it, which the NVVM lowering would otherwise erase.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENRECORDKERNELS
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;
using namespace llmptx::llmgen;

/// Name of the gpu.module attribute that holds the recorded kernels.
static constexpr StringLiteral kKernelsAttrName = "llmgen.kernels";

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
        // Generic form would be unreadable; the custom form with local scope
        // keeps SSA names stable and drops unrelated module context.
        func->print(os, OpPrintingFlags().useLocalScope());
        kernels.push_back(builder.getNamedAttr(
            func.getName(), builder.getDictionaryAttr({builder.getNamedAttr(
                                "source", builder.getStringAttr(source))})));
      }
      if (!kernels.empty())
        module->setAttr(kKernelsAttrName, builder.getDictionaryAttr(kernels));
    }
  }
};
} // namespace
