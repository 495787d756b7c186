//===- Prompt.cpp - Versioned prompt templates for PTX generation ---------===//
//
// The system message states, once, the rules that models break most often
// when they write PTX by hand; every user turn then carries only facts about
// one kernel. Wording changes here must bump the template version in
// Prompt.h, because the version is part of the cache key.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Prompt.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace llmptx::llm {

namespace {

constexpr StringLiteral SystemRules =
    R"(You are the PTX backend of an MLIR compiler. You translate one MLIR gpu.func into one PTX module that computes exactly what the MLIR computes. Your PTX is parsed, linted, checked against the entry signature, compiled with ptxas and run on a GPU against the reference compiler's PTX on many shapes and special values; anything that differs is rejected.

Rules:
1. Answer with exactly one fenced code block tagged ptx (```ptx ... ```) holding the complete module: .version, .target, .address_size 64, then the .visible .entry. Nothing else goes inside the block; text outside it is ignored.
2. Use the entry signature you are given exactly: same name, same .param list in the same order with the same types. Do not add, drop, rename or reorder parameters.
3. Declare every register before use. `.reg .b32 %r<N>;` declares %r0 to %r(N-1) only, so N must be larger than the highest index you use. Declare predicates too: `.reg .pred %p<N>;`.
4. Keep 32-bit and 64-bit values apart. Addresses and MLIR `index` values are 64-bit (.u64/.s64/.b64 registers). Widen a 32-bit index with cvt or mul.wide before adding it to an address, convert parameter pointers with cvta.to.global.u64, and give every instruction the type suffix that matches its registers.
5. Bounds: keep every bounds check the MLIR has; a thread whose index is out of range must neither load nor store. Do not read or write outside the elements the MLIR touches.
6. Rely only on the facts stated. A pointer is aligned to its element size and no more unless the prompt states more, so use vector loads (ld.global.v2/v4) only when the stated alignment allows them.
7. Keep IEEE semantics: no .ftz, no .approx division or square root, round-to-nearest (.rn) where the MLIR op is exact; NaN, infinities, -0.0 and denormals must come out as the reference computes them.
8. Use the .target and .version given.)";

constexpr StringLiteral CudaSystemRules =
    R"(You are the GPU backend of an MLIR compiler. You translate one MLIR gpu.func into one CUDA C++ kernel that computes exactly what the MLIR computes. Your code is compiled to PTX by NVRTC, and that PTX is linted, checked against the entry signature, compiled with ptxas and run on a GPU against the reference compiler's PTX on many shapes and special values; anything that differs is rejected.

Rules:
1. Answer with exactly one fenced code block tagged cuda (```cuda ... ```) holding the whole translation unit: includes, device helpers, the kernel. Text outside it is ignored.
2. Define the kernel exactly as the prototype you are given: extern "C" __global__, same name, the same parameters in the same order with the same types. A memref argument arrives as its allocated pointer, aligned pointer, offset, sizes and strides; element (i, j) of a 2-D memref is aligned[offset + i*stride0 + j*stride1]. Use the aligned pointer, never the allocated one.
3. Include nothing but <cuda_fp16.h>, <cuda_bf16.h>, <mma.h>, <cuda/barrier> and <cuda/pipeline> (no <cstdint>, no <cstdio>: use int, long long, unsigned). Any PTX instruction the chip has may be used through asm volatile.
4. Bounds: keep every bounds check the MLIR has; a thread whose index is out of range must neither load nor store. Do not read or write outside the elements the MLIR touches.
5. Rely only on the facts stated. A pointer is aligned to its element size and no more unless the prompt states more, so use vector types (float4, __half2) for loads and stores only when the stated alignment allows them.
6. Keep IEEE semantics: the code is compiled without fast math; do not use __expf, __fdividef, __frcp_* or other approximate intrinsics, flush-to-zero or contractions the MLIR does not have; NaN, infinities, -0.0 and denormals must come out as the reference computes them.
7. The code is compiled with -arch=compute_XX for the chip given (-std=c++17, -default-device); use only what that chip has.)";

constexpr StringLiteral OptimizeRules = R"(

In this task you also get the reference PTX that the LLVM NVPTX backend produced for the kernel, its resource report and timings. Write a faster kernel that still computes exactly the same results under the same rules. It is timed against the reference; a kernel that is not faster is discarded, so only change what you expect to pay off.)";

void section(raw_ostream &os, StringRef title, StringRef body) {
  if (body.trim().empty())
    return;
  os << "\n## " << title << "\n" << body.rtrim() << "\n";
}

void fenced(raw_ostream &os, StringRef title, StringRef lang, StringRef body) {
  if (body.trim().empty())
    return;
  os << "\n## " << title << "\n```" << lang << "\n"
     << body.rtrim() << "\n```\n";
}

