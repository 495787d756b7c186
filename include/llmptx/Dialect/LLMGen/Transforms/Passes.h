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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace llmptx::llmgen {

#define GEN_PASS_DECL
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"

/// Options of the `llm-lower` pipeline: the #llmgen.target settings of the
/// user-facing contract plus how the binary is emitted.
struct LLMLowerOptions : public mlir::PassPipelineOptions<LLMLowerOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("Target chip (sm_XX)"),
                                        llvm::cl::init("sm_90")};
  PassOptions::Option<unsigned> optLevel{
      *this, "O", llvm::cl::desc("LLVM optimization level of the reference"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("LLVM target features of the reference"),
      llvm::cl::init("")};
  PassOptions::Option<bool> fast{*this, "fast",
                                 llvm::cl::desc("Fast math in the reference"),
                                 llvm::cl::init(false)};
  PassOptions::Option<bool> ftz{
      *this, "ftz", llvm::cl::desc("Flush denormals in the reference"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> provider{
      *this, "provider",
      llvm::cl::desc("openai, anthropic, exec or replay ($LLMPTX_PROVIDER)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> model{
      *this, "model", llvm::cl::desc("Model name ($LLMPTX_MODEL)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> baseUrl{
      *this, "base-url", llvm::cl::desc("Provider base URL ($LLMPTX_BASE_URL)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> execCommand{
      *this, "exec-command",
      llvm::cl::desc("Command of the exec provider ($LLMPTX_EXEC_COMMAND)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> samples{*this, "samples",
                                        llvm::cl::desc("Candidates per kernel"),
                                        llvm::cl::init(1)};
  PassOptions::Option<unsigned> repairs{
      *this, "repairs", llvm::cl::desc("Repair rounds per candidate"),
      llvm::cl::init(2)};
  PassOptions::Option<int> rounds{
      *this, "rounds",
      llvm::cl::desc("Optimization rounds after verification by execution "
                     "(-1: 2 with mode=optimize, 0 with mode=translate)"),
      llvm::cl::init(-1)};
  PassOptions::Option<Mode> mode{
      *this, "mode", llvm::cl::desc("translate or optimize"),
      llvm::cl::init(Mode::Translate),
      llvm::cl::values(clEnumValN(Mode::Translate, "translate", ""),
                       clEnumValN(Mode::Optimize, "optimize", ""))};
  PassOptions::Option<VerifyLevel> verification{
      *this, "verify", llvm::cl::desc("none, compile or exec"),
      llvm::cl::init(VerifyLevel::Compile),
      llvm::cl::values(clEnumValN(VerifyLevel::None, "none", ""),
                       clEnumValN(VerifyLevel::Compile, "compile", ""),
                       clEnumValN(VerifyLevel::Exec, "exec", ""))};
  PassOptions::Option<SelectPolicy> select{
      *this, "select", llvm::cl::desc("auto, llm or nvptx"),
      llvm::cl::init(SelectPolicy::Auto),
      llvm::cl::values(clEnumValN(SelectPolicy::Auto, "auto", ""),
                       clEnumValN(SelectPolicy::LLM, "llm", ""),
                       clEnumValN(SelectPolicy::NVPTX, "nvptx", ""))};
  PassOptions::Option<bool> strict{
      *this, "strict", llvm::cl::desc("Fail instead of falling back"),
      llvm::cl::init(false)};
  PassOptions::Option<CacheMode> cache{
      *this, "cache", llvm::cl::desc("readwrite, read or off"),
      llvm::cl::init(CacheMode::ReadWrite),
      llvm::cl::values(clEnumValN(CacheMode::ReadWrite, "readwrite", ""),
                       clEnumValN(CacheMode::Read, "read", ""),
                       clEnumValN(CacheMode::Off, "off", ""))};
  PassOptions::Option<std::string> cacheDir{
      *this, "cache-dir", llvm::cl::desc("Cache directory ($LLMPTX_CACHE_DIR)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> runner{
      *this, "runner",
      llvm::cl::desc("Command that runs llmptx-runner ($LLMPTX_RUNNER)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> report{
      *this, "report", llvm::cl::desc("Path of the JSON report"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> emitBundles{
      *this, "emit-bundles",
      llvm::cl::desc("Directory for verification bundles"), llvm::cl::init("")};
  PassOptions::Option<unsigned> jobs{
      *this, "jobs", llvm::cl::desc("Model calls in flight (0: automatic)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> alternate{
      *this, "alternate",
      llvm::cl::desc("Keep the non-selected object too (index 1)"),
      llvm::cl::init(true)};
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
