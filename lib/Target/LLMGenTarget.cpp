//===- LLMGenTarget.cpp - #llmgen.target serialization ----------*- C++ -*-===//
//
// The `gpu::TargetAttrInterface` model of `#llmgen.target`. Serializing a
// module runs its ModuleCompiler, which decides which object each slot
// gets, and records that decision on the module (`llmgen.outcome`), so the
// alternate slot and `createObject` reuse it instead of recomputing, the way
// the NVVM target hands its timings to its own `createObject`.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/LLMGenTarget.h"

#include "ModuleCompiler.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenProperties.h"
#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/Target/ReferenceBuild.h"

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

/// The recorded outcome of `target`'s slot, or null.
static DictionaryAttr slotOutcome(Operation *module,
                                  llmgen::TargetAttr target) {
  auto outcome =
      module->getAttrOfType<DictionaryAttr>(llmgen::kOutcomeAttrName);
  return outcome ? outcome.getAs<DictionaryAttr>(
                       llmgen::stringifySlot(target.getSlot()))
                 : nullptr;
}

/// Whether the slot of `target` holds LLM kernels.
static bool isLLMSlot(Operation *module, llmgen::TargetAttr target) {
  DictionaryAttr slot = slotOutcome(module, target);
  auto properties =
      slot ? slot.getAs<DictionaryAttr>(llmgen::kOutcomeProperties) : nullptr;
  auto source = properties
                    ? properties.getAs<StringAttr>(llmgen::kSourceProperty)
                    : nullptr;
  return source && source.getValue() == "llm";
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
  if (!module->hasAttr(llmgen::kOutcomeAttrName) ||
      target.getSlot() == llmgen::Slot::Selected) {
    FailureOr<DictionaryAttr> decided =
        ModuleCompiler(target, cast<gpu::GPUModuleOp>(module), options).run();
    if (failed(decided))
      return std::nullopt;
    module->setAttr(llmgen::kOutcomeAttrName, *decided);
  }
  StringRef ptx = slotOutcome(module, target)
                      .getAs<StringAttr>(llmgen::kOutcomePtx)
                      .getValue();

  gpu::CompilationTarget format = options.getCompilationTarget();
  if (format == gpu::CompilationTarget::Assembly)
    return SmallVector<char, 0>(ptx.begin(), ptx.end());

  bool isLLM = isLLMSlot(module, target);
  if (!isLLM && format != gpu::CompilationTarget::Binary) {
    // A fatbin or LLVM bitcode of the reference comes from the NVVM target,
    // as it always does.
    auto nvvm = cast<gpu::TargetAttrInterface>(target.getReferenceTarget());
    gpu::TargetOptions nvvmOptions(
        findCudaToolkitRoot(options.getToolkitPath()),
        options.getLibrariesToLink(), options.getCmdOptions(),
        options.getELFSection(), format);
    return nvvm.serializeToObject(module, nvvmOptions);
  }
  if (format == gpu::CompilationTarget::Offload) {
    module->emitError("llmgen: an LLM kernel has no LLVM bitcode; use "
                      "format=isa, bin or fatbin, or select=nvptx");
    return std::nullopt;
  }

  // A cubin is assembled from the slot's PTX, which is already built: the
  // reference's LLVM codegen does not run again. A fatbin request for LLM
  // PTX gets the cubin alone, which the driver loads the same way
  // (createObject says `bin`). ptxas gets what the NVVM target would pass
  // it: the opt level and the user's ptxas options.
  llvm::Expected<ptx::CudaToolkit> toolkit =
      ptx::findCudaToolkit(findCudaToolkitRoot(options.getToolkitPath()));
  if (!toolkit) {
    module->emitError() << "llmgen: cannot assemble the PTX: "
                        << llvm::toString(toolkit.takeError());
    return std::nullopt;
  }
  ptx::CompileOptions compileOptions;
  compileOptions.optLevel = target.getO();
  auto [allocator, cmdOptions] = options.tokenizeCmdOptions();
  for (const char *option : cmdOptions)
    if (StringRef(option) != "-32") // a fatbinary option, not ptxas's
      compileOptions.extraArgs.push_back(option);
  if (DictionaryAttr flags = target.getFlags())
    if (auto ptxasOptions = flags.getAs<ArrayAttr>("ptxas-cmd-options"))
      for (auto option : ptxasOptions.getAsRange<StringAttr>())
        compileOptions.extraArgs.push_back(option.str());
  ptx::CompileResult compiled =
      ptx::compilePtx(ptx, target.getChip(), *toolkit, compileOptions);
  if (!compiled.ok) {
    module->emitError() << "llmgen: assembling the selected PTX failed: "
                        << compiled.log;
    return std::nullopt;
  }
  return SmallVector<char, 0>(compiled.cubin.begin(), compiled.cubin.end());
}

Attribute
LLMGenTargetAttrImpl::createObject(Attribute attribute, Operation *module,
                                   const SmallVector<char, 0> &object,
                                   const gpu::TargetOptions &options) const {
  auto target = cast<llmgen::TargetAttr>(attribute);
  Builder builder(attribute.getContext());

  SmallVector<NamedAttribute> properties;
  if (DictionaryAttr slot = slotOutcome(module, target))
    if (auto provenance =
            slot.getAs<DictionaryAttr>(llmgen::kOutcomeProperties))
      llvm::append_range(properties, provenance.getValue());
  properties.push_back(builder.getNamedAttr(
      llmgen::kSlotProperty,
      builder.getStringAttr(llmgen::stringifySlot(target.getSlot()))));
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

  gpu::CompilationTarget format = options.getCompilationTarget();
  if (format == gpu::CompilationTarget::Fatbin && isLLMSlot(module, target))
    format = gpu::CompilationTarget::Binary;
  return gpu::ObjectAttr::get(
      attribute.getContext(), target.getReferenceTarget(), format,
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
