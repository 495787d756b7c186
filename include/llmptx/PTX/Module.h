//===- Module.h - Structured form of a PTX module ---------------*- C++ -*-===//
//
// The parser's output: directives, variables, functions with their parameter
// lists, register declarations, labels and instructions, each with the source
// location it came from. Names are StringRefs into the parsed text, so a
// Module is only valid while that text is alive (like llvm::SourceMgr
// buffers); this keeps parsing of large kernels allocation-light.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_MODULE_H
#define LLMPTX_PTX_MODULE_H

#include "llmptx/PTX/Diagnostic.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace llmptx::ptx {

/// One operand of an instruction. Composite operands (addresses, vectors,
/// call argument lists, expressions) keep their parts in `elements`.
struct Operand {
  enum class Kind {
    Register,       ///< %r1, %tid.x, %p1 (any %-name)
    Symbol,         ///< a plain identifier: parameter, variable, label, func
    IntImmediate,   ///< 42, -1, 0xff, 1U
    FloatImmediate, ///< 0f3F800000, 0d..., 1.5
    Address,        ///< [base], [base+off]; elements[0] is the base
    Vector,         ///< {%f1, %f2}
    ParenList,      ///< (a, b) in call instructions
    Sink,           ///< _
    Expression,     ///< anything else (p|q, a+b in initializers, ...)
  };
  Kind kind = Kind::Expression;
  /// The operand's full text (for Register/Symbol the name).
  llvm::StringRef text;
  SourceLocation loc;
  /// `!%p` as a source operand.
  bool negated = false;
  /// Value of an IntImmediate, or the constant offset of an Address.
  int64_t intValue = 0;
  /// True when a FloatImmediate is spelled in decimal (1.5) rather than as
  /// hex bits (0f3F800000): only the hex form is accepted for .b types.
  bool decimalFloat = false;
  std::vector<Operand> elements;
};

/// A `.reg` declaration of a single register or of a range `%r<N>`.
struct RegisterDecl {
  /// Type directive as written: ".b32", ".pred", ".f32", ...
  llvm::StringRef type;
  /// For a range: the prefix ("%r"); for a scalar: the full name ("%r10").
  llvm::StringRef name;
  /// Number of registers of a range (0..count-1); 1 for a scalar.
  unsigned count = 1;
  bool isRange = false;
  /// Vector width of `.reg .v4 .b32 %v;` (1 when not a vector).
  unsigned vectorWidth = 1;
  SourceLocation loc;
  /// The nested-block scope it lives in (0 = function body).
  unsigned scope = 0;
};

/// A variable in a state space: `.shared .align 4 .b8 smem[128];`,
/// `.global .u32 counter = 0;`, `.local`, `.const`, `.param` (call args).
struct VariableDecl {
  llvm::StringRef space; ///< ".shared", ".global", ".const", ".local", ...
  llvm::StringRef type;
  llvm::StringRef name;
  llvm::StringRef linkage; ///< ".visible", ".extern", ".weak", "" ...
  unsigned align = 0;
  /// Array dimensions; 0 stands for an unsized dimension (`[]`).
  llvm::SmallVector<uint64_t, 1> dims;
  bool isArray = false;
  bool hasInitializer = false;
  SourceLocation loc;
  unsigned scope = 0;
  /// At module scope, the declaration as written, from its linkage to its
  /// ';' (empty inside functions).
  llvm::StringRef text;
};

/// One `.param` of a `.entry`/`.func` signature.
struct Param {
  llvm::StringRef space = ".param"; ///< ".param" or ".reg" (old .func style)
  llvm::StringRef type;             ///< ".u64", ".b8", ...
  llvm::StringRef name;
  unsigned align = 0; ///< .align N (0 when absent)
  bool isPtr = false; ///< .ptr attribute
  llvm::StringRef ptrSpace;
  unsigned ptrAlign = 0; ///< `.ptr .align N`
  bool isArray = false;
  uint64_t arraySize = 0;
  SourceLocation loc;
  /// Byte size of the parameter (element size times array size).
  unsigned sizeBytes() const;
};

struct Instruction {
  /// Guard predicate of `@%p1` / `@!%p1` (empty when unguarded).
  llvm::StringRef guard;
  bool guardNegated = false;
  SourceLocation guardLoc;
  /// Full opcode as written: "ld.global.v4.b32".
  llvm::StringRef opcode;
  /// The part before the first dot: "ld".
  llvm::StringRef baseOpcode;
  /// The dotted modifiers after the base, each with its dot: ".global".
  /// std::vector (not SmallVector) so that growing a function's instruction
  /// list moves instructions instead of copying them.
  std::vector<llvm::StringRef> modifiers;
  std::vector<Operand> operands;
  SourceLocation loc;
  unsigned scope = 0;
};

struct Label {
  llvm::StringRef name;
  SourceLocation loc;
  /// Index of the instruction that follows the label.
  unsigned instructionIndex = 0;
};

/// A performance-tuning directive of a function: .maxntid 128, 1, 1.
struct FunctionDirective {
  llvm::StringRef name;
  llvm::SmallVector<uint64_t, 3> values;
  SourceLocation loc;
};

struct Function {
  bool isEntry = false;
  llvm::StringRef linkage; ///< ".visible", ".extern", ".weak", ...
  llvm::StringRef name;
  SourceLocation loc;
  std::vector<Param> returnParams;
  std::vector<Param> params;
  std::vector<FunctionDirective> directives;
  bool hasBody = false;
  SourceLocation bodyBegin, bodyEnd;
  std::vector<RegisterDecl> registers;
  std::vector<VariableDecl> variables;
  std::vector<Instruction> instructions;
  std::vector<Label> labels;
  /// Parent of each nested `{ }` scope; scopeParents[0] is the body (its own
  /// parent), scope i > 0 has parent scopeParents[i].
  std::vector<unsigned> scopeParents{0};
  /// Line of the opening brace of each scope (for unbalanced-brace notes).
  std::vector<SourceLocation> scopeBegins{SourceLocation{}};
  /// The definition or declaration as written, from its linkage to its
  /// closing '}' or ';'.
  llvm::StringRef text;

  const Param *findParam(llvm::StringRef paramName) const;
  /// True when scope `inner` is `outer` or nested inside it.
  bool scopeEncloses(unsigned outer, unsigned inner) const;
};

struct Module {
  unsigned versionMajor = 0, versionMinor = 0;
  SourceLocation versionLoc;
  /// Targets as written after `.target` ("sm_90a", "texmode_independent").
  llvm::SmallVector<llvm::StringRef, 2> targets;
  SourceLocation targetLoc;
  unsigned addressSize = 0; ///< 0 when the directive is absent
  SourceLocation addressSizeLoc;
  std::vector<VariableDecl> globals;
  std::vector<Function> functions;

  bool hasVersion() const { return versionMajor != 0 || versionMinor != 0; }
  /// PTX ISA version as major*10+minor (8.0 -> 80), 0 when absent.
  unsigned version() const { return versionMajor * 10 + versionMinor; }
  /// The sm_XX target (first target that starts with "sm_"), or "".
  llvm::StringRef chip() const;
  const Function *findFunction(llvm::StringRef name) const;
  const VariableDecl *findGlobal(llvm::StringRef name) const;
  unsigned instructionCount() const;
};

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_MODULE_H
