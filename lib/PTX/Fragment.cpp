//===- Fragment.cpp - Proven PTX fragments and their uses -----------------===//
//
// The same format python/llmptx/fragments.py checks; a fragment the checker
// refuses never reaches the repository, so parsing here only needs to be
// strict about what the prompts show and the use check reads.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/Fragment.h"

#include "llmptx/PTX/Parser.h"
#include "llmptx/Support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>

using namespace llvm;
using namespace llmptx::ptx;

#ifndef LLMPTX_FRAGMENTS_DIR
#define LLMPTX_FRAGMENTS_DIR ""
#endif

/// `align 16`, `block 256`, `warps`, comma separated; `nothing` for none.
static Expected<std::vector<FragmentRequirement>>
parseRequirements(StringRef value, StringRef where) {
  std::vector<FragmentRequirement> requirements;
  if (value == "nothing")
    return requirements;
  SmallVector<StringRef> items;
  value.split(items, ',', -1, false);
  for (StringRef item : items) {
    item = item.trim();
    auto [word, number] = item.split(' ');
    number = number.trim();
    FragmentRequirement requirement;
    requirement.text = item.str();
    if (word == "warps" && number.empty()) {
      requirement.kind = FragmentRequirement::Warps;
    } else if ((word == "align" || word == "block") &&
               !number.getAsInteger(10, requirement.value) &&
               requirement.value > 0) {
      requirement.kind = word == "align" ? FragmentRequirement::Align
                                         : FragmentRequirement::Block;
    } else {
      return createStringError(
          formatv("{0}: unknown requirement '{1}' (align N, block N, warps "
                  "or nothing)",
                  where, item)
              .str());
    }
    requirements.push_back(std::move(requirement));
  }
  return requirements;
}

bool llmptx::ptx::fragmentRunsOn(const Fragment &fragment, StringRef chip) {
  if (is_contained(fragment.chips, chip.str()))
    return true;
  return chip.ends_with("a") &&
         is_contained(fragment.chips, chip.drop_back().str());
}

/// "8.0" as major*10+minor (80); nothing unless it is a PTX ISA version
/// (one or two digits, a dot, one digit), so no header wraps or reads as 0.
static std::optional<unsigned> isaNumber(StringRef text) {
  auto [major, minor] = text.split('.');
  unsigned a = 0, b = 0;
  if (major.empty() || major.size() > 2 || minor.size() != 1 ||
      major.getAsInteger(10, a) || minor.getAsInteger(10, b))
    return std::nullopt;
  return a * 10 + b;
}

Expected<Fragment> llmptx::ptx::parseFragment(StringRef text, StringRef path) {
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
    std::string where = formatv("{0}:{1}", path, index + 1).str();
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
    if (key == "ptx" && !isaNumber(value))
      return createStringError(
          formatv("{0}: ptx: expected a PTX ISA version such as 8.0, got "
                  "'{1}'",
                  where, value)
              .str());
    if (slot) {
      *slot = value.str();
    } else if (key == "language") {
      if (value != "ptx" && value != "cuda")
        return createStringError(
            formatv("{0}: language: expected ptx or cuda, got '{1}'", where,
                    value)
                .str());
      fragment.language =
          value == "cuda" ? FragmentLanguage::CUDA : FragmentLanguage::PTX;
    } else if (key == "requires") {
      Expected<std::vector<FragmentRequirement>> requirements =
          parseRequirements(value, where);
      if (!requirements)
        return requirements.takeError();
      fragment.requirements = std::move(*requirements);
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
      return createStringError(
          formatv("{0}: unknown fragment header '{1}'", where, key).str());
    }
  }
  fragment.text = StringRef(body).rtrim().str() + "\n";
  bool cudaFile = sys::path::extension(path) == ".cu";
  if (cudaFile != (fragment.language == FragmentLanguage::CUDA))
    return createStringError(
        path + (cudaFile ? ": a .cu fragment needs 'language: cuda'"
                         : ": a CUDA fragment (language: cuda) is a .cu file"));
  if (fragment.name.empty() || fragment.chips.empty() || fragment.ops.empty() ||
      StringRef(fragment.text).trim().empty())
    return createStringError(path + ": a fragment needs name, chips, ops and " +
                             (cudaFile ? "CUDA lines" : "PTX lines"));
  return fragment;
}

