//===- HttpProviders.cpp - OpenAI-compatible and Anthropic providers ------===//
//
// Both send one request per sample rather than OpenAI's `n`: Anthropic,
// llama.cpp and several vLLM setups do not honour `n`, and one request per
// sample gives every sample its own seed and its own cache entry.
//
//===----------------------------------------------------------------------===//

#include "HttpTransport.h"
#include "ProviderKinds.h"
#include "Wire.h"

#include "llmptx/LLM/Secrets.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace llvm;
using llmptx::llm::wire::Json;

namespace llmptx::llm {

namespace {

std::string endpointUrl(StringRef baseUrl, StringRef defaultBase,
                        StringRef path) {
  StringRef base = baseUrl.empty() ? defaultBase : baseUrl;
  base = base.rtrim('/');
  if (base.ends_with(path))
    return base.str();
  return (base + path).str();
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Shared shape of both providers: build body, POST, parse.
class HttpChatProvider : public Provider {
public:
  HttpChatProvider(const ProviderConfig &config, StringRef kindName,
                   std::string url)
      : config(config), kindName(kindName.str()), url(std::move(url)),
        transport(config, kindName.str()) {}

  StringRef kind() const override { return kindName; }

  Completion complete(const CompletionRequest &original) override {
    auto start = std::chrono::steady_clock::now();
    Completion completion;
    completion.provider = kindName;
    try {
      CompletionRequest request = withEffectiveModel(original, config);
      std::string body = wire::dumpJson(buildBody(request));
      std::vector<std::string> headers = {"Content-Type: application/json"};
      addAuthHeaders(headers);
      HttpOutcome outcome = transport.post(url, headers, body, request.label);
      completion.attempts = outcome.attempts;
      completion.httpStatus = static_cast<int>(outcome.status);
      completion.latencyMs = millisecondsSince(start);
      if (!outcome.ok) {
        completion.error = outcome.error;
      } else {
        completion.model = request.model;
        parseResponse(outcome.body, completion);
      }
    } catch (const std::exception &error) {
      completion.ok = false;
      completion.error = kindName + ": internal error: " + error.what();
    }
    completion.wallMs = millisecondsSince(start);
    completion.error = redactSecrets(completion.error);
    return completion;
  }

protected:
  virtual Json buildBody(const CompletionRequest &request) = 0;
  virtual void addAuthHeaders(std::vector<std::string> &headers) = 0;
  /// Fills text, model, tokens and ok from a 2xx body.
  virtual void parseResponse(StringRef body, Completion &completion) = 0;

  bool parseBody(StringRef body, Json &out, Completion &completion) {
    auto parsed = wire::parseJson(body, kindName + ": response from " + url);
    if (!parsed) {
      completion.error = toString(parsed.takeError());
      return false;
    }
    out = std::move(*parsed);
    if (!out.is_object()) {
      completion.error = formatv("{0}: response from {1} is not a JSON "
                                 "object",
                                 kindName, url)
                             .str();
      return false;
    }
    return true;
  }

  ProviderConfig config;
  std::string kindName;
  std::string url;
  HttpTransport transport;
};

class OpenAIProvider : public HttpChatProvider {
public:
  explicit OpenAIProvider(const ProviderConfig &config)
      : HttpChatProvider(config, "openai",
                         endpointUrl(config.baseUrl,
                                     "https://api.openai.com/v1",
                                     "/chat/completions")) {}

protected:
  Json buildBody(const CompletionRequest &request) override {
    return wire::openAIChatBody(request, config.maxTokensField);
  }

  void addAuthHeaders(std::vector<std::string> &headers) override {
    // Local servers (llama.cpp, Ollama, vLLM without --api-key) need none.
    if (auto key = apiKeyFor("openai"))
      headers.push_back("Authorization: Bearer " + *key);
  }

  void parseResponse(StringRef body, Completion &completion) override {
    Json response;
    if (!parseBody(body, response, completion))
      return;
    std::string problem = wire::readOpenAIResponse(response, completion);
    if (!problem.empty())
      completion.error = kindName + ": " + problem + " (from " + url + ")";
  }
};

class AnthropicProvider : public HttpChatProvider {
public:
  explicit AnthropicProvider(const ProviderConfig &config)
      : HttpChatProvider(config, "anthropic",
                         endpointUrl(config.baseUrl,
                                     "https://api.anthropic.com/v1",
                                     "/messages")) {}

protected:
  Json buildBody(const CompletionRequest &request) override {
    // The Messages API takes the system prompt apart from the turns and has
    // no seed.
    Json body = Json::object();
    body["model"] = wire::sanitizeUtf8(request.model);
    body["max_tokens"] = request.sampling.maxTokens;
    body["temperature"] = request.sampling.temperature;
    std::string system;
    std::vector<ChatMessage> turns;
    for (const ChatMessage &message : request.messages) {
      if (message.role == "system") {
        if (!system.empty())
          system += "\n\n";
        system += message.content;
      } else {
        turns.push_back(message);
      }
    }
    if (!system.empty())
      body["system"] = wire::sanitizeUtf8(system);
    body["messages"] = wire::messagesToJsonValue(turns);
    return body;
  }

  void addAuthHeaders(std::vector<std::string> &headers) override {
    if (auto key = apiKeyFor("anthropic"))
      headers.push_back("x-api-key: " + *key);
    headers.push_back("anthropic-version: " + config.anthropicVersion);
  }

  void parseResponse(StringRef body, Completion &completion) override {
    Json response;
    if (!parseBody(body, response, completion))
      return;
    std::string stop = wire::stringMember(response, "stop_reason");
    std::string text;
    auto content = response.find("content");
    if (content != response.end() && content->is_array())
      for (const Json &block : *content)
        if (wire::stringMember(block, "type") == "text")
          text += wire::stringMember(block, "text");
    if (text.empty()) {
      completion.error = formatv("{0}: the response from {1} has no text "
                                 "content (stop_reason: {2})",
                                 kindName, url, stop.empty() ? "none" : stop)
                             .str();
      if (response.contains("error"))
        completion.error += ": " + wire::providerErrorMessage(body);
      return;
    }
    completion.text = std::move(text);
    if (stop == "max_tokens")
      completion.warnings.push_back(
          "the answer was cut off at max_tokens (stop_reason: max_tokens)");
    std::string model = wire::stringMember(response, "model");
    if (!model.empty())
      completion.model = model;
    if (response.contains("usage") && response["usage"].is_object()) {
      completion.promptTokens =
          wire::unsignedMember(response["usage"], "input_tokens");
      completion.completionTokens =
          wire::unsignedMember(response["usage"], "output_tokens");
    }
    completion.ok = true;
  }
};

} // namespace

std::unique_ptr<Provider> createOpenAIProvider(const ProviderConfig &config) {
  return std::make_unique<OpenAIProvider>(config);
}

std::unique_ptr<Provider>
createAnthropicProvider(const ProviderConfig &config) {
  return std::make_unique<AnthropicProvider>(config);
}

} // namespace llmptx::llm
