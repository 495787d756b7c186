//===- llmptx-opt.cpp - The llmptx optimizer driver -------------*- C++ -*-===//
//
// mlir-opt with every upstream dialect, pass, extension and LLVM IR
// translation, plus the llmgen dialect, its target model, passes and the
// `llm-lower` pipeline.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"
#include "llmptx/Target/LLMGenTarget.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();

  registry.insert<llmptx::llmgen::LLMGenDialect>();
  llmptx::registerLLMGenTargetInterfaceExternalModels(registry);
  llmptx::llmgen::registerLLMGenPasses();
  llmptx::llmgen::registerLLMLowerPipeline();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "llmptx optimizer driver: MLIR with an LLM GPU backend\n",
      registry));
}
