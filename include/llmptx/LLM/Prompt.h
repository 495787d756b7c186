//===- Prompt.h - Versioned prompt templates for PTX generation -*- C++ -*-===//
//
// A KernelSpec describes one gpu.func and the facts the model may rely on;
// the render functions turn it into chat messages through versioned
// templates. The template version is part of every cache key, so changing a
// template's wording must change its version string.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_PROMPT_H
#define LLMPTX_LLM_PROMPT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llmptx::llm {

/// What a candidate is written in: PTX, or CUDA C++ that NVRTC compiles to
/// PTX.
enum class SourceLanguage { PTX, CUDA };
/// "ptx" or "cuda": the fence tag and the report's spelling.
llvm::StringRef sourceLanguageName(SourceLanguage language);

struct ChatMessage {
  std::string role; // system | user | assistant
  std::string content;
};

struct KernelSpec {
  std::string kernelName;
  std::string mlirText;
  /// The ABI contract spelled as the PTX entry signature to fill in.
  std::string ptxSignature;
  /// The same entry as the `extern "C" __global__` CUDA prototype whose
  /// parameters map one to one onto the .param list (CUDA prompts).
  std::string cudaPrototype;
  /// Block size, grid, shapes, as text.
  std::string launchFacts;
  std::string chip;   // e.g. "sm_90"
  std::string ptxIsa; // e.g. "8.5"
  /// Free-text intent (llmgen.spec); may be empty.
  std::string intent;
  /// Facts the module states (alignment, ...); may be empty.
  std::string statedFacts;
  /// Optimize mode: the reference PTX to improve on and its resource report.
  std::string referencePtx;
  std::string referenceResources;
  /// When the model may choose the launch configuration: the paragraph that
  /// says how (empty: the launch is fixed).
  std::string launchChoice;
  /// The launch choice offers tensor maps and dynamic shared memory.
  bool tensorMaps = false;
  /// Optimize and improve prompts: the proven fragments that apply
  /// (renderFragments, Fragments.h); empty: none, or turned off.
  std::string fragments;
  /// The same for CUDA prompts: the CUDA fragments that apply. A CUDA
  /// prompt lists these when there are any, else `fragments` (PTX, for
  /// asm volatile) as before.
  std::string cudaFragments;
};

struct Prompt {
  std::string templateVersion;
  /// What the conversation asks for; repairs continue in the same language.
  SourceLanguage language = SourceLanguage::PTX;
  std::vector<ChatMessage> messages;
  /// Hex SHA-256 of the template version and the messages (provenance).
  std::string hash() const;
};

/// Template versions; a conversation that continues a prompt (repair,
/// mismatch) appends its own version to the one it continues.
inline constexpr llvm::StringLiteral TranslateTemplateVersion =
    "llmptx-translate-v1";
inline constexpr llvm::StringLiteral OptimizeTemplateVersion =
    "llmptx-optimize-v1";
inline constexpr llvm::StringLiteral ImproveTemplateVersion =
    "llmptx-improve-v1";
inline constexpr llvm::StringLiteral RepairTemplateVersion = "repair-v1";
inline constexpr llvm::StringLiteral MismatchTemplateVersion = "mismatch-v1";
/// Appended to the version of a prompt with a launch choice section.
inline constexpr llvm::StringLiteral LaunchTemplateVersion = "launch-v1";
/// Appended to the version of a prompt whose launch choice offers tensor
/// maps.
inline constexpr llvm::StringLiteral TensorMapTemplateVersion = "tma-v1";
/// Appended to the version of a prompt with a fragments section.
inline constexpr llvm::StringLiteral FragmentsTemplateVersion = "fragments-v1";
/// Appended instead to the version of a CUDA prompt whose fragments section
/// lists CUDA fragments.
inline constexpr llvm::StringLiteral CudaFragmentsTemplateVersion =
    "cuda-fragments-v1";
/// Appended to the version of a prompt that asks for CUDA C++ (PTX prompts,
/// and so their cache keys, are as before).
inline constexpr llvm::StringLiteral CudaTemplateVersion = "cuda-v1";

Prompt renderTranslatePrompt(const KernelSpec &spec,
                             SourceLanguage language = SourceLanguage::PTX);
/// \p measurements: timings of the reference and any measured candidates.
Prompt renderOptimizePrompt(const KernelSpec &spec,
                            llvm::StringRef measurements,
                            SourceLanguage language = SourceLanguage::PTX);
/// The best kernel so far, which an optimization round asks to beat.
struct Incumbent {
  /// "s0r0", or empty when the best so far is the reference.
  std::string name;
  std::string ptx;
  /// A CUDA C++ candidate's source (shown instead of its PTX).
  std::string cudaSource;
  /// Its launch block as the answer gave it (empty: the original launch).
  std::string launch;
  /// What the runner and ptxas measured, one fact per line.
  std::string measurements;
};

/// Optimization round \p round: a fresh conversation that shows the
/// kernel's facts, the best verified kernel so far with its measurements,
/// and asks for a faster one.
Prompt renderImprovePrompt(const KernelSpec &spec, const Incumbent &incumbent,
                           unsigned round,
                           SourceLanguage language = SourceLanguage::PTX);
/// Continues \p previous with the model's answer and a user turn that lists
/// \p diagnostics ("f.ptx:3:5: error: ..." lines).
Prompt renderRepairPrompt(const Prompt &previous,
                          llvm::StringRef previousAnswer,
                          llvm::ArrayRef<std::string> diagnostics);
/// Continues \p previous with the model's answer and a user turn carrying the
/// first differing elements per shape.
Prompt renderMismatchPrompt(const Prompt &previous,
                            llvm::StringRef previousAnswer,
                            llvm::StringRef mismatchReport);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_PROMPT_H
