//===- Serialization.h - JSON forms of requests and completions -*- C++ -*-===//
//
// The JSON the layer reads and writes, behind plain C++ types so that callers
// (tools, the MLIR pass) need no JSON library. The request form is the one
// the exec provider sends on stdin: an OpenAI chat-completions body plus an
// "llmptx" object with sample_index, template_version and kernel.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_SERIALIZATION_H
#define LLMPTX_LLM_SERIALIZATION_H

#include "llmptx/LLM/Provider.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx::llm {

/// Accepts a JSON array of {role, content} or an object with "messages";
/// errors name \p sourceName.
llvm::Expected<std::vector<ChatMessage>>
parseMessagesJson(llvm::StringRef json, llvm::StringRef sourceName);
std::string messagesToJson(llvm::ArrayRef<ChatMessage> messages);

/// A KernelSpec as a JSON object with the field names of the struct in
/// snake_case (kernel_name, mlir_text, ptx_signature, launch_facts, chip,
/// ptx_isa, intent, stated_facts, reference_ptx, reference_resources).
llvm::Expected<KernelSpec> parseKernelSpecJson(llvm::StringRef json,
                                               llvm::StringRef sourceName);

/// The exec provider's stdin form: model, messages, temperature,
/// max_tokens, seed (already offset by the sample index), and an "llmptx"
/// object.
std::string requestToJson(const CompletionRequest &request);
/// Reads the same form back (the seed is taken as the base seed of sample
/// llmptx.sample_index).
llvm::Expected<CompletionRequest> parseRequestJson(llvm::StringRef json,
                                                   llvm::StringRef sourceName);

/// A completion with all its metadata, for reports and the CLI.
std::string completionToJson(const Completion &completion,
                             unsigned sampleIndex);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_SERIALIZATION_H
