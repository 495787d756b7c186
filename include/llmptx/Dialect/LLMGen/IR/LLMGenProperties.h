//===- LLMGenProperties.h - Names of what llmgen records in IR -*- C++ -*-===//
//
// The attribute names one pass or target writes and another reads: the
// kernels recorded on a gpu.module, the decision recorded while it is
// serialized, and the properties of the `#gpu.object`s it becomes (which
// scripts read too: python/llmptx/gpu_binary.py). One spelling each.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENPROPERTIES_H
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENPROPERTIES_H

#include "llvm/ADT/StringRef.h"

namespace llmptx::llmgen {

/// On a gpu.module (llmgen-record-kernels): per kernel, its source as
/// written, its original signature, the access of each argument and the
/// alignment each states. On an object: per kernel, its provenance.
inline constexpr llvm::StringLiteral kKernelsAttrName = "llmgen.kernels";
inline constexpr llvm::StringLiteral kRecordedSource = "source";
inline constexpr llvm::StringLiteral kRecordedFunctionType = "function_type";
inline constexpr llvm::StringLiteral kRecordedAccess = "access";
inline constexpr llvm::StringLiteral kRecordedAlignment = "align";

/// On a gpu.module while it is serialized: the decision of both slots,
/// {selected = {ptx, properties}, alternate = {ptx, properties}}.
inline constexpr llvm::StringLiteral kOutcomeAttrName = "llmgen.outcome";
inline constexpr llvm::StringLiteral kOutcomePtx = "ptx";
inline constexpr llvm::StringLiteral kOutcomeProperties = "properties";

/// Properties of an object.
inline constexpr llvm::StringLiteral kSourceProperty = "llmgen.source";
inline constexpr llvm::StringLiteral kReasonProperty = "llmgen.reason";
inline constexpr llvm::StringLiteral kModelProperty = "llmgen.model";
inline constexpr llvm::StringLiteral kProviderProperty = "llmgen.provider";
inline constexpr llvm::StringLiteral kSlotProperty = "llmgen.slot";

/// In an object's per-kernel entry: the launch the object needs,
/// {block = array<i64: x, y, z>, grid = ["...", "...", "..."],
///  sizes = {N = array<i64: arg>, M = array<i64: arg, dim>}}.
inline constexpr llvm::StringLiteral kLaunchEntry = "launch";
inline constexpr llvm::StringLiteral kLaunchBlock = "block";
inline constexpr llvm::StringLiteral kLaunchGrid = "grid";
inline constexpr llvm::StringLiteral kLaunchSizes = "sizes";
/// Dynamic shared memory of the launch, when the object asks for its own.
inline constexpr llvm::StringLiteral kLaunchSharedBytes =
    "dynamic_shared_bytes";
/// The tensor maps the object's kernel takes after its arguments, in order:
/// [{arg, box (outermost first), data_type, interleave, swizzle,
/// l2_promotion, oob_fill (cuda.h's numbering)}].
inline constexpr llvm::StringLiteral kLaunchTensorMaps = "tensor_maps";
/// On a rewritten gpu.launch_func: how many tensor maps it passes after the
/// kernel's arguments (so selecting another object can drop them).
inline constexpr llvm::StringLiteral kLaunchTensorMapCount =
    "llmgen.tensor_maps";

} // namespace llmptx::llmgen

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENPROPERTIES_H
