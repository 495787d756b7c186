//===- PtxIsa.h - Tables of PTX ISA facts -----------------------*- C++ -*-===//
//
// The instruction and target knowledge the lint works from, kept in tables
// so that it grows by adding rows: which opcodes and modifiers exist, which
// chip and PTX ISA version each needs, how an opcode's operands are typed,
// which PTX version each chip needs, and the special registers.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_PTXISA_H
#define LLMPTX_PTX_PTXISA_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace llmptx::ptx {

/// A parsed chip name: sm_90a -> {90, archSpecific=true}.
struct Chip {
  unsigned sm = 0;
  bool archSpecific = false;   ///< "a" suffix
  bool familySpecific = false; ///< "f" suffix
};
std::optional<Chip> parseChip(llvm::StringRef name);

/// Minimum PTX ISA version (major*10+minor) that knows `chip`, or nullopt for
/// an unknown chip.
std::optional<unsigned> minPtxVersionForChip(const Chip &chip);

/// The CUDA toolkit release (major*10+minor) that introduced PTX ISA version
/// `version`, or nullopt when the version is unknown.
std::optional<unsigned> cudaReleaseForPtxVersion(unsigned version);

/// Newest PTX ISA version this table knows (matches CUDA 13.0's ptxas).
unsigned newestKnownPtxVersion();

/// Oldest chip that CUDA 13's ptxas still compiles for.
constexpr unsigned OldestChipOfCuda13 = 75;

/// Scalar type facts for a type spelled ".u32", ".f16x2", ".pred", ...
enum class TypeKind { Bits, Signed, Unsigned, Float, Predicate, Other };
struct ScalarType {
  TypeKind kind = TypeKind::Other;
  unsigned bits = 0;
};
std::optional<ScalarType> parseScalarType(llvm::StringRef type);
inline bool isTypeName(llvm::StringRef type) {
  return parseScalarType(type).has_value();
}

/// How operands of an opcode relate to its type modifiers.
enum class OperandShape {
  Unchecked,    ///< operand types are not checked
  AllSame,      ///< d, a, b, c... all of the instruction type
  Shift,        ///< d, a of type; b is .u32
  Wide,         ///< mul/mad: .wide doubles d (and c of mad)
  SetPredicate, ///< setp: d (and |q) .pred; a, b type; optional c .pred
  Select,       ///< selp: d, a, b type; c .pred
  Load,         ///< ld/ldu: d (maybe vector) relaxed; a address
  Store,        ///< st: a address; b (maybe vector) relaxed
  Convert,      ///< cvt: d of first type, a of second, both relaxed
  Move,         ///< mov: d, a same type (special registers and symbols allowed)
  CountBits,    ///< popc/clz: d .u32; a type
  BitField,     ///< bfe: d, a type; b, c .u32
  BitInsert,    ///< bfi: d, a, b type; c, d .u32
  Atomic,       ///< atom: d type; a address; b, c type
  Reduce,       ///< red: a address; b type
};

struct OpcodeInfo {
  llvm::StringRef name; ///< base opcode, "add"
  OperandShape shape = OperandShape::Unchecked;
};
/// nullptr when the base opcode is not a PTX instruction.
const OpcodeInfo *lookupOpcode(llvm::StringRef baseOpcode);

/// The closest known base opcode (for "did you mean"), or "".
llvm::StringRef suggestOpcode(llvm::StringRef baseOpcode);

/// True for modifiers PTX instructions use (".global", ".rn", ".v4",
/// ".shared::cta", ".m16n8k16", ...).
bool isKnownModifier(llvm::StringRef modifier);
/// True for the state-space modifiers (".global", ".shared::cta", ...).
bool isStateSpace(llvm::StringRef modifier);
/// The closest known modifier within a small edit distance, or "".
llvm::StringRef suggestModifier(llvm::StringRef modifier);

/// A requirement of an opcode prefix ("cp.async.bulk") or a modifier.
struct FeatureRequirement {
  llvm::StringRef pattern; ///< dotted opcode prefix or ".modifier"
  unsigned minSm = 0;
  unsigned minPtx = 0;            ///< major*10+minor, 0 = none
  bool needsArchSpecific = false; ///< needs the sm_XXa target
};
/// The strictest requirement that applies to an instruction, or nullptr.
const FeatureRequirement *findRequirement(llvm::StringRef opcode,
                                          const Chip &chip, unsigned ptx,
                                          std::string &why);

/// Special registers (%tid.x, %clock64, ...): bit width, or nullopt when the
/// name is not a special register. `minSm` is set to the chip that has it.
std::optional<unsigned> specialRegisterBits(llvm::StringRef name,
                                            unsigned *minSm = nullptr);

/// True for the %-names whose value changes between runs (%clock,
/// %clock64, %globaltimer, ...).
bool isTimerRegister(llvm::StringRef name);

/// Splits "%r12" into ("%r", "12"). The digits are empty when there is no
/// numeric suffix or it has a leading zero (ranges never produce "%r01").
std::pair<llvm::StringRef, llvm::StringRef>
splitRegisterIndex(llvm::StringRef name);

/// Known directive names at module or function level (".reg", ".loc", ...).
bool isKnownDirective(llvm::StringRef directive);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_PTXISA_H
