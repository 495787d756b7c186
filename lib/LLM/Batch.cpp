//===- Batch.cpp - OpenAI batch JSONL export and result import ------------===//
//
// The exported body is exactly what the openai provider would send, so an
// imported answer is stored under the same key a live call would use. The
// import trusts nothing in the results file: each custom_id must name a line
// of the exported file, and the key is recomputed from that line's body.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Batch.h"

#include "Wire.h"

#include "llmptx/LLM/Cache.h"
#include "llmptx/LLM/Secrets.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>
#include <unistd.h>

using namespace llvm;
using llmptx::llm::wire::Json;

namespace llmptx::llm {

namespace {

std::string customId(const CompletionRequest &request) {
  return formatv("llmptx:{0}:{1}:{2}", computeCacheKey(request),
                 request.sampleIndex, request.templateVersion)
      .str();
}

struct ParsedCustomId {
  std::string key;
  unsigned sampleIndex = 0;
  std::string templateVersion;
};

std::optional<ParsedCustomId> parseCustomId(StringRef id) {
  if (!id.consume_front("llmptx:"))
    return std::nullopt;
  ParsedCustomId parsed;
  parsed.key = id.take_front(64).str();
  id = id.drop_front(64);
  if (parsed.key.size() != 64 || !id.consume_front(":"))
    return std::nullopt;
  auto [index, version] = id.split(':');
  if (index.getAsInteger(10, parsed.sampleIndex))
    return std::nullopt;
  parsed.templateVersion = version.str();
  return parsed;
}

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(
        buffer.getError(),
        path + ": cannot read: " + buffer.getError().message());
  return std::move(*buffer);
}

/// The request an exported line stands for, checked against its custom_id.
Expected<std::pair<std::string, CompletionRequest>>
requestFromBatchLine(StringRef line, StringRef where) {
  auto parsed = wire::parseJson(line, where);
  if (!parsed)
    return parsed.takeError();
  std::string id = wire::stringMember(*parsed, "custom_id");
  auto parsedId = parseCustomId(id);
  if (!parsedId)
    return createStringError(where + ": custom_id '" + id +
                             "' is not an llmptx id");
  const Json body = parsed->value("body", Json());
  if (!body.is_object())
    return createStringError(where + ": line has no request body");
  CompletionRequest request;
  request.model = wire::stringMember(body, "model");
  auto messages =
      wire::messagesFromJsonValue(body.value("messages", Json()), where);
  if (!messages)
    return messages.takeError();
  request.messages = std::move(*messages);
  if (body.contains("temperature") && body["temperature"].is_number())
    request.sampling.temperature = body["temperature"].get<double>();
  for (const char *field : {"max_tokens", "max_completion_tokens"})
    if (body.contains(field) && body[field].is_number_unsigned())
      request.sampling.maxTokens = body[field].get<unsigned>();
  request.sampleIndex = parsedId->sampleIndex;
  request.templateVersion = parsedId->templateVersion;
  if (body.contains("seed") && body["seed"].is_number_integer())
    request.sampling.seed =
        body["seed"].get<int64_t>() - static_cast<int64_t>(request.sampleIndex);
  if (computeCacheKey(request) != parsedId->key)
    return createStringError(where + ": custom_id key does not match the body");
  return std::make_pair(id, std::move(request));
}

} // namespace

std::string formatBatchLine(const CompletionRequest &request,
                            StringRef maxTokensField) {
  try {
    Json line = Json::object();
    line["custom_id"] = customId(request);
    line["method"] = "POST";
    line["url"] = "/v1/chat/completions";
    line["body"] = wire::openAIChatBody(request, maxTokensField);
    return wire::dumpJson(line);
  } catch (const std::exception &) {
    return "{}";
  }
}

