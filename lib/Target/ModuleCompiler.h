//===- ModuleCompiler.h - The LLM path of one gpu.module --------*- C++ -*-===//
//
// One object per gpu.module serialized with `#llmgen.target`; `run()` is the
// data flow of docs/architecture.md, one stage method each:
//
//   prepare -> [search -> verify by execution -> optimize -> select]
//           -> compose -> record
//
// MLIR is read in prepare (the reference build and the kernels' facts,
// copied into plain data) and written in record; the stages in brackets are
// KernelStages, on plain data, the model calls and checks in a thread pool.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_MODULECOMPILER_H
#define LLMPTX_LIB_TARGET_MODULECOMPILER_H

#include "KernelStages.h"
#include "PtxComposition.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Target/ReferenceBuild.h"
#include "llmptx/Target/TargetSettings.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {

class ModuleCompiler {
public:
  ModuleCompiler(llmgen::TargetAttr target, mlir::gpu::GPUModuleOp module,
                 const mlir::gpu::TargetOptions &options);
  ~ModuleCompiler();

  /// Decides the PTX and provenance of both slots of the module (prepare:
  /// the reference, the facts, the provider and the checks; then the
  /// stages):
  ///   {selected = {ptx = "...", properties = {...}},
  ///    alternate = {ptx = "...", properties = {...}}}
  /// Fails only when the reference cannot be built or, with strict=true,
  /// when a kernel falls back to it; both emit an error on the module.
  mlir::FailureOr<mlir::DictionaryAttr> run();

private:
  /// prepare: every kernel's facts, copied out of the IR, and the stages
  /// that work on them.
  mlir::LogicalResult describe();
  /// One PTX module per slot from the per-kernel choices.
  void compose();
  /// Warnings, remarks, strict errors, provenance and the report.
  mlir::FailureOr<mlir::DictionaryAttr> record();

  /// Ends the module on the reference: remark (or a strict error) and
  /// report; `isFallback` when the user asked for LLM kernels.
  mlir::FailureOr<mlir::DictionaryAttr>
  settleOnReference(llvm::StringRef reason, bool isFallback);
  /// The reference with `parts` composed in, compiled once more; the error
  /// says why it cannot be used.
  llvm::Expected<std::string>
  composeSlot(const std::vector<KernelReplacement> &parts);
  /// The provenance a slot records per kernel.
  mlir::DictionaryAttr provenanceOf(bool selectedSlot);
  /// One remark per kernel; returns false when strict mode refuses one.
  bool emitKernelRemarks();
  void emitProviderWarnings();
  void writeReport(llvm::StringRef selectedReason);
  /// Appends the module's record to `report` (a warning when it cannot).
  void appendModuleReport(llvm::json::Object moduleRecord,
                          llvm::json::Array kernelRecords);
  void remark(const llvm::Twine &message);

  llmgen::TargetAttr target;
  mlir::gpu::GPUModuleOp module;
  const mlir::gpu::TargetOptions &options;
  TargetSettings settings;

  std::optional<ReferenceBuild> reference;
  std::unique_ptr<KernelStages> stages;

  /// Compose's results: the PTX of each slot and what the slots hold.
  std::string selectedPtx, alternatePtx;
  bool anySelected = false, alternateIsLLM = false;
};

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_MODULECOMPILER_H
