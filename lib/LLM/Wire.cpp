//===- Wire.cpp - JSON bodies the layer sends and stores ------------------===//

#include "Wire.h"

#include "llmptx/Support/UntrustedText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>

using namespace llvm;

namespace llmptx::llm::wire {

Expected<Json> parseJson(StringRef text, StringRef sourceName) {
  if (auto tooDeep = untrusted::findExcessiveJsonNesting(
          std::string_view(text.data(), text.size())))
    return createStringError(
        formatv("{0}: malformed JSON at {1}", sourceName, *tooDeep).str());
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error &error) {
    // what() starts with "[json.exception.parse_error.101] "; the byte
    // offset is what a user needs to find the spot.
    StringRef what = error.what();
    size_t bracket = what.find("] ");
    if (what.starts_with("[") && bracket != StringRef::npos)
      what = what.drop_front(bracket + 2);
    return createStringError(formatv("{0}: malformed JSON at byte {1}: {2}",
                                     sourceName, error.byte, what)
                                 .str());
  } catch (const std::exception &error) {
    return createStringError(
        formatv("{0}: malformed JSON: {1}", sourceName, error.what()).str());
  }
}

std::string dumpJson(const Json &value, int indent) {
  try {
    return value.dump(indent, ' ', /*ensure_ascii=*/false,
                      Json::error_handler_t::replace);
  } catch (const std::exception &error) {
    // Only reachable on allocation failure.
    return std::string("null");
  }
}

