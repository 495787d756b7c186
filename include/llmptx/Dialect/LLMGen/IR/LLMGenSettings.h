//===- LLMGenSettings.h - C++ side of the settings table --------*- C++ -*-===//
//
// What C++ needs to expand the settings of LLMGenSettings.td (the X-macro
// list LLMGenSettings.inc): the spellings of enumerated pass options.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENSETTINGS_H
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENSETTINGS_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Pipeline/SettingEnums.h"

#include <type_traits>

namespace llmptx::llmgen {

/// The spelling of an enumerated setting's value ("" past the last value):
/// every enumerated option is a pipeline setting.
using ::llmptx::spellingOf;

/// A command-line modifier that gives an enumerated option the spellings of
/// its values, taken from the enum itself so they are never listed twice;
/// other options are left as they are. Enums here number their values from
/// 0 without gaps.
template <typename T> struct OptionSpellings {
  template <typename Option> void apply(Option &option) const {
    if constexpr (std::is_enum_v<T>) {
      for (unsigned index = 0;; ++index) {
        T value = static_cast<T>(index);
        llvm::StringRef spelling = spellingOf(value);
        if (spelling.empty())
          break;
        option.getParser().addLiteralOption(spelling, value, "");
      }
    }
  }
};

template <typename T> OptionSpellings<T> optionSpellings() { return {}; }

} // namespace llmptx::llmgen

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENSETTINGS_H
