//===- SettingEnums.h - The enumerated settings of the pipeline -*- C++ -*-===//
//
// The one spelling of each enumerated setting: the `--llm-lower` options,
// the `#llmgen.target` parameters and the report all use it. Header only,
// like llmptx/LLM/CacheMode.h, so the dialect can name the values without
// linking the pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_SETTINGENUMS_H
#define LLMPTX_PIPELINE_SETTINGENUMS_H

#include "llmptx/LLM/CacheMode.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llmptx {

/// What the model is asked to do.
enum class Mode { Translate, Optimize };
/// How far an LLM kernel is checked before it may be selected.
enum class VerifyLevel { None, Compile, Exec };
/// Which object a module gets.
enum class SelectPolicy { Auto, LLM, NVPTX };
/// What the model writes candidates in: PTX, CUDA C++ (compiled by NVRTC),
/// or both, the samples split between them.
enum class Language { PTX, CUDA, Auto };

/// The spelling of a setting's value in options, attributes and the report
/// ("translate", "exec", "nvptx", ...); "" past the last value, so a
/// caller may list the values by counting from 0.
inline llvm::StringRef spellingOf(Mode mode) {
  switch (mode) {
  case Mode::Translate:
    return "translate";
  case Mode::Optimize:
    return "optimize";
  }
  return "";
}
inline llvm::StringRef spellingOf(VerifyLevel level) {
  switch (level) {
  case VerifyLevel::None:
    return "none";
  case VerifyLevel::Compile:
    return "compile";
  case VerifyLevel::Exec:
    return "exec";
  }
  return "";
}
inline llvm::StringRef spellingOf(SelectPolicy policy) {
  switch (policy) {
  case SelectPolicy::Auto:
    return "auto";
  case SelectPolicy::LLM:
    return "llm";
  case SelectPolicy::NVPTX:
    return "nvptx";
  }
  return "";
}
inline llvm::StringRef spellingOf(llm::CacheMode mode) {
  return llm::cacheModeName(mode);
}

inline llvm::StringRef spellingOf(Language language) {
  switch (language) {
  case Language::PTX:
    return "ptx";
  case Language::CUDA:
    return "cuda";
  case Language::Auto:
    return "auto";
  }
  return "";
}

/// The value of `Enum` spelled `text`, or nothing.
template <typename Enum>
std::optional<Enum> settingFromSpelling(llvm::StringRef text) {
  for (unsigned index = 0;; ++index) {
    llvm::StringRef spelling = spellingOf(static_cast<Enum>(index));
    if (spelling.empty())
      return std::nullopt;
    if (spelling == text)
      return static_cast<Enum>(index);
  }
}

/// "translate, optimize": every spelling of `Enum`, for messages.
template <typename Enum> std::string settingSpellings() {
  std::string text;
  for (unsigned index = 0;; ++index) {
    llvm::StringRef spelling = spellingOf(static_cast<Enum>(index));
    if (spelling.empty())
      return text;
    text += (index ? ", " : "") + spelling.str();
  }
}

} // namespace llmptx

#endif // LLMPTX_PIPELINE_SETTINGENUMS_H