std::string sanitizeUtf8(StringRef text) {
  std::string out;
  out.reserve(text.size());
  const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char lead = bytes[i];
    size_t length = 0;
    uint32_t codePoint = 0, minimum = 0;
    if (lead < 0x80) {
      out += static_cast<char>(lead);
      ++i;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) {
      length = 2, codePoint = lead & 0x1F, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, codePoint = lead & 0x0F, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, codePoint = lead & 0x07, minimum = 0x10000;
    }
    bool valid = length != 0 && i + length <= n;
    for (size_t k = 1; valid && k < length; ++k) {
      if ((bytes[i + k] & 0xC0) != 0x80)
        valid = false;
      else
        codePoint = (codePoint << 6) | (bytes[i + k] & 0x3F);
    }
    valid = valid && codePoint >= minimum && codePoint <= 0x10FFFF &&
            !(codePoint >= 0xD800 && codePoint <= 0xDFFF);
    if (valid) {
      out.append(text.data() + i, length);
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

Json messagesToJsonValue(ArrayRef<ChatMessage> messages) {
  Json array = Json::array();
  for (const ChatMessage &message : messages)
    array.push_back({{"role", sanitizeUtf8(message.role)},
                     {"content", sanitizeUtf8(message.content)}});
  return array;
}

Expected<std::vector<ChatMessage>> messagesFromJsonValue(const Json &value,
                                                         StringRef sourceName) {
  if (!value.is_array())
    return createStringError(
        formatv("{0}: \"messages\" must be an array of {{role, content}}",
                sourceName)
            .str());
  std::vector<ChatMessage> messages;
  for (size_t i = 0; i < value.size(); ++i) {
    const Json &item = value[i];
    if (!item.is_object() || !item.contains("role") ||
        !item["role"].is_string() || !item.contains("content") ||
        !item["content"].is_string())
      return createStringError(
          formatv("{0}: message {1} must be an object with string \"role\" "
                  "and \"content\"",
                  sourceName, i)
              .str());
    std::string role = item["role"].get<std::string>();
    if (role != "system" && role != "user" && role != "assistant")
      return createStringError(
          formatv("{0}: message {1} has role '{2}' (expected system, user or "
                  "assistant)",
                  sourceName, i, role)
              .str());
    messages.push_back({role, item["content"].get<std::string>()});
  }
  return messages;
}

std::optional<int64_t> effectiveSeed(const CompletionRequest &request) {
  if (!request.sampling.seed)
    return std::nullopt;
  return *request.sampling.seed + static_cast<int64_t>(request.sampleIndex);
}

Json keyMaterial(const CompletionRequest &request) {
  Json object = Json::object();
  object["format"] = "llmptx-cache-key-v1";
  object["model"] = sanitizeUtf8(request.model);
  object["temperature"] = request.sampling.temperature;
  object["max_tokens"] = request.sampling.maxTokens;
  object["seed"] =
      request.sampling.seed ? Json(*request.sampling.seed) : Json(nullptr);
  object["sample_index"] = request.sampleIndex;
  object["template_version"] = sanitizeUtf8(request.templateVersion);
  object["messages"] = messagesToJsonValue(request.messages);
  return object;
}

Expected<CompletionRequest> requestFromKeyMaterial(const Json &value) {
  if (!value.is_object() ||
      stringMember(value, "format") != "llmptx-cache-key-v1")
    return createStringError("request is not an llmptx-cache-key-v1 object");
  CompletionRequest request;
  request.model = stringMember(value, "model");
  request.templateVersion = stringMember(value, "template_version");
  if (!value.contains("temperature") || !value["temperature"].is_number())
    return createStringError("request has no numeric temperature");
  request.sampling.temperature = value["temperature"].get<double>();
  request.sampling.maxTokens = unsignedMember(value, "max_tokens");
  if (value.contains("seed") && value["seed"].is_number_integer())
    request.sampling.seed = value["seed"].get<int64_t>();
  request.sampleIndex = unsignedMember(value, "sample_index");
  auto messages =
      messagesFromJsonValue(value.value("messages", Json()), "request");
  if (!messages)
    return messages.takeError();
  request.messages = std::move(*messages);
  return request;
}

Json openAIChatBody(const CompletionRequest &request,
                    StringRef maxTokensField) {
  Json body = Json::object();
  body["model"] = sanitizeUtf8(request.model);
  body["messages"] = messagesToJsonValue(request.messages);
  body["temperature"] = request.sampling.temperature;
  body[maxTokensField.str()] = request.sampling.maxTokens;
  if (auto seed = effectiveSeed(request))
    body["seed"] = *seed;
  return body;
}

std::string readOpenAIResponse(const Json &response, Completion &completion) {
  if (!response.is_object())
    return "the response is not a JSON object";
  auto choices = response.find("choices");
  if (choices == response.end() || !choices->is_array() || choices->empty()) {
    std::string problem = "the response has no choices";
    if (response.contains("error"))
      problem += ": " + providerErrorMessage(dumpJson(response));
    return problem;
  }
  const Json &choice = (*choices)[0];
  std::string finish = stringMember(choice, "finish_reason");
  if (finish.empty())
    finish = "none";
  if (!choice.is_object() || !choice.contains("message") ||
      !choice["message"].is_object() ||
      !choice["message"].contains("content") ||
      !choice["message"]["content"].is_string())
    return "choice 0 has no message content (finish_reason: " + finish + ")";
  std::string text = choice["message"]["content"].get<std::string>();
  if (text.empty())
    return "empty completion (finish_reason: " + finish + ")";
  completion.text = std::move(text);
  if (finish == "length")
    completion.warnings.push_back(
        "the answer was cut off at max_tokens (finish_reason: length)");
  std::string model = stringMember(response, "model");
  if (!model.empty())
    completion.model = model;
  if (response.contains("usage") && response["usage"].is_object()) {
    completion.promptTokens =
        unsignedMember(response["usage"], "prompt_tokens");
    completion.completionTokens =
        unsignedMember(response["usage"], "completion_tokens");
  }
  completion.ok = true;
  return {};
}

std::string formatSeconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", seconds);
  return buffer;
}

std::string stringMember(const Json &object, const char *name) {
  if (!object.is_object())
    return {};
  auto it = object.find(name);
  if (it == object.end() || !it->is_string())
    return {};
  return it->get<std::string>();
}

unsigned unsignedMember(const Json &object, const char *name) {
  if (!object.is_object())
    return 0;
  auto it = object.find(name);
  if (it == object.end() || !it->is_number_unsigned())
    return 0;
  return it->get<unsigned>();
}

std::string providerErrorMessage(StringRef body) {
  if (body.trim().empty())
    return "(empty body)";
  auto parsed = parseJson(body, "error body");
  if (parsed && parsed->is_object()) {
    const Json &object = *parsed;
    auto it = object.find("error");
    if (it != object.end() && it->is_object()) {
      std::string message = stringMember(*it, "message");
      // OpenAI's code ("invalid_api_key") is more specific than its type.
      std::string type = stringMember(*it, "code");
      if (type.empty())
        type = stringMember(*it, "type");
      if (!message.empty())
        return type.empty() ? message : message + " (" + type + ")";
    }
    if (it != object.end() && it->is_string())
      return it->get<std::string>();
    std::string message = stringMember(object, "message");
    if (!message.empty())
      return message;
  } else if (!parsed) {
    consumeError(parsed.takeError());
  }
  StringRef text = body.trim();
  if (text.size() > 300)
    return sanitizeUtf8(text.take_front(300)) + "...";
  return sanitizeUtf8(text);
}

} // namespace llmptx::llm::wire
