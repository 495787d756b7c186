//===- LLMGenTarget.cpp - #llmgen.target serialization ----------*- C++ -*-===//
//
// The `gpu::TargetAttrInterface` model of `#llmgen.target`. Serializing a
// module decides which object each slot gets and records that decision on the
// module (`llmgen.outcome`), so the alternate slot and `createObject` reuse it
// instead of recomputing, the way the NVVM target passes its timings along.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/LLMGenTarget.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Target/ReferenceBuild.h"
#include "llmptx/Target/TargetSettings.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

using namespace mlir;
using namespace llmptx;

/// Module attribute holding the decision of the selected slot.
static constexpr StringLiteral kOutcomeAttrName = "llmgen.outcome";

namespace {
class LLMGenTargetAttrImpl
    : public gpu::TargetAttrInterface::FallbackModel<LLMGenTargetAttrImpl> {
public:
  std::optional<SmallVector<char, 0>>
  serializeToObject(Attribute attribute, Operation *module,
                    const gpu::TargetOptions &options) const;

  Attribute createObject(Attribute attribute, Operation *module,
                         const SmallVector<char, 0> &object,
                         const gpu::TargetOptions &options) const;
};
} // namespace

static StringRef slotName(llmgen::Slot slot) {
  return slot == llmgen::Slot::Selected ? "selected" : "alternate";
}

/// The outcome when the reference is the only object: both slots hold it.
static DictionaryAttr referenceOnlyOutcome(MLIRContext *context,
                                           StringRef referencePtx,
                                           StringRef reason) {
  Builder builder(context);
  NamedAttribute provenance[] = {
      builder.getNamedAttr("llmgen.source", builder.getStringAttr("nvptx")),
      builder.getNamedAttr("llmgen.reason", builder.getStringAttr(reason))};
  DictionaryAttr slot = builder.getDictionaryAttr(
      {builder.getNamedAttr("ptx", builder.getStringAttr(referencePtx)),
       builder.getNamedAttr("properties",
                            builder.getDictionaryAttr(provenance))});
  return builder.getDictionaryAttr({builder.getNamedAttr("selected", slot),
                                    builder.getNamedAttr("alternate", slot)});
}

/// Decides both slots of `module` and records the decision on it.
static FailureOr<DictionaryAttr>
decideOutcome(llmgen::TargetAttr target, Operation *module,
              const gpu::TargetOptions &options) {
  TargetSettings settings = TargetSettings::resolve(target);
  std::optional<ReferenceBuild> reference =
      buildReference(module, target.getReferenceTarget(), options);
  if (!reference)
    return failure();

  StringRef reason = "the LLM path is not enabled in this build";
  if (settings.provider.empty())
    reason = "no provider configured (set provider= or LLMPTX_PROVIDER)";
  else if (settings.select == llmgen::SelectPolicy::NVPTX)
    reason = "select=nvptx";
  // Remarks go to the module's location without the op dump that
  // MlirOptMain appends to diagnostics attached to an operation.
  emitRemark(module->getLoc())
      << "llmgen: using the NVPTX reference: " << reason;
  DictionaryAttr outcome =
      referenceOnlyOutcome(module->getContext(), reference->ptx, reason);
  module->setAttr(kOutcomeAttrName, outcome);
  return outcome;
}

