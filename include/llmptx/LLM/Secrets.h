//===- Secrets.h - Keep API keys out of messages and files ------*- C++ -*-===//
//
// Keys come only from the environment and travel only in HTTP headers.
// Everything the layer prints or writes passes through these functions.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_SECRETS_H
#define LLMPTX_LLM_SECRETS_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llmptx::llm {

/// The values of OPENAI_API_KEY, ANTHROPIC_API_KEY, LLMPTX_API_KEY and any
/// other environment variable whose name ends in _API_KEY, read now (values
/// shorter than 4 characters are not treated as secrets).
std::vector<std::string> knownSecrets();

/// Replaces every known key value in \p text with "[REDACTED]".
std::string redactSecrets(llvm::StringRef text);

/// True when \p text contains a known key value; files that would contain
/// one are not written.
bool containsSecret(llvm::StringRef text);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_SECRETS_H
