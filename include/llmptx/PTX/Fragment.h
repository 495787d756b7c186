//===- Fragment.h - Proven PTX fragments and their uses ---------*- C++ -*-===//
//
// The library of fragments/ (format: fragments/FORMAT.md; what "proven"
// means: docs/fragments.md): parsing a fragment file (PTX lines, `.ptx`, or
// CUDA C++ lines, `.cu`), finding where a PTX module runs a PTX fragment's
// instructions or a CUDA source holds a CUDA fragment's lines, and checking
// the facts a fragment requires against the facts a kernel states. The
// prompts' choice of fragments is llmptx/LLM/Fragments.h.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_FRAGMENT_H
#define LLMPTX_PTX_FRAGMENT_H

#include "llmptx/PTX/Diagnostic.h"
#include "llmptx/PTX/Module.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llmptx::ptx {

/// A fact of a fragment's `requires` header that a tool can check.
struct FragmentRequirement {
  enum Kind {
    /// `align N`: every buffer argument stated at least N-byte aligned.
    Align,
    /// `block N`: exactly N threads per block.
    Block,
    /// `warps`: whole warps (threads per block a multiple of 32).
    Warps,
  };
  Kind kind;
  uint64_t value = 0;
  /// As written in the header.
  std::string text;
};

/// What a fragment's lines are written in: PTX (`fragments/<name>.ptx`) or
/// CUDA C++ (`fragments/<name>.cu`, header `language: cuda`), the two
/// languages a candidate may be written in.
enum class FragmentLanguage { PTX, CUDA };

struct Fragment {
  std::string name, does, ptxIsa, needs, reads, writes, defines, adapt, proof;
  FragmentLanguage language = FragmentLanguage::PTX;
  std::vector<std::string> chips;
  std::set<std::string> ops;
  std::vector<FragmentRequirement> requirements;
  /// The PTX or CUDA lines.
  std::string text;
};

/// Whether `fragment` may be used on `chip`: one of its chips, or the
/// architecture-specific chip (sm_90a) of one of them (sm_90).
bool fragmentRunsOn(const Fragment &fragment, llvm::StringRef chip);

/// Parses one fragment file; the error names the file and the line. A
/// `.cu` file must say `language: cuda`, any other may say only `ptx`.
llvm::Expected<Fragment> parseFragment(llvm::StringRef text,
                                       llvm::StringRef path);

/// Every `*.ptx` and `*.cu` of `directory`, by file name.
llvm::Expected<std::vector<Fragment>> loadFragments(llvm::StringRef directory);

/// $LLMPTX_FRAGMENTS_DIR, else the fragments/ of the source tree this was
/// built from.
std::string defaultFragmentsDirectory();

/// Where a function runs a fragment: the fragment's instructions, same
/// opcodes (modifiers and types included) in the same order with nothing
/// between them, registers and labels free (a fragment renamed apart is
/// still itself).
struct FragmentUse {
  const Fragment *fragment = nullptr;
  const Function *function = nullptr;
  /// Indices into function->instructions, inclusive.
  unsigned first = 0, last = 0;
};

/// The uses of the PTX `fragments` in `module`, in the module's order (CUDA
/// fragments are skipped). Fragments of fewer than kMinFragmentInstructions
/// instructions are never reported: a sequence that short is found in
/// unrelated code.
std::vector<FragmentUse>
findFragmentUses(const Module &module, const std::vector<Fragment> &fragments);
inline constexpr unsigned kMinFragmentInstructions = 4;

/// Where a CUDA source holds a CUDA fragment: the fragment's lines, in
/// order and contiguous, each compared without its leading and trailing
/// blanks (the rule `llmptx-fragments check` holds a fragment to in its
/// proof). A fragment adapted beyond that (renamed, other tile sizes) is not
/// reported: CUDA has no opcode sequence to match renamed code by.
struct CudaFragmentUse {
  const Fragment *fragment = nullptr;
  /// 1-based lines of the source, inclusive.
  unsigned firstLine = 0, lastLine = 0;
};

/// The uses of the CUDA `fragments` in `source`, in the source's order (PTX
/// fragments are skipped).
std::vector<CudaFragmentUse>
findCudaFragmentUses(llvm::StringRef source,
                     const std::vector<Fragment> &fragments);

/// What a kernel states that fragment requirements speak of (from its
/// verification bundle); unset: not stated.
struct KernelLaunchFacts {
  std::optional<uint64_t> blockThreads;
  /// The smallest stated alignment over the buffer arguments.
  std::optional<uint64_t> bufferAlignment;
};

/// Why `requirement` does not hold for `facts` ("the kernel states 8-byte
/// alignment"), or nothing when it holds.
std::optional<std::string>
unmetRequirement(const FragmentRequirement &requirement,
                 const KernelLaunchFacts &facts);

/// A note at each use of a fragment in `module` (code "fragment-use"), and
/// an error at the use where the module's chip is not among the fragment's
/// ("fragment-chip"; sm_90a takes sm_90 fragments), its PTX ISA is older
/// than the fragment's ("fragment-ptx-isa") or, with `facts`, a requirement
/// does not hold ("fragment-requirement"). Without `facts` the requirements
/// are listed in the use's note as not checked.
std::vector<Diagnostic>
checkFragmentUses(const Module &module, const std::vector<Fragment> &fragments,
                  const KernelLaunchFacts *facts);

/// The same for a CUDA source and the CUDA fragments: a note at each use,
/// an error where `chip` (empty: not known) is not among the fragment's, or
/// with `facts` where a requirement does not hold. A CUDA source states no
/// PTX ISA (NVRTC chooses it), so none is checked.
std::vector<Diagnostic>
checkCudaFragmentUses(llvm::StringRef source,
                      const std::vector<Fragment> &fragments,
                      llvm::StringRef chip, const KernelLaunchFacts *facts);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_FRAGMENT_H