std::string kernelFacts(const KernelSpec &spec, SourceLanguage language) {
  std::string text;
  raw_string_ostream os(text);
  StringRef chip = spec.chip.empty() ? "sm_90" : StringRef(spec.chip);
  os << "Kernel: " << (spec.kernelName.empty() ? "(unnamed)" : spec.kernelName);
  if (language == SourceLanguage::CUDA)
    os << "\nTarget: " << chip << " (NVRTC -arch=compute_"
       << chip.drop_front(3) << ")\n";
  else
    os << "\nTarget: .target " << chip << ", .version "
       << (spec.ptxIsa.empty() ? "8.5" : spec.ptxIsa) << "\n";
  fenced(os, "MLIR (the gpu.func to translate)", "mlir", spec.mlirText);
  if (language == SourceLanguage::CUDA)
    fenced(os, "Kernel prototype to define (use it exactly)", "cuda",
           spec.cudaPrototype);
  else
    fenced(os, "Entry signature to fill in (use it exactly)", "ptx",
           spec.ptxSignature);
  section(os, "Launch facts", spec.launchFacts);
  section(os, "Launch configuration (yours to choose)", spec.launchChoice);
  section(os, "Stated facts (the only assumptions allowed)",
          spec.statedFacts.empty()
              ? "None beyond the MLIR types: pointers are aligned to their "
                "element size only."
              : StringRef(spec.statedFacts));
  section(os, "Intent", spec.intent);
  return text;
}

Prompt continueConversation(const Prompt &previous, StringRef previousAnswer,
                            StringRef version, std::string userTurn) {
  Prompt prompt;
  prompt.language = previous.language;
  prompt.templateVersion = previous.templateVersion + "+" + version.str();
  prompt.messages = previous.messages;
  prompt.messages.push_back({"assistant", previousAnswer.str()});
  prompt.messages.push_back({"user", std::move(userTurn)});
  return prompt;
}

/// A prompt of template `version` (plus the launch suffix when the spec
/// offers a launch choice, the CUDA suffix for CUDA) with the system
/// message of its language, and `extraRules` after it.
Prompt startPrompt(StringRef version, const KernelSpec &spec,
                   SourceLanguage language, StringRef extraRules = {}) {
  Prompt prompt;
  prompt.language = language;
  prompt.templateVersion = version.str();
  if (!spec.launchChoice.empty())
    prompt.templateVersion += "+" + LaunchTemplateVersion.str();
  if (!spec.launchChoice.empty() && spec.tensorMaps)
    prompt.templateVersion += "+" + TensorMapTemplateVersion.str();
  if (language == SourceLanguage::CUDA)
    prompt.templateVersion += "+" + CudaTemplateVersion.str();
  StringRef rules =
      language == SourceLanguage::CUDA ? CudaSystemRules : SystemRules;
  prompt.messages.push_back({"system", (rules + extraRules).str()});
  return prompt;
}

/// "complete PTX module ... in one ```ptx block" or its CUDA counterpart.
std::string answerForm(SourceLanguage language) {
  return language == SourceLanguage::CUDA
             ? "complete CUDA C++ kernel, defined with the prototype above, "
               "in one ```cuda block"
             : "complete PTX module, with the same entry signature, in one "
               "```ptx block";
}

/// The spec's fragments section, which also marks the template version: a
/// CUDA prompt's CUDA fragments when it has any, else the PTX fragments.
void addFragments(Prompt &prompt, raw_ostream &os, const KernelSpec &spec) {
  if (prompt.language == SourceLanguage::CUDA && !spec.cudaFragments.empty()) {
    section(os, "Proven CUDA fragments", spec.cudaFragments);
    prompt.templateVersion += "+" + CudaFragmentsTemplateVersion.str();
    return;
  }
  if (spec.fragments.empty())
    return;
  section(os, "Proven PTX fragments", spec.fragments);
  prompt.templateVersion += "+" + FragmentsTemplateVersion.str();
}

} // namespace

StringRef sourceLanguageName(SourceLanguage language) {
  return language == SourceLanguage::CUDA ? "cuda" : "ptx";
}

std::string Prompt::hash() const {
  // Length-prefixed fields keep ("ab","c") and ("a","bc") apart.
  SHA256 sha;
  auto add = [&](StringRef field) {
    sha.update(utostr(field.size()));
    sha.update(":");
    sha.update(field);
  };
  add("llmptx-prompt-v1");
  add(templateVersion);
  for (const ChatMessage &message : messages) {
    add(message.role);
    add(message.content);
  }
  return toHex(sha.final(), /*LowerCase=*/true);
}

