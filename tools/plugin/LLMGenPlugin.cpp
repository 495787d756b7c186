//===- LLMGenPlugin.cpp - llmgen as an mlir-opt plugin ----------*- C++ -*-===//
//
// Lets a stock `mlir-opt` (one that links the shared libMLIR.so) use the
// llmgen dialect, `#llmgen.target` in `gpu-module-to-binary`, the llmgen
// passes and the `llm-lower` pipeline:
//
//   mlir-opt --load-dialect-plugin=LLMGenPlugin.so \
//            --load-pass-plugin=LLMGenPlugin.so ...
//
// Do not load it into llmptx-opt, which has the dialect built in.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"
#include "llmptx/Target/LLMGenTarget.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LLMGen", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<llmptx::llmgen::LLMGenDialect>();
            llmptx::registerLLMGenTargetInterfaceExternalModels(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LLMGenPasses", LLVM_VERSION_STRING, []() {
            llmptx::llmgen::registerLLMGenPasses();
            llmptx::llmgen::registerLLMLowerPipeline();
          }};
}
