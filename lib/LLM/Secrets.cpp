//===- Secrets.cpp - Keep API keys out of messages and files --------------===//
//
// The environment is read on every call rather than once, so a key that a
// test or a wrapper sets after start-up is still redacted.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Secrets.h"

#include "Wire.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

extern char **environ;

using namespace llvm;

namespace llmptx::llm {

/// `value` as it appears inside a JSON string: the cache, batch files,
/// bundles and reports are JSON, so a key holding `"` or `\` is written
/// escaped, and a check for the raw value alone would miss it.
static std::string jsonEscaped(StringRef value) {
  std::string quoted = wire::dumpJson(wire::Json(value.str()));
  return quoted.substr(1, quoted.size() - 2);
}

std::vector<std::string> knownSecrets() {
  std::vector<std::string> secrets;
  for (char **entry = environ; entry && *entry; ++entry) {
    StringRef assignment(*entry);
    auto [name, value] = assignment.split('=');
    bool isKey = name == "OPENAI_API_KEY" || name == "ANTHROPIC_API_KEY" ||
                 name == "LLMPTX_API_KEY" || name.ends_with("_API_KEY");
    // Shorter values would redact ordinary words; they are not real keys.
    if (!isKey || value.size() < 4)
      continue;
    secrets.push_back(value.str());
    // Whatever characters the key has, its JSON form is caught as well.
    std::string escaped = jsonEscaped(value);
    if (escaped != value)
      secrets.push_back(std::move(escaped));
  }
  // Longest first, so a key that contains another is replaced whole.
  llvm::sort(secrets, [](const std::string &a, const std::string &b) {
    return a.size() > b.size();
  });
  secrets.erase(std::unique(secrets.begin(), secrets.end()), secrets.end());
  return secrets;
}

std::string redactSecrets(StringRef text) {
  std::string result = text.str();
  for (const std::string &secret : knownSecrets()) {
    size_t pos = 0;
    while ((pos = result.find(secret, pos)) != std::string::npos) {
      result.replace(pos, secret.size(), "[REDACTED]");
      pos += strlen("[REDACTED]");
    }
  }
  return result;
}

bool containsSecret(StringRef text) {
  return llvm::any_of(knownSecrets(), [&](const std::string &secret) {
    return text.contains(secret);
  });
}

} // namespace llmptx::llm
