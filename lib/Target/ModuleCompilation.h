//===- ModuleCompilation.h - Decide the objects of a gpu.module -*- C++ -*-===//
//
// The LLM path for one gpu.module: reference, prompts, candidates,
// verification, per-kernel selection, composition, provenance and report.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_MODULECOMPILATION_H
#define LLMPTX_LIB_TARGET_MODULECOMPILATION_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace llmptx {

/// Decides the PTX and provenance of both slots of `module`:
///   {selected = {ptx = "...", properties = {...}},
///    alternate = {ptx = "...", properties = {...}}}
/// Fails only when the reference cannot be built or, with strict=true, when
/// a kernel falls back to it; both emit an error on the module.
mlir::FailureOr<mlir::DictionaryAttr>
decideModuleOutcome(llmgen::TargetAttr target, mlir::Operation *module,
                    const mlir::gpu::TargetOptions &options);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_MODULECOMPILATION_H
