//===- Fragments.cpp - Proven PTX fragments for the prompts -----*- C++ -*-===//
//
// Which fragments (llmptx/PTX/Fragment.h) a kernel's prompt lists, and how.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Fragments.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace llmptx::llm;
using llmptx::ptx::Fragment;

/// Words naming a kind of kernel: a fragment with one applies only to a
/// kernel of that kind (an attention loop is no use to a GEMM that shares
/// its `matmul`).
static bool isKindWord(StringRef word) { return word == "attention"; }

/// Element-type words: they narrow a match but never make one.
static bool isTypeWord(StringRef word) {
  return word == "f16" || word == "bf16" || word == "f32" || word == "i8" ||
         word == "i32";
}

/// Words naming what a fragment is for: a fragment with any of them applies
/// only to a kernel with one of them (an expf sequence is no use to vadd, a
/// warp maximum none to a sum).
static bool isSpecificWord(StringRef word) {
  return StringSwitch<bool>(word)
      .Cases({"exp", "erf", "gelu", "matmul", "mma", "dot", "sum", "max"}, true)
      .Cases({"histogram", "atomic", "tma", "attention"}, true)
      .Default(false);
}

namespace {
/// What the loops of a kernel that carry a value (`iter_args`) multiply.
struct Contraction {
  /// A loop multiplies loads of two different memrefs, both indexed by its
  /// induction variable.
  bool found = false;
  /// ... of two matrices at different places (A[i, k] and B[k, j]: a
  /// matmul's K loop), not the same element of both (A[r, k] * B[r, k], a
  /// row-wise dot) or a matrix and a vector (a mat-vec).
  bool matrices = false;
};
} // namespace

/// The body of the region opened by the first '{' at or after `from`, up to
/// its matching '}'; empty when unbalanced.
static StringRef regionBody(StringRef text, size_t from) {
  size_t open = text.find('{', from);
  if (open == StringRef::npos)
    return {};
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{')
      ++depth;
    else if (text[i] == '}' && --depth == 0)
      return text.slice(open + 1, i);
  }
  return {};
}

/// The rank of the memref type `memref<...>` that starts at `type`
/// (`?x?xf16` is 2, `f32` 0).
static unsigned memrefRank(StringRef type) {
  StringRef shape = type.split(',').first.split('>').first;
  return shape.count('x');
}

/// Finds `scf.for %iv = ... iter_args(...)` loops whose body loads two
/// different memrefs with %iv among the indices and multiplies: the shape
/// of a dot product or a matrix product written as loops.
static Contraction findContraction(StringRef mlir) {
  Contraction result;
  static const Regex loopHead("scf\\.for (%[A-Za-z0-9_]+) = [^\n]*iter_args");
  static const Regex load("memref\\.load (%[A-Za-z0-9_]+)\\[([^]]*)\\] *: "
                          "*memref<([^\n]*)");
  for (size_t at = 0; (at = mlir.find("scf.for ", at)) != StringRef::npos;
       ++at) {
    SmallVector<StringRef, 2> head;
    StringRef line = mlir.substr(at).split('\n').first;
    if (!loopHead.match(line, &head))
      continue;
    StringRef iv = head[1];
    StringRef body = regionBody(mlir, at);
    if (!body.contains("arith.mulf") && !body.contains("arith.muli") &&
        !body.contains("math.fma"))
      continue;
    // Per memref loaded with %iv among its indices: its rank and indices.
    std::map<std::string, std::pair<unsigned, std::string>> loaded;
    for (StringRef rest = body;;) {
      SmallVector<StringRef, 4> m;
      if (!load.match(rest, &m))
        break;
      SmallVector<StringRef> indices;
      SplitString(m[2], indices, ", ");
      if (is_contained(indices, iv))
        loaded[m[1].str()] = {memrefRank(m[3]), join(indices, ",")};
      rest = rest.substr(m[0].end() - rest.begin());
    }
    if (loaded.size() < 2)
      continue;
    result.found = true;
    std::set<std::string> matrixIndices;
    for (const auto &entry : loaded)
      if (entry.second.first >= 2)
        matrixIndices.insert(entry.second.second);
    result.matrices |= matrixIndices.size() >= 2;
  }
  return result;
}

