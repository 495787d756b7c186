//===- Serialization.cpp - JSON forms of requests and completions ---------===//

#include "llmptx/LLM/Serialization.h"

#include "Wire.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using llmptx::llm::wire::Json;

namespace llmptx::llm {

namespace {

/// Runs \p body, turning any escaped exception into an llvm::Error.
template <typename T, typename Fn>
Expected<T> guarded(StringRef sourceName, Fn body) {
  try {
    return body();
  } catch (const std::exception &error) {
    return createStringError(sourceName + ": " + error.what());
  }
}

} // namespace

Expected<std::vector<ChatMessage>> parseMessagesJson(StringRef json,
                                                     StringRef sourceName) {
  return guarded<std::vector<ChatMessage>>(
      sourceName, [&]() -> Expected<std::vector<ChatMessage>> {
        auto parsed = wire::parseJson(json, sourceName);
        if (!parsed)
          return parsed.takeError();
        if (parsed->is_object() && parsed->contains("messages"))
          return wire::messagesFromJsonValue((*parsed)["messages"], sourceName);
        return wire::messagesFromJsonValue(*parsed, sourceName);
      });
}

std::string messagesToJson(ArrayRef<ChatMessage> messages) {
  try {
    return wire::dumpJson(wire::messagesToJsonValue(messages), 2) + "\n";
  } catch (const std::exception &) {
    return "[]\n";
  }
}

Expected<KernelSpec> parseKernelSpecJson(StringRef json, StringRef sourceName) {
  return guarded<KernelSpec>(sourceName, [&]() -> Expected<KernelSpec> {
    auto parsed = wire::parseJson(json, sourceName);
    if (!parsed)
      return parsed.takeError();
    if (!parsed->is_object())
      return createStringError(sourceName +
                               ": a kernel spec must be a JSON object");
    KernelSpec spec;
    std::pair<const char *, std::string *> fields[] = {
        {"kernel_name", &spec.kernelName},
        {"mlir_text", &spec.mlirText},
        {"ptx_signature", &spec.ptxSignature},
        {"launch_facts", &spec.launchFacts},
        {"chip", &spec.chip},
        {"ptx_isa", &spec.ptxIsa},
        {"intent", &spec.intent},
        {"stated_facts", &spec.statedFacts},
        {"reference_ptx", &spec.referencePtx},
        {"reference_resources", &spec.referenceResources},
        {"fragments", &spec.fragments}};
    for (auto it = parsed->begin(); it != parsed->end(); ++it) {
      std::string *target = nullptr;
      for (auto &[name, field] : fields)
        if (it.key() == name)
          target = field;
      if (!target)
        return createStringError(sourceName + ": unknown field '" + it.key() +
                                 "' in kernel spec");
      if (!it.value().is_string())
        return createStringError(sourceName + ": field '" + it.key() +
                                 "' must be a string");
      *target = it.value().get<std::string>();
    }
    return spec;
  });
}

std::string requestToJson(const CompletionRequest &request) {
  try {
    Json body = wire::openAIChatBody(request, "max_tokens");
    Json llmptx = Json::object();
    llmptx["sample_index"] = request.sampleIndex;
    llmptx["template_version"] = wire::sanitizeUtf8(request.templateVersion);
    if (!request.label.empty())
      llmptx["kernel"] = wire::sanitizeUtf8(request.label);
    if (request.optimizationRound > 0)
      llmptx["optimization_round"] = request.optimizationRound;
    body["llmptx"] = std::move(llmptx);
    return wire::dumpJson(body);
  } catch (const std::exception &) {
    return "{}";
  }
}

Expected<CompletionRequest> parseRequestJson(StringRef json,
                                             StringRef sourceName) {
  return guarded<CompletionRequest>(
      sourceName, [&]() -> Expected<CompletionRequest> {
        auto parsed = wire::parseJson(json, sourceName);
        if (!parsed)
          return parsed.takeError();
        const Json &object = *parsed;
        if (!object.is_object())
          return createStringError(sourceName +
                                   ": a request must be a JSON object");
        CompletionRequest request;
        request.model = wire::stringMember(object, "model");
        auto messages = wire::messagesFromJsonValue(
            object.value("messages", Json()), sourceName);
        if (!messages)
          return messages.takeError();
        request.messages = std::move(*messages);
        if (object.contains("temperature")) {
          if (!object["temperature"].is_number())
            return createStringError(sourceName +
                                     ": temperature must be a number");
          request.sampling.temperature = object["temperature"].get<double>();
        }
        for (const char *field : {"max_tokens", "max_completion_tokens"})
          if (object.contains(field)) {
            if (!object[field].is_number_unsigned())
              return createStringError(sourceName + ": " + field +
                                       " must be a non-negative integer");
            request.sampling.maxTokens = object[field].get<unsigned>();
          }
        const Json llmptx = object.value("llmptx", Json::object());
        if (!llmptx.is_object())
          return createStringError(sourceName +
                                   ": \"llmptx\" must be an object");
        request.sampleIndex = wire::unsignedMember(llmptx, "sample_index");
        request.templateVersion =
            wire::stringMember(llmptx, "template_version");
        request.label = wire::stringMember(llmptx, "kernel");
        request.optimizationRound =
            wire::unsignedMember(llmptx, "optimization_round");
        if (object.contains("seed")) {
          if (!object["seed"].is_number_integer())
            return createStringError(sourceName + ": seed must be an integer");
          // The body carries seed + sample index.
          request.sampling.seed = object["seed"].get<int64_t>() -
                                  static_cast<int64_t>(request.sampleIndex);
        }
        return request;
      });
}

std::string completionToJson(const Completion &completion,
                             unsigned sampleIndex) {
  try {
    Json object = Json::object();
    object["sample"] = sampleIndex;
    object["ok"] = completion.ok;
    object["text"] = wire::sanitizeUtf8(completion.text);
    object["error"] = wire::sanitizeUtf8(completion.error);
    object["model"] = wire::sanitizeUtf8(completion.model);
    object["provider"] = completion.provider;
    object["prompt_tokens"] = completion.promptTokens;
    object["completion_tokens"] = completion.completionTokens;
    object["latency_ms"] = completion.latencyMs;
    object["wall_ms"] = completion.wallMs;
    object["cache_hit"] = completion.cacheHit;
    object["cache_key"] = completion.cacheKey;
    object["http_status"] = completion.httpStatus;
    object["attempts"] = completion.attempts;
    Json warnings = Json::array();
    for (const std::string &warning : completion.warnings)
      warnings.push_back(wire::sanitizeUtf8(warning));
    object["warnings"] = std::move(warnings);
    return wire::dumpJson(object);
  } catch (const std::exception &) {
    return "{}";
  }
}

} // namespace llmptx::llm
