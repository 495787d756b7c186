//===- LLMLowerPipeline.cpp - The llm-lower pipeline ------------*- C++ -*-===//
//
// `llm-lower` lowers only the device side: every pass that touches the IR is
// nested on gpu.module (or, before outlining, touches only gpu.launch
// bodies), so host code comes out exactly as it went in, with its
// gpu.launch_func ops now pointing at a gpu.binary.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace llmptx::llmgen;

void llmptx::llmgen::buildLLMLowerPipeline(OpPassManager &pm,
                                           const LLMLowerOptions &options) {
  pm.addPass(createLLMGenUniformGroupOps());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createLLMGenRecordKernels());

  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertNVGPUToNVVMPass());
  device.addPass(createConvertVectorToSCFPass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(createConvertNVVMToLLVMPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  toNVVM.useBarePtrCallConv = options.barePointers;
  device.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  device.addPass(createConvertIndexToLLVMPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  LLMGenAttachTargetOptions attach;
#define LLMGEN_OPTION(Name, ...) attach.Name = options.Name;
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  pm.addPass(createLLMGenAttachTarget(attach));

  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = options.format;
  toBinary.toolkitPath = options.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  // Kernels selected with their own launch configuration get their host
  // launches rewritten.
  pm.addPass(createLLMGenSelectObject());
}

void llmptx::llmgen::registerLLMLowerPipeline() {
  PassPipelineRegistration<LLMLowerOptions>(
      "llm-lower",
      "Lower gpu.func kernels to a gpu.binary whose PTX comes from an LLM, "
      "verified against the NVPTX reference (which stays the fallback)",
      buildLLMLowerPipeline);
}