Expected<std::vector<Fragment>>
llmptx::ptx::loadFragments(StringRef directory) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (sys::fs::directory_iterator it(directory, ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::path::extension(it->path()) == ".ptx" ||
        sys::path::extension(it->path()) == ".cu")
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

std::string llmptx::ptx::defaultFragmentsDirectory() {
  if (const char *directory = std::getenv("LLMPTX_FRAGMENTS_DIR"))
    return directory;
  return LLMPTX_FRAGMENTS_DIR;
}

/// The opcodes of a fragment's instructions, parsed as the body of a
/// function (fragments are lines of a body: no header, no declarations).
static std::vector<std::string> fragmentOpcodes(const Fragment &fragment) {
  std::string wrapped = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".entry fragment()\n{\n" +
                        fragment.text + "}\n";
  ParseResult parsed = parsePtx(wrapped);
  std::vector<std::string> opcodes;
  if (parsed.module.functions.empty())
    return opcodes;
  for (const Instruction &instruction :
       parsed.module.functions.front().instructions)
    opcodes.push_back(instruction.opcode.str());
  return opcodes;
}

std::vector<FragmentUse>
llmptx::ptx::findFragmentUses(const Module &module,
                              const std::vector<Fragment> &fragments) {
  std::vector<FragmentUse> uses;
  std::vector<std::vector<std::string>> sequences;
  // A CUDA fragment has no opcodes: its sequence stays empty, never found.
  for (const Fragment &fragment : fragments)
    sequences.push_back(fragment.language == FragmentLanguage::PTX
                            ? fragmentOpcodes(fragment)
                            : std::vector<std::string>());
  for (const Function &function : module.functions) {
    const std::vector<Instruction> &code = function.instructions;
    size_t before = uses.size();
    for (auto [fragment, sequence] : zip(fragments, sequences)) {
      size_t length = sequence.size();
      if (length < kMinFragmentInstructions || length > code.size())
        continue;
      for (size_t start = 0; start + length <= code.size(); ++start) {
        bool same = true;
        for (size_t i = 0; i < length && same; ++i)
          same = code[start + i].opcode == sequence[i];
        if (!same)
          continue;
        uses.push_back({&fragment, &function, unsigned(start),
                        unsigned(start + length - 1)});
        start += length - 1;
      }
    }
    // This function's uses in the order of its code.
    std::stable_sort(uses.begin() + before, uses.end(),
                     [](const FragmentUse &a, const FragmentUse &b) {
                       return a.first < b.first;
                     });
  }
  return uses;
}

std::vector<CudaFragmentUse>
llmptx::ptx::findCudaFragmentUses(StringRef source,
                                  const std::vector<Fragment> &fragments) {
  SmallVector<StringRef, 0> code;
  source.split(code, '\n');
  for (StringRef &line : code)
    line = line.trim();
  std::vector<CudaFragmentUse> uses;
  for (const Fragment &fragment : fragments) {
    if (fragment.language != FragmentLanguage::CUDA)
      continue;
    SmallVector<StringRef, 0> lines;
    StringRef(fragment.text).rtrim().split(lines, '\n');
    for (StringRef &line : lines)
      line = line.trim();
    if (lines.empty() || lines.size() > code.size())
      continue;
    for (size_t start = 0; start + lines.size() <= code.size(); ++start) {
      if (!std::equal(lines.begin(), lines.end(), code.begin() + start))
        continue;
      uses.push_back(
          {&fragment, unsigned(start + 1), unsigned(start + lines.size())});
      start += lines.size() - 1;
    }
  }
  llvm::stable_sort(uses,
                    [](const CudaFragmentUse &a, const CudaFragmentUse &b) {
                      return a.firstLine < b.firstLine;
                    });
  return uses;
}

std::optional<std::string>
llmptx::ptx::unmetRequirement(const FragmentRequirement &requirement,
                              const KernelLaunchFacts &facts) {
  switch (requirement.kind) {
  case FragmentRequirement::Align:
    if (!facts.bufferAlignment)
      return std::string("the kernel states no buffer alignment");
    if (*facts.bufferAlignment < requirement.value)
      return formatv("the kernel states {0}-byte alignment",
                     *facts.bufferAlignment)
          .str();
    return std::nullopt;
  case FragmentRequirement::Block:
    if (!facts.blockThreads)
      return std::string("the kernel states no block size");
    if (*facts.blockThreads != requirement.value)
      return formatv("the kernel runs {0} threads per block",
                     *facts.blockThreads)
          .str();
    return std::nullopt;
  case FragmentRequirement::Warps:
    if (!facts.blockThreads)
      return std::string("the kernel states no block size");
    if (*facts.blockThreads % 32 != 0)
      return formatv("the kernel runs {0} threads per block, not whole warps",
                     *facts.blockThreads)
          .str();
    return std::nullopt;
  }
  return std::nullopt;
}

/// "align 16, block 256", as the header wrote them.
static std::string requirementList(const Fragment &fragment) {
  std::vector<std::string> requirements;
  for (const FragmentRequirement &requirement : fragment.requirements)
    requirements.push_back(requirement.text);
  return join(requirements, ", ");
}

/// An error at `at` for each requirement of `fragment` that `facts` do not
/// meet.
static void addUnmetRequirements(const Fragment &fragment,
                                 const KernelLaunchFacts &facts,
                                 SourceLocation at,
                                 std::vector<Diagnostic> &diagnostics) {
  for (const FragmentRequirement &requirement : fragment.requirements)
    if (std::optional<std::string> why = unmetRequirement(requirement, facts))
      diagnostics.push_back(makeDiagnostic(
          Severity::Error, at, "fragment-requirement",
          formatv("fragment '{0}' requires '{1}': {2}", fragment.name,
                  requirement.text, *why)
              .str(),
          "keep the fragment only where its needs hold: " + fragment.needs));
}

/// The first diagnostics of one use of `fragment` found at `at` (`where`
/// names its lines): a note that it is the fragment (saying when its
/// requirements go unchecked for want of `facts`) and an error for a chip
/// it is not proven on (`targetWord`: what targets `chip`).
static void noteUse(const Fragment &fragment, SourceLocation at,
                    const std::string &where, StringRef chip,
                    StringRef targetWord, const KernelLaunchFacts *facts,
                    std::vector<Diagnostic> &diagnostics) {
  std::string message =
      formatv("{0} fragment '{1}' (proven in {2})", where, fragment.name,
              StringRef(fragment.proof).split(' ').first)
          .str();
  if (!facts && !fragment.requirements.empty())
    message += "; requires " + requirementList(fragment) +
               " (not checked: no kernel facts given)";
  diagnostics.push_back(
      makeDiagnostic(Severity::Note, at, "fragment-use", message));
  if (!chip.empty() && !fragmentRunsOn(fragment, chip))
    diagnostics.push_back(makeDiagnostic(
        Severity::Error, at, "fragment-chip",
        formatv("fragment '{0}' is proven for {1}, the {2} targets {3}",
                fragment.name, join(fragment.chips, ", "), targetWord, chip)
            .str()));
}

std::vector<Diagnostic>
llmptx::ptx::checkFragmentUses(const Module &module,
                               const std::vector<Fragment> &fragments,
                               const KernelLaunchFacts *facts) {
  std::vector<Diagnostic> diagnostics;
  StringRef chip = module.chip();
  for (const FragmentUse &use : findFragmentUses(module, fragments)) {
    const Fragment &fragment = *use.fragment;
    const std::vector<Instruction> &code = use.function->instructions;
    SourceLocation at = code[use.first].loc;
    noteUse(fragment, at,
            formatv("lines {0}-{1} of '{2}' are", at.line,
                    code[use.last].loc.line, use.function->name)
                .str(),
            chip, "module", facts, diagnostics);
    // parseFragment refuses a header that is not a version; a fragment
    // without one needs nothing.
    unsigned needed = isaNumber(fragment.ptxIsa).value_or(0);
    if (needed && module.hasVersion() && module.version() < needed)
      diagnostics.push_back(makeDiagnostic(
          Severity::Error, at, "fragment-ptx-isa",
          formatv("fragment '{0}' needs PTX ISA {1}, the module is {2}.{3}",
                  fragment.name, fragment.ptxIsa, module.versionMajor,
                  module.versionMinor)
              .str()));
    if (facts)
      addUnmetRequirements(fragment, *facts, at, diagnostics);
  }
  return diagnostics;
}

std::vector<Diagnostic> llmptx::ptx::checkCudaFragmentUses(
    StringRef source, const std::vector<Fragment> &fragments, StringRef chip,
    const KernelLaunchFacts *facts) {
  std::vector<Diagnostic> diagnostics;
  for (const CudaFragmentUse &use : findCudaFragmentUses(source, fragments)) {
    const Fragment &fragment = *use.fragment;
    SourceLocation at{use.firstLine, 1};
    noteUse(fragment, at,
            formatv("lines {0}-{1} are", use.firstLine, use.lastLine).str(),
            chip, "kernel", facts, diagnostics);
    if (facts)
      addUnmetRequirements(fragment, *facts, at, diagnostics);
  }
  return diagnostics;
}
