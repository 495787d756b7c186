//===- ObjectProvenance.h - What each object says of its kernels -*- C++ -*-=//
//
// The decision of a module as attributes: per slot its PTX and the
// properties its `#gpu.object` carries (source, reason, model, provider and
// per kernel the candidate, its verification, timing and launch).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_OBJECTPROVENANCE_H
#define LLMPTX_LIB_TARGET_OBJECTPROVENANCE_H

#include "llmptx/Pipeline/KernelWork.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace llmptx {

/// The provenance one object records for one kernel: `used` (null: the
/// reference) and why, and the launch the object needs when `launch` is
/// given: {block = array<i64: x, y, z>, grid = ["...", ...], sizes = {N =
/// array<i64: arg>, M = array<i64: arg, dim>}}.
mlir::DictionaryAttr kernelProvenance(mlir::Builder &builder,
                                      const KernelWork &work,
                                      const Candidate *used,
                                      llvm::StringRef reason,
                                      const LaunchConfig *launch);

/// What a slot produces: {ptx = "...", properties = {llmgen.source,
/// llmgen.reason, llmgen.kernels, llmgen.model (LLM slots), llmgen.provider}}.
mlir::DictionaryAttr slotRecord(mlir::Builder &builder, llvm::StringRef ptx,
                                bool llm, llvm::StringRef reason,
                                mlir::DictionaryAttr perKernel,
                                llvm::StringRef model,
                                llvm::StringRef provider);

/// The outcome of a module whose objects are both the reference.
mlir::DictionaryAttr referenceOnlyOutcome(mlir::MLIRContext *context,
                                          llvm::StringRef ptx,
                                          llvm::StringRef reason);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_OBJECTPROVENANCE_H