Error appendBatchLines(StringRef path, ArrayRef<CompletionRequest> requests,
                       StringRef maxTokensField) {
  std::string content;
  for (const CompletionRequest &request : requests) {
    if (request.model.empty())
      return createStringError("batch export: a request has no model (set "
                               "the model option or LLMPTX_MODEL)");
    content += formatBatchLine(request, maxTokensField);
    content += "\n";
  }
  if (containsSecret(content))
    return createStringError("batch export to " + path +
                             " refused: a request contains an API key value");
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  int fd;
  if (std::error_code ec = sys::fs::openFileForWrite(
          path, fd, sys::fs::CD_OpenAlways, sys::fs::OF_Append))
    return createStringError(ec, "cannot open batch file " + path + ": " +
                                     ec.message());
  // An exclusive lock keeps lines of concurrent processes whole.
  std::error_code lockError = sys::fs::lockFile(fd);
  StringRef remaining = content;
  std::error_code writeError;
  while (!remaining.empty()) {
    ssize_t written = ::write(fd, remaining.data(), remaining.size());
    if (written < 0) {
      if (errno == EINTR)
        continue;
      writeError = std::error_code(errno, std::generic_category());
      break;
    }
    remaining = remaining.drop_front(written);
  }
  if (!lockError)
    sys::fs::unlockFile(fd);
  ::close(fd);
  if (writeError)
    return createStringError(writeError, "cannot write batch file " + path +
                                             ": " + writeError.message());
  return Error::success();
}

Expected<BatchImportResult> importBatchResults(StringRef requestsPath,
                                               StringRef resultsPath,
                                               StringRef cacheDir) {
  try {
    auto requestsBuffer = readFile(requestsPath);
    if (!requestsBuffer)
      return requestsBuffer.takeError();
    auto resultsBuffer = readFile(resultsPath);
    if (!resultsBuffer)
      return resultsBuffer.takeError();

    StringMap<CompletionRequest> requests;
    SmallVector<StringRef, 0> lines;
    (*requestsBuffer)->getBuffer().split(lines, '\n');
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].trim().empty())
        continue;
      std::string where = formatv("{0}:{1}", requestsPath, i + 1).str();
      auto request = requestFromBatchLine(lines[i], where);
      if (!request)
        return request.takeError();
      requests[request->first] = std::move(request->second);
    }

    BatchImportResult result;
    CompletionCache cache{cacheDir.str()};
    lines.clear();
    (*resultsBuffer)->getBuffer().split(lines, '\n');
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].trim().empty())
        continue;
      std::string where = formatv("{0}:{1}", resultsPath, i + 1).str();
      auto fail = [&](const Twine &problem) {
        result.errors.push_back(redactSecrets((where + ": " + problem).str()));
      };
      auto parsed = wire::parseJson(lines[i], where);
      if (!parsed) {
        result.errors.push_back(toString(parsed.takeError()));
        continue;
      }
      std::string id = wire::stringMember(*parsed, "custom_id");
      auto it = requests.find(id);
      if (it == requests.end()) {
        fail("custom_id '" + id + "' is not in " + requestsPath);
        continue;
      }
      if (parsed->contains("error") && !(*parsed)["error"].is_null()) {
        fail(id + ": the batch reports an error: " +
             wire::providerErrorMessage(
                 wire::dumpJson(Json{{"error", (*parsed)["error"]}})));
        continue;
      }
      const Json response = parsed->value("response", Json());
      unsigned status = wire::unsignedMember(response, "status_code");
      const Json body =
          response.is_object() ? response.value("body", Json()) : Json();
      if (status != 200) {
        fail(formatv("{0}: status {1}: {2}", id, status,
                     wire::providerErrorMessage(wire::dumpJson(body)))
                 .str());
        continue;
      }
      Completion completion;
      std::string problem = wire::readOpenAIResponse(body, completion);
      if (!problem.empty()) {
        fail(id + ": " + problem);
        continue;
      }
      CacheEntry entry;
      entry.request = it->second;
      entry.completion = wire::sanitizeUtf8(completion.text);
      entry.provider = "openai-batch";
      entry.respondedModel = completion.model;
      entry.promptTokens = completion.promptTokens;
      entry.completionTokens = completion.completionTokens;
      if (Error error = cache.store(std::move(entry))) {
        fail(toString(std::move(error)));
        continue;
      }
      ++result.imported;
    }
    return result;
  } catch (const std::exception &error) {
    return createStringError(std::string("batch import failed: ") +
                             error.what());
  }
}

} // namespace llmptx::llm
