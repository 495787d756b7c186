//===- Wire.h - JSON the layer sends and stores -----------------*- C++ -*-===//
//
// Private to LLMPTXLLM, which is compiled with exceptions: nlohmann types
// never reach a public header, and every parse goes through parseJson so no
// exception leaves the library.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_LLM_WIRE_H
#define LLMPTX_LIB_LLM_WIRE_H

#include "llmptx/LLM/Provider.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace llmptx::llm::wire {

using Json = nlohmann::json;

/// Parses \p text; the error names \p sourceName and the byte offset.
llvm::Expected<Json> parseJson(llvm::StringRef text,
                               llvm::StringRef sourceName);

/// Never throws: invalid UTF-8 is replaced with U+FFFD.
std::string dumpJson(const Json &value, int indent = -1);

/// Replaces invalid UTF-8 sequences with U+FFFD, so that what a provider
/// returned is exactly what the cache stores and gives back.
std::string sanitizeUtf8(llvm::StringRef text);

Json messagesToJsonValue(llvm::ArrayRef<ChatMessage> messages);
llvm::Expected<std::vector<ChatMessage>>
messagesFromJsonValue(const Json &value, llvm::StringRef sourceName);

/// The seed sample i is sent with.
std::optional<int64_t> effectiveSeed(const CompletionRequest &request);

/// Everything the cache key covers, as a JSON object with fixed key order
/// (nlohmann sorts object keys, which makes the dump canonical).
Json keyMaterial(const CompletionRequest &request);
llvm::Expected<CompletionRequest> requestFromKeyMaterial(const Json &value);

/// An OpenAI chat-completions body for \p request (model must be set).
Json openAIChatBody(const CompletionRequest &request,
                    llvm::StringRef maxTokensField);

/// Reads the first choice of an OpenAI chat-completions response into
/// \p completion (text, model, tokens, ok, warnings); returns the problem
/// when there is no usable text.
std::string readOpenAIResponse(const Json &response, Completion &completion);

/// Seconds as a user wrote them: "0.5", "120".
std::string formatSeconds(double seconds);

/// Reads a string member, "" when absent or of another type.
std::string stringMember(const Json &object, const char *name);
/// Reads an unsigned member, 0 when absent or of another type.
unsigned unsignedMember(const Json &object, const char *name);

/// The human-readable error in a provider's error body (OpenAI and
/// Anthropic both use {"error": {"message", "type"}}); else a prefix of the
/// body.
std::string providerErrorMessage(llvm::StringRef body);

} // namespace llmptx::llm::wire

#endif // LLMPTX_LIB_LLM_WIRE_H
