//===- ModuleCompiler.h - The LLM path of one gpu.module --------*- C++ -*-===//
//
// One object per gpu.module serialized with `#llmgen.target`; `run()` is the
// data flow of docs/architecture.md:
//
//   prepare -> [stages -> compose -> settle] -> record
//
// MLIR is read in prepare (the reference build and the kernels' facts,
// copied into plain data) and written in record; the part in brackets is the
// pipeline's driver (llmptx/Pipeline/Driver.h), on plain data, whose remarks
// become diagnostics on the module.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_MODULECOMPILER_H
#define LLMPTX_LIB_TARGET_MODULECOMPILER_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Pipeline/Driver.h"
#include "llmptx/Pipeline/Settings.h"
#include "llmptx/Target/ReferenceBuild.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <memory>
#include <optional>
#include <vector>

namespace llmptx {

class ModuleCompiler {
public:
  ModuleCompiler(llmgen::TargetAttr target, mlir::gpu::GPUModuleOp module,
                 const mlir::gpu::TargetOptions &options);
  ~ModuleCompiler();

  /// Decides the PTX and provenance of both slots of the module:
  ///   {selected = {ptx = "...", properties = {...}},
  ///    alternate = {ptx = "...", properties = {...}}}
  /// Fails only when the reference cannot be built or, with strict=true,
  /// when a kernel falls back to it; both emit an error on the module.
  mlir::FailureOr<mlir::DictionaryAttr> run();

private:
  /// prepare: every kernel's facts, copied out of the IR; only the kernels'
  /// names when no model will be asked.
  mlir::FailureOr<std::vector<KernelDescription>> describe();
  /// The driver's messages as diagnostics on the module.
  DriverHooks diagnostics();
  /// record: both slots with their provenance.
  mlir::DictionaryAttr record(const ComposedSlots &slots);
  /// The provenance a slot records per kernel.
  mlir::DictionaryAttr provenanceOf(bool selectedSlot, bool alternateIsLLM);

  llmgen::TargetAttr target;
  mlir::gpu::GPUModuleOp module;
  const mlir::gpu::TargetOptions &options;
  PipelineSettings settings;

  std::optional<ReferenceBuild> reference;
  std::unique_ptr<PipelineDriver> driver;
};

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_MODULECOMPILER_H