std::set<std::string> llmptx::llm::kernelOps(StringRef mlir) {
  std::set<std::string> ops;
  auto has = [&](StringRef needle) { return mlir.contains(needle); };
  Contraction contraction = findContraction(mlir);
  bool matmul = has("linalg.matmul") || has("nvgpu.mma") ||
                has("nvgpu.warpgroup") || has("_matmul_") ||
                has("linalg.batch_matmul") || contraction.matrices;
  bool dot = !matmul &&
             (contraction.found || has("linalg.matvec") || has("linalg.dot"));
  bool reduction = has("\"reduction\"") || has("gpu.all_reduce") ||
                   has("gpu.subgroup_reduce") || has("gpu.shuffle") ||
                   has("linalg.reduce") || has("vector.reduction") ||
                   has("iter_args");
  // A matmul's K loop is its own business, not a reduction to fragment.
  if (reduction && !matmul)
    ops.insert("reduction");
  // An integer add of data, not of indices (`arith.addi %a, %b : index`).
  static const Regex dataAddi("arith\\.addi [^\n]*: i(8|16|32|64)([^0-9]|$)");
  if (reduction && !matmul && (has("arith.addf") || dataAddi.match(mlir)))
    ops.insert("sum");
  if (has("arith.maximumf") || has("arith.maxnumf") || has("arith.maxsi") ||
      has("arith.maxui"))
    ops.insert("max");
  if (has("math.exp") || has("__nv_expf"))
    ops.insert("exp");
  if (has("math.erf") || has("__nv_erff"))
    ops.insert({"erf", "gelu"});
  if (reduction && ops.count("exp") && ops.count("max"))
    ops.insert("softmax");
  if (has("math.rsqrt") && reduction)
    ops.insert("layernorm");
  if (matmul)
    ops.insert({"matmul", "mma"});
  // Products of two matrices under an exponential and a maximum: the
  // scores and softmax of attention.
  if (matmul && ops.count("exp") && ops.count("max"))
    ops.insert("attention");
  if (dot)
    ops.insert("dot");
  if (has("memref.atomic_rmw") || has("gpu.atomic") || has("atomic_rmw"))
    ops.insert({"atomic", "histogram"});
  if (has("nvgpu.tma") || has("cp.async.bulk"))
    ops.insert({"copy", "async", "tma"});
  if (has("nvgpu.device_async_copy"))
    ops.insert({"copy", "async"});
  if (has("memref.copy"))
    ops.insert("copy");
  if (!reduction && !matmul)
    ops.insert({"elementwise", "vector", "loop"});
  // Element types are those of the data: memref and tensor elements
  // (`?x?xf16>`, `4096xf32,`, `memref<f32>`), not attribute arrays such as
  // `array<i32: 256, 1, 1>` or the i32 of an mbarrier count.
  for (StringRef type : {"bf16", "f16", "f32", "i8", "i32"})
    for (StringRef form : {"x{0}>", "x{0},", "memref<{0}", "tensor<{0}"})
      if (has(formatv(form.data(), type).str()))
        ops.insert(type.str());
  return ops;
}

std::string llmptx::llm::renderFragments(const std::vector<Fragment> &fragments,
                                         StringRef chip,
                                         const std::set<std::string> &kernel,
                                         size_t budgetBytes,
                                         ptx::FragmentLanguage language) {
  bool cuda = language == ptx::FragmentLanguage::CUDA;
  struct Scored {
    const Fragment *fragment;
    /// Made for this very chip (an sm_90a fragment for an sm_90a kernel),
    /// not only one it runs on: listed first.
    bool exactChip;
    unsigned shared;
  };
  std::vector<Scored> applicable;
  for (const Fragment &fragment : fragments) {
    if (fragment.language != language ||
        !llmptx::ptx::fragmentRunsOn(fragment, chip))
      continue;
    unsigned shared = 0;
    // typesFit: the fragment's element types and kinds are the kernel's.
    bool typesFit = true, hasSpecific = false, specificShared = false;
    for (const std::string &op : fragment.ops) {
      if (isTypeWord(op)) {
        typesFit &= kernel.count(op) > 0;
        continue;
      }
      shared += kernel.count(op);
      typesFit &= !isKindWord(op) || kernel.count(op) > 0;
      if (isSpecificWord(op)) {
        hasSpecific = true;
        specificShared |= kernel.count(op) > 0;
      }
    }
    if (shared && typesFit && (!hasSpecific || specificShared))
      applicable.push_back(
          {&fragment, is_contained(fragment.chips, chip.str()), shared});
  }
  llvm::stable_sort(applicable, [](const Scored &a, const Scored &b) {
    if (a.exactChip != b.exactChip)
      return a.exactChip;
    return a.shared > b.shared;
  });
  std::string text;
  for (const Scored &entry : applicable) {
    const Fragment &fragment = *entry.fragment;
    std::string one;
    raw_string_ostream os(one);
    os << "### " << fragment.name << ": " << fragment.does << "\n"
       << "chips: " << join(fragment.chips, ", ") << "; PTX ISA "
       << fragment.ptxIsa << "\n"
       << "needs: " << fragment.needs << "\n"
       << "reads: " << fragment.reads << "\n"
       << "writes: " << fragment.writes << "\n"
       << "defines: " << fragment.defines << "\n"
       << "adapt: " << fragment.adapt << "\n"
       << "proven in: " << fragment.proof << "\n"
       << (cuda ? "```cuda\n" : "```ptx\n") << fragment.text << "```\n\n";
    if (text.size() + one.size() > budgetBytes)
      continue;
    text += one;
  }
  if (text.empty())
    return text;
  if (cuda)
    return "These lines are cut from whole CUDA kernels that ran, verified "
           "against the reference, on a Hopper GPU (the kernels named); "
           "pieces of one kernel fit together as they are named in their "
           "needs. Adapt them (tile sizes, types, the wgmma N, the launch "
           "block's tensor maps and shared memory) rather than paste them, "
           "use one only where its needs hold for this kernel, and keep "
           "every rule above.\n\n" +
           StringRef(text).rtrim().str();
  return "These lines ran, verified against the reference, on an H200 inside "
         "the kernels named. Adapt them (rename registers and labels, change "
         "types, operators and tile sizes) rather than paste them, use one "
         "only where its needs hold for this kernel, and keep every rule "
         "above.\n\n" +
         StringRef(text).rtrim().str();
}
