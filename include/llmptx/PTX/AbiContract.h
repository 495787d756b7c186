//===- AbiContract.h - Expected kernel entry signature ----------*- C++ -*-===//
//
// The entry a candidate must define so the host launch code (built for the
// NVPTX reference) can call it: its name and the exact ordered .param list,
// with the MLIR argument each parameter comes from. checkAbi compares a
// candidate's entry with it and names each mismatch.
//
// JSON form (what `llmptx-ptx abi` reads):
//   {"entry": "add",
//    "params": [{"type": ".u64", "size": 8, "align": 8,
//                "role": "memref-aligned-pointer", "arg": 0, "dim": 0}, ...]}
// role is one of bare-pointer, memref-allocated-pointer,
// memref-aligned-pointer, memref-offset, memref-size, memref-stride, scalar.
// "size" and "align" default to the size of "type"; "arg"/"dim" to 0.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_ABICONTRACT_H
#define LLMPTX_PTX_ABICONTRACT_H

#include "llmptx/PTX/Diagnostic.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llmptx::ptx {

enum class AbiRole {
  BarePointer,
  MemrefAllocatedPointer,
  MemrefAlignedPointer,
  MemrefOffset,
  MemrefSize,
  MemrefStride,
  Scalar,
  /// A CUtensorMap by value after the memref parameters (argIndex: the
  /// memref it maps).
  TensorMap
};

/// "memref-aligned-pointer", ...
llvm::StringRef abiRoleName(AbiRole role);
std::optional<AbiRole> parseAbiRole(llvm::StringRef name);

struct AbiParam {
  /// ".u64", ".u32", ".f32", ".b8" (byte arrays), ...
  std::string ptxType;
  unsigned sizeBytes = 0;
  unsigned alignBytes = 0;
  AbiRole role = AbiRole::Scalar;
  /// MLIR argument number.
  unsigned argIndex = 0;
  /// Dimension, for sizes and strides.
  unsigned dim = 0;
  /// "memref offset of %arg0", "size 1 of memref %arg2", "scalar %arg3".
  std::string describe() const;
};

struct AbiContract {
  std::string entryName;
  std::vector<AbiParam> params;

  /// The signature to fill in, exactly as the NVPTX backend spells it:
  /// ".visible .entry name(\n\t.param .u64 name_param_0,\n...\n)".
  std::string ptxSignature() const;
  std::string toJson() const;
  static llvm::Expected<AbiContract> fromJson(llvm::StringRef json);
};

/// Checks the candidate's entry against the contract: entry missing or
/// renamed, parameter count, and per parameter the type, size and
/// alignment. .u64/.s64/.b64 (and likewise for other widths) are ABI
/// equivalent and only get a note. Codes: abi-missing-entry,
/// abi-param-count, abi-param-type, abi-param-size, abi-param-align,
/// abi-equivalent-type (note), abi-parse.
std::vector<Diagnostic> checkAbi(llvm::StringRef ptxText,
                                 const AbiContract &contract);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_ABICONTRACT_H
