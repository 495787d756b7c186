//===- ReferenceBuild.cpp - The conventional NVVM/NVPTX build ---*- C++ -*-===//
//
// One NVVM serialization in assembly mode yields the reference PTX. The
// prompt shows the kernel as written (llmgen-record-kernels), so no LLVM IR
// is kept.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/ReferenceBuild.h"
#include "llmptx/PTX/PtxIsa.h"
#include "llmptx/Runtime/CudaToolkit.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace llmptx;

std::string llmptx::findCudaToolkitRoot(StringRef fromOptions) {
  std::optional<runtime::CudaToolkitLocation> found =
      runtime::locateCudaToolkit(fromOptions.str());
  return found ? found->root : std::string();
}

/// The NVPTX backend aborts the process (report_fatal_error) when the
/// features ask for a PTX ISA older than the chip needs (+ptx78 with
/// sm_90a); this says so on the module instead.
static LogicalResult checkPtxFeature(Operation *module,
                                     NVVM::NVVMTargetAttr target) {
  std::optional<ptx::Chip> chip = ptx::parseChip(target.getChip());
  std::optional<unsigned> needed =
      chip ? ptx::minPtxVersionForChip(*chip) : std::nullopt;
  if (!needed)
    return success();
  SmallVector<StringRef> features;
  target.getFeatures().split(features, ',', -1, /*KeepEmpty=*/false);
  for (StringRef feature : features) {
    StringRef version = feature.trim();
    unsigned asked = 0;
    if (!version.consume_front("+ptx") || version.getAsInteger(10, asked) ||
        asked >= *needed)
      continue;
    return module->emitError()
           << "features '" << feature.trim() << "' ask for PTX ISA "
           << asked / 10 << "." << asked % 10 << ", older than the "
           << *needed / 10 << "." << *needed % 10 << " that "
           << target.getChip()
           << " needs: leave the +ptx feature out (the backend then picks "
              "the chip's minimum) or raise it";
  }
  return success();
}

std::optional<ReferenceBuild>
llmptx::buildReference(Operation *module, Attribute nvvmTarget,
                       const gpu::TargetOptions &options) {
  auto model = dyn_cast<gpu::TargetAttrInterface>(nvvmTarget);
  if (!model) {
    module->emitError("the #nvvm.target serialization model is not "
                      "registered; call "
                      "registerLLMGenTargetInterfaceExternalModels");
    return std::nullopt;
  }

  if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(nvvmTarget))
    if (failed(checkPtxFeature(module, nvvm)))
      return std::nullopt;

  ReferenceBuild build;
  build.toolkitPath = findCudaToolkitRoot(options.getToolkitPath());
  std::string isa;
  auto recordISA = [&](StringRef text) { isa = text.str(); };
  auto symbolTable = [&]() { return options.getSymbolTable(); };

  gpu::TargetOptions referenceOptions(
      build.toolkitPath, options.getLibrariesToLink(), options.getCmdOptions(),
      options.getELFSection(), gpu::CompilationTarget::Assembly, symbolTable,
      /*initialLlvmIRCallback=*/{}, /*linkedLlvmIRCallback=*/{},
      /*optimizedLlvmIRCallback=*/{}, recordISA);
  std::optional<SmallVector<char, 0>> object =
      model.serializeToObject(module, referenceOptions);
  if (!object)
    return std::nullopt;
  build.ptx.assign(object->begin(), object->end());
  // Assembly mode returns the PTX itself; keep the callback's copy only if the
  // serializer ever returns something else.
  if (build.ptx.empty())
    build.ptx = std::move(isa);
  return build;
}
