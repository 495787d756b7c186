//===- llmptx-opt.cpp - The llmptx optimizer driver -------------*- C++ -*-===//
//
// mlir-opt with every upstream dialect, pass, extension and LLVM IR
// translation, plus the llmgen dialect, its target model, passes and the
// `llm-lower` pipeline. The input is checked for nesting MLIR's recursive
// parser cannot take before it is handed over, so deep input is an error
// with a position, not a stack overflow.
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

#include "llmptx/Support/FileIO.h"
#include "llmptx/Support/UntrustedText.h"

#include "llvm/Support/WithColor.h"

#include <cstring>
#include <string>

/// The input file of a command line, as MlirOptMain takes it: the one
/// positional argument ("-" or none: stdin, not checked here). Every option
/// with a value spells it with '=', except `-o FILE`.
static std::string inputFile(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-o" || arg == "--o") {
      ++i;
      continue;
    }
    if (arg == "--")
      return i + 1 < argc ? argv[i + 1] : "";
    if (!arg.starts_with("-"))
      return arg.str();
  }
  return "";
}

/// Whether the input nests deeper than the parser can take; says where.
static bool tooDeep(const std::string &path) {
  std::string text;
  // A file that cannot be read is MlirOptMain's error to give.
  if (path.empty() || llmptx::untrusted::readRegularFile(path, text))
    return false;
  std::optional<std::string> nesting =
      llmptx::untrusted::findExcessiveMlirNesting(text);
  if (!nesting)
    return false;
  llvm::WithColor::error(llvm::errs(), "llmptx-opt")
      << path << ": " << *nesting << "\n";
  return true;
}

int main(int argc, char **argv) {
  if (tooDeep(inputFile(argc, argv)))
    return 1;

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