std::optional<SmallVector<char, 0>> LLMGenTargetAttrImpl::serializeToObject(
    Attribute attribute, Operation *module,
    const gpu::TargetOptions &options) const {
  auto target = cast<llmgen::TargetAttr>(attribute);
  if (!isa_and_nonnull<gpu::GPUModuleOp>(module)) {
    if (module)
      module->emitError("#llmgen.target serializes gpu.module ops only");
    return std::nullopt;
  }

  // The alternate slot reuses the decision of the selected one; serialized
  // on its own (or first) it makes the decision itself.
  auto outcome = module->getAttrOfType<DictionaryAttr>(kOutcomeAttrName);
  if (!outcome || target.getSlot() == llmgen::Slot::Selected) {
    FailureOr<DictionaryAttr> decided = decideOutcome(target, module, options);
    if (failed(decided))
      return std::nullopt;
    outcome = *decided;
  }
  auto slot = outcome.getAs<DictionaryAttr>(slotName(target.getSlot()));
  StringRef ptx = slot.getAs<StringAttr>("ptx").getValue();

  switch (options.getCompilationTarget()) {
  case gpu::CompilationTarget::Assembly:
    return SmallVector<char, 0>(ptx.begin(), ptx.end());
  case gpu::CompilationTarget::Binary:
  case gpu::CompilationTarget::Fatbin:
  case gpu::CompilationTarget::Offload: {
    // The reference path owns the binary formats: let the NVVM target
    // assemble (ptxas, fatbinary) or emit bitcode as it always does.
    auto nvvm = cast<gpu::TargetAttrInterface>(target.getReferenceTarget());
    gpu::TargetOptions binaryOptions(
        findCudaToolkitRoot(options.getToolkitPath()),
        options.getLibrariesToLink(), options.getCmdOptions(),
        options.getELFSection(), options.getCompilationTarget());
    return nvvm.serializeToObject(module, binaryOptions);
  }
  }
  llvm_unreachable("unknown compilation target");
}

Attribute
LLMGenTargetAttrImpl::createObject(Attribute attribute, Operation *module,
                                   const SmallVector<char, 0> &object,
                                   const gpu::TargetOptions &options) const {
  auto target = cast<llmgen::TargetAttr>(attribute);
  Builder builder(attribute.getContext());

  SmallVector<NamedAttribute> properties;
  if (auto outcome = module->getAttrOfType<DictionaryAttr>(kOutcomeAttrName))
    if (auto slot = outcome.getAs<DictionaryAttr>(slotName(target.getSlot())))
      if (auto provenance = slot.getAs<DictionaryAttr>("properties"))
        llvm::append_range(properties, provenance.getValue());
  properties.push_back(builder.getNamedAttr(
      "llmgen.slot", builder.getStringAttr(slotName(target.getSlot()))));
  if (options.getCompilationTarget() == gpu::CompilationTarget::Assembly)
    properties.push_back(
        builder.getNamedAttr("O", builder.getI32IntegerAttr(target.getO())));
  if (StringRef section = options.getELFSection(); !section.empty())
    properties.push_back(builder.getNamedAttr(gpu::elfSectionName,
                                              builder.getStringAttr(section)));

  // Record the lowered signature of every kernel, the ABI the object obeys.
  SmallVector<gpu::KernelMetadataAttr> kernels;
  for (auto func : cast<gpu::GPUModuleOp>(module).getOps<LLVM::LLVMFuncOp>())
    if (func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
        func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      kernels.push_back(gpu::KernelMetadataAttr::get(
          cast<FunctionOpInterface>(func.getOperation())));
  gpu::KernelTableAttr kernelTable;
  if (!kernels.empty())
    kernelTable = gpu::KernelTableAttr::get(attribute.getContext(), kernels);

  return gpu::ObjectAttr::get(
      attribute.getContext(), target.getReferenceTarget(),
      options.getCompilationTarget(),
      builder.getStringAttr(StringRef(object.data(), object.size())),
      builder.getDictionaryAttr(properties), kernelTable);
}

void llmptx::registerLLMGenTargetInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.insert<llmgen::LLMGenDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registry.addExtension(
      +[](MLIRContext *context, llmgen::LLMGenDialect *dialect) {
        llmgen::TargetAttr::attachInterface<LLMGenTargetAttrImpl>(*context);
      });
}

void llmptx::registerLLMGenTargetInterfaceExternalModels(MLIRContext &context) {
  DialectRegistry registry;
  registerLLMGenTargetInterfaceExternalModels(registry);
  context.appendDialectRegistry(registry);
}
