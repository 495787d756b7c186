//===- Passes.h - llmgen passes and the llm-lower pipeline ------*- C++ -*-===//
//
// Declares the llmgen passes and the `llm-lower` pipeline, which takes
// `gpu.func` kernels (or `gpu.launch` regions) all the way to a `gpu.binary`.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_H
#define LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace llmptx::llmgen {

#define GEN_PASS_DECL
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"

/// Options of the `llm-lower` pipeline: every option of
/// `llmgen-attach-target` (the settings of LLMGenSettings.td), plus how the
/// device code is lowered and the binary emitted.
struct LLMLowerOptions : public mlir::PassPipelineOptions<LLMLowerOptions> {
#define LLMGEN_OPTION(Name, Type, Flag, Default, Summary)                      \
  PassOptions::Option<Type> Name{*this, Flag, llvm::cl::desc(Summary),         \
                                 llvm::cl::init(Default),                      \
                                 optionSpellings<Type>()};
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"

  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Object format: isa (PTX), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root (default: CUDA_HOME, CUDA_PATH, PATH)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> barePointers{
      *this, "bare-pointers",
      llvm::cl::desc("Pass memrefs of kernels as bare pointers"),
      llvm::cl::init(false)};
};

/// Adds the llm-lower pipeline to `pm` (anchored on builtin.module):
/// outline `gpu.launch` bodies, record kernel sources, lower each
/// `gpu.module` to NVVM, attach `#llmgen.target`, run `gpu-module-to-binary`.
/// Host code is left as it is.
void buildLLMLowerPipeline(mlir::OpPassManager &pm,
                           const LLMLowerOptions &options);

/// Registers the `llm-lower` pipeline (the passes register through the
/// generated `registerLLMGenPasses`).
void registerLLMLowerPipeline();

#define GEN_PASS_REGISTRATION
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"

} // namespace llmptx::llmgen

#endif // LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_H