Prompt renderTranslatePrompt(const KernelSpec &spec, SourceLanguage language) {
  Prompt prompt = startPrompt(TranslateTemplateVersion, spec, language);
  std::string user = kernelFacts(spec, language);
  user += language == SourceLanguage::CUDA
              ? "\nWrite the complete CUDA C++ kernel, in one ```cuda "
                "block.\n"
              : "\nWrite the complete PTX module for this kernel, in one "
                "```ptx block.\n";
  prompt.messages.push_back({"user", std::move(user)});
  return prompt;
}

Prompt renderOptimizePrompt(const KernelSpec &spec, StringRef measurements,
                            SourceLanguage language) {
  Prompt prompt =
      startPrompt(OptimizeTemplateVersion, spec, language, OptimizeRules);
  std::string user = kernelFacts(spec, language);
  raw_string_ostream os(user);
  fenced(os, "Reference PTX (correct; make it faster)", "ptx",
         spec.referencePtx);
  section(os, "Reference resource usage (ptxas -v)", spec.referenceResources);
  section(os, "Measurements", measurements);
  addFragments(prompt, os, spec);
  if (language == SourceLanguage::CUDA)
    os << "\nWrite a faster " << answerForm(language) << ".\n";
  else
    os << "\nWrite a faster complete PTX module for this kernel, with the "
          "same entry signature, in one ```ptx block.\n";
  prompt.messages.push_back({"user", std::move(user)});
  return prompt;
}

Prompt renderImprovePrompt(const KernelSpec &spec, const Incumbent &incumbent,
                           unsigned round, SourceLanguage language) {
  Prompt prompt =
      startPrompt(ImproveTemplateVersion, spec, language, OptimizeRules);
  std::string user = kernelFacts(spec, language);
  raw_string_ostream os(user);
  std::string title =
      incumbent.name.empty()
          ? std::string("Best kernel so far: the reference (correct; make it "
                        "faster)")
          : "Best kernel so far: candidate " + incumbent.name +
                " (verified by execution; make it faster)";
  if (incumbent.cudaSource.empty())
    fenced(os, title, "ptx", incumbent.ptx);
  else
    fenced(os, title + ", in CUDA C++", "cuda", incumbent.cudaSource);
  fenced(os, "Its launch", "launch", incumbent.launch);
  section(os, "What was measured on the GPU and by ptxas",
          incumbent.measurements);
  addFragments(prompt, os, spec);
  os << "\nThis is optimization round " << round
     << ". Find what limits the kernel above (memory traffic, latency, "
        "occupancy, instruction count) from the measurements and remove it. "
        "Answer with a faster "
     << answerForm(language);
  if (!spec.launchChoice.empty())
    os << ", and its launch in a ```launch block when it is not the original "
          "one";
  os << ". It is kept only if it is faster than this kernel beyond the "
        "timing noise.\n";
  prompt.messages.push_back({"user", std::move(user)});
  return prompt;
}

Prompt renderRepairPrompt(const Prompt &previous, StringRef previousAnswer,
                          ArrayRef<std::string> diagnostics) {
  std::string user;
  raw_string_ostream os(user);
  if (previous.language == SourceLanguage::CUDA)
    os << "Your kernel was rejected before it could run. Lines and columns "
          "of candidate.cu count from the first line inside your ```cuda "
          "block; those of candidate.ptx are of the PTX NVRTC made of it.\n\n";
  else
    os << "Your PTX was rejected before it could run. Line and column "
          "numbers below count from the first line inside your ```ptx "
          "block.\n\n";
  if (diagnostics.empty())
    os << "(no diagnostics were produced)\n";
  for (const std::string &line : diagnostics)
    os << StringRef(line).rtrim() << "\n";
  os << "\nFix every error (they may hide others), keep the entry signature "
        "exactly, and answer with the "
     << (previous.language == SourceLanguage::CUDA
             ? "complete corrected kernel in one ```cuda block.\n"
             : "complete corrected module in one ```ptx block.\n");
  return continueConversation(previous, previousAnswer, RepairTemplateVersion,
                              std::move(user));
}

Prompt renderMismatchPrompt(const Prompt &previous, StringRef previousAnswer,
                            StringRef mismatchReport) {
  std::string user;
  raw_string_ostream os(user);
  bool cuda = previous.language == SourceLanguage::CUDA;
  os << "Your " << (cuda ? "kernel" : "PTX")
     << " compiled and ran, but its results differ from the "
        "reference. The first differing elements per shape:\n\n"
     << mismatchReport.rtrim() << "\n\n"
     << "Find the cause (indexing, bounds, 32/64-bit widths, rounding, "
        "special values, elements left unwritten) and answer with the "
     << (cuda ? "complete corrected kernel in one ```cuda block, with the same "
                "prototype.\n"
              : "complete corrected module in one ```ptx block, with the "
                "same entry signature.\n");
  return continueConversation(previous, previousAnswer, MismatchTemplateVersion,
                              std::move(user));
}

} // namespace llmptx::llm
