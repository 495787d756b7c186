//===- PtxSignature.cpp - Kernel parameter lists of PTX entries -----------===//

#include "llmptx/Runtime/PtxSignature.h"

#include "llmptx/Runtime/Plan.h"

#include <cctype>

using namespace llmptx::runtime;

/// PTX without comments; string literals do not occur in PTX signatures.
static std::string stripComments(std::string_view ptx) {
  std::string text;
  text.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
      while (i < ptx.size() && ptx[i] != '\n')
        ++i;
      text += '\n';
      continue;
    }
    if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
      size_t end = ptx.find("*/", i + 2);
      i = end == std::string_view::npos ? ptx.size() : end + 1;
      text += ' ';
      continue;
    }
    text += ptx[i];
  }
  return text;
}

namespace {
/// Splits the signature into tokens: identifiers and directives (".u64"),
/// numbers, and single punctuation characters.
class Tokens {
public:
  explicit Tokens(const std::string &text) : text(text) {}

  std::string next() {
    while (position < text.size() &&
           std::isspace(static_cast<unsigned char>(text[position])))
      ++position;
    if (position >= text.size())
      return {};
    size_t start = position;
    auto isWord = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
             c == '.' || c == '$' || c == '%';
    };
    if (isWord(text[position])) {
      ++position;
      while (position < text.size() && isWord(text[position]) &&
             text[position] != '.')
        ++position;
      // A directive like ".u64" is one token; "a.b" splits at the dot.
      return text.substr(start, position - start);
    }
    ++position;
    return text.substr(start, 1);
  }

  size_t offset() const { return position; }
  void seek(size_t offset) { position = offset; }

private:
  const std::string &text;
  size_t position = 0;
};

unsigned typeBytes(const std::string &type) {
  if (type == "b8" || type == "u8" || type == "s8" || type == "pred")
    return 1;
  if (type == "b16" || type == "u16" || type == "s16" || type == "f16" ||
      type == "bf16")
    return 2;
  if (type == "b32" || type == "u32" || type == "s32" || type == "f32" ||
      type == "f16x2" || type == "bf16x2")
    return 4;
  if (type == "b64" || type == "u64" || type == "s64" || type == "f64")
    return 8;
  return 0;
}
} // namespace

ValueOrError<PtxEntrySignature>
llmptx::runtime::findPtxEntry(std::string_view ptx, std::string_view name) {
  std::string text = stripComments(ptx);
  Tokens tokens(text);
  std::vector<std::string> entries;
  for (std::string token = tokens.next(); !token.empty();
       token = tokens.next()) {
    if (token != ".entry")
      continue;
    std::string entryName = tokens.next();
    entries.push_back(entryName);
    if (entryName != name)
      continue;
    PtxEntrySignature signature;
    signature.name = entryName;
    std::string open = tokens.next();
    if (open != "(")
      return signature; // a kernel without parameters
    std::string token2 = tokens.next();
    while (token2 != ")") {
      if (token2 != ".param")
        return Failure{"entry '" + entryName +
                       "': expected .param in the parameter list, found '" +
                       token2 + "'"};
      PtxParam param;
      unsigned count = 1;
      for (token2 = tokens.next(); !token2.empty(); token2 = tokens.next()) {
        if (token2 == "," || token2 == ")")
          break;
        if (token2 == ".align" || token2 == ".ptr" || token2 == ".global" ||
            token2 == ".const" || token2 == ".shared" || token2 == ".local") {
          if (token2 == ".align")
            tokens.next();
          continue;
        }
        if (token2[0] == '.') {
          param.type = token2.substr(1);
          param.bytes = typeBytes(param.type);
          if (!param.bytes)
            return Failure{"entry '" + entryName +
                           "': unknown parameter type '" + token2 + "'"};
          continue;
        }
        if (token2 == "[") {
          std::string number = tokens.next();
          if (tokens.next() != "]" || number.empty() ||
              !std::isdigit(static_cast<unsigned char>(number[0])))
            return Failure{"entry '" + entryName +
                           "': bad array parameter size"};
          count *= static_cast<unsigned>(std::stoul(number));
          continue;
        }
        param.name = token2;
      }
      if (token2.empty())
        return Failure{"entry '" + entryName +
                       "': unterminated parameter list"};
      if (!param.bytes)
        return Failure{"entry '" + entryName + "': parameter '" + param.name +
                       "' has no type"};
      param.bytes *= count;
      signature.params.push_back(param);
      if (token2 == ",")
        token2 = tokens.next();
    }
    return signature;
  }
  std::string list;
  for (const std::string &entry : entries)
    list += (list.empty() ? "" : ", ") + entry;
  return Failure{"no .entry '" + std::string(name) + "' in the PTX" +
                 (list.empty() ? std::string(" (it has no entries)")
                               : " (entries: " + list + ")")};
}

std::optional<std::string>
llmptx::runtime::checkAbi(const PtxEntrySignature &entry,
                          const VerificationBundle &bundle,
                          const KernelObject &kernel) {
  std::vector<unsigned> sizes = kernelParamSizes(bundle, kernel);
  if (entry.params.size() != sizes.size())
    return "entry '" + entry.name + "' has " +
           std::to_string(entry.params.size()) +
           " parameters, the bundle's ABI has " + std::to_string(sizes.size()) +
           (kernel.tensorMaps.empty()
                ? std::string()
                : " (" + std::to_string(kernel.tensorMaps.size()) +
                      " of them tensor maps)");
  for (size_t i = 0; i < entry.params.size(); ++i) {
    if (entry.params[i].bytes == sizes[i])
      continue;
    std::string what =
        i < bundle.params.size()
            ? paramRoleName(bundle.params[i].role)
            : "tensor map '" +
                  kernel.tensorMaps[i - bundle.params.size()].name + "'";
    return "entry '" + entry.name + "' parameter " + std::to_string(i) + " ('" +
           entry.params[i].name + "', ." + entry.params[i].type + ") has " +
           std::to_string(entry.params[i].bytes) + " bytes, the ABI's " + what +
           " has " + std::to_string(sizes[i]);
  }
  return std::nullopt;
}
