//===- Fragments.cpp - Proven PTX fragments for the prompts -----*- C++ -*-===//
//
// The same format python/llmptx/fragments.py checks; a fragment the checker
// refuses never reaches the repository, so parsing here only needs to be
// strict about what the prompt shows.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Fragments.h"

#include "llmptx/Support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace llvm;
using namespace llmptx::llm;

#ifndef LLMPTX_FRAGMENTS_DIR
#define LLMPTX_FRAGMENTS_DIR ""
#endif

/// Element-type words: they narrow a match but never make one.
static bool isTypeWord(StringRef word) {
  return word == "f16" || word == "bf16" || word == "f32" || word == "i8" ||
         word == "i32";
}

/// Words naming what a fragment is for: a fragment with any of them applies
/// only to a kernel with one of them (an expf sequence is no use to vadd).
static bool isSpecificWord(StringRef word) {
  return StringSwitch<bool>(word)
      .Cases({"exp", "erf", "gelu", "matmul", "mma", "dot"}, true)
      .Cases({"histogram", "atomic", "tma"}, true)
      .Default(false);
}

Expected<Fragment> llmptx::llm::parseFragment(StringRef text, StringRef path) {
  Fragment fragment;
  SmallVector<StringRef, 0> lines;
  text.split(lines, '\n');
  std::string body;
  for (auto [index, line] : enumerate(lines)) {
    if (!line.starts_with("//!")) {
      if (!body.empty() || !line.trim().empty())
        body += line.rtrim().str() + "\n";
      continue;
    }
    auto [key, value] = line.drop_front(3).split(':');
    key = key.trim();
    value = value.trim();
    std::string *slot = StringSwitch<std::string *>(key)
                            .Case("name", &fragment.name)
                            .Case("does", &fragment.does)
                            .Case("ptx", &fragment.ptxIsa)
                            .Case("needs", &fragment.needs)
                            .Case("reads", &fragment.reads)
                            .Case("writes", &fragment.writes)
                            .Case("defines", &fragment.defines)
                            .Case("adapt", &fragment.adapt)
                            .Case("proof", &fragment.proof)
                            .Default(nullptr);
    if (slot) {
      *slot = value.str();
    } else if (key == "chips" || key == "ops") {
      // Words separated by commas and/or blanks.
      SmallVector<StringRef> words;
      SplitString(value, words, ", \t");
      for (StringRef word : words) {
        if (key == "chips")
          fragment.chips.push_back(word.str());
        else
          fragment.ops.insert(word.str());
      }
    } else {
      return createStringError(formatv("{0}:{1}: unknown fragment header '{2}'",
                                       path, index + 1, key)
                                   .str());
    }
  }
  fragment.text = StringRef(body).rtrim().str() + "\n";
  if (fragment.name.empty() || fragment.chips.empty() || fragment.ops.empty() ||
      StringRef(fragment.text).trim().empty())
    return createStringError(path + ": a fragment needs name, chips, ops and "
                                    "PTX lines");
  return fragment;
}

Expected<std::vector<Fragment>>
llmptx::llm::loadFragments(StringRef directory) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (sys::fs::directory_iterator it(directory, ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::path::extension(it->path()) == ".ptx")
      paths.push_back(it->path());
  if (ec)
    return createStringError(directory + ": " + ec.message());
  llvm::sort(paths);
  std::vector<Fragment> fragments;
  for (const std::string &path : paths) {
    std::string text;
    if (auto problem = untrusted::readRegularFile(path, text))
      return createStringError(path + ": " + *problem);
    Expected<Fragment> fragment = parseFragment(text, path);
    if (!fragment)
      return fragment.takeError();
    fragments.push_back(std::move(*fragment));
  }
  return fragments;
}

std::string llmptx::llm::defaultFragmentsDirectory() {
  if (const char *directory = std::getenv("LLMPTX_FRAGMENTS_DIR"))
    return directory;
  return LLMPTX_FRAGMENTS_DIR;
}

std::set<std::string> llmptx::llm::kernelOps(StringRef mlir) {
  std::set<std::string> ops;
  auto has = [&](StringRef needle) { return mlir.contains(needle); };
  bool reduction = has("\"reduction\"") || has("gpu.all_reduce") ||
                   has("gpu.subgroup_reduce") || has("gpu.shuffle") ||
                   has("linalg.reduce") || has("vector.reduction") ||
                   has("iter_args");
  bool matmul = has("linalg.matmul") || has("nvgpu.mma") ||
                has("nvgpu.warpgroup") || has("_matmul_") ||
                has("linalg.batch_matmul");
  // A matmul's K loop is its own business, not a reduction to fragment.
  if (reduction && !matmul)
    ops.insert("reduction");
  if (reduction && !matmul && (has("arith.addf") || has("arith.addi")))
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
  if (has("memref.atomic_rmw") || has("gpu.atomic") || has("atomic_rmw"))
    ops.insert({"atomic", "histogram"});
  if (has("nvgpu.tma") || has("nvgpu.device_async_copy") || has("memref.copy"))
    ops.insert({"copy", "async", "tma"});
  if (has("arith.extsi") && has("arith.muli") && reduction)
    ops.insert("dot");
  if (!reduction && !matmul)
    ops.insert({"elementwise", "vector", "loop"});
  for (StringRef type : {"bf16", "f16", "f32", "i8", "i32"})
    if (has((type + ">").str()) || has((": " + type).str()) ||
        has(("<" + type).str()))
      ops.insert(type.str());
  // "f16" also matches inside "bf16": keep it only when it stands alone.
  if (ops.count("bf16") && !has("xf16") && !has(": f16") && !has("<f16"))
    ops.erase("f16");
  return ops;
}

std::string llmptx::llm::renderFragments(const std::vector<Fragment> &fragments,
                                         StringRef chip,
                                         const std::set<std::string> &kernel,
                                         size_t budgetBytes) {
  struct Scored {
    const Fragment *fragment;
    unsigned shared;
  };
  // An sm_90a kernel may use what runs on sm_90.
  std::string base = chip.ends_with("a") ? chip.drop_back().str() : "";
  std::vector<Scored> applicable;
  for (const Fragment &fragment : fragments) {
    if (!is_contained(fragment.chips, chip.str()) &&
        (base.empty() || !is_contained(fragment.chips, base)))
      continue;
    unsigned shared = 0;
    bool typesFit = true, hasSpecific = false, specificShared = false;
    for (const std::string &op : fragment.ops) {
      if (isTypeWord(op)) {
        typesFit &= kernel.count(op) > 0;
        continue;
      }
      shared += kernel.count(op);
      if (isSpecificWord(op)) {
        hasSpecific = true;
        specificShared |= kernel.count(op) > 0;
      }
    }
    if (shared && typesFit && (!hasSpecific || specificShared))
      applicable.push_back({&fragment, shared});
  }
  llvm::stable_sort(applicable, [](const Scored &a, const Scored &b) {
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
       << "```ptx\n"
       << fragment.text << "```\n\n";
    if (text.size() + one.size() > budgetBytes)
      continue;
    text += one;
  }
  if (text.empty())
    return text;
  return "These lines ran, verified against the reference, on an H200 inside "
         "the kernels named. Adapt them (rename registers and labels, change "
         "types, operators and tile sizes) rather than paste them, use one "
         "only where its needs hold for this kernel, and keep every rule "
         "above.\n\n" +
         StringRef(text).rtrim().str();
}
