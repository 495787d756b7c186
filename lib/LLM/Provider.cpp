//===- Provider.cpp - Provider configuration and construction -------------===//
//
// Configuration problems (an unknown kind, a missing model, a malformed
// number in the environment) fail createProvider with a message that names
// the option or variable, instead of surfacing later as a failed call.
//
//===----------------------------------------------------------------------===//

#include "ProviderKinds.h"

#include "llmptx/LLM/Provider.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace llmptx::llm {

namespace {

std::optional<std::string> environment(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return std::string(value);
}

void readUnsigned(const char *name, unsigned &field,
                  std::vector<std::string> &errors) {
  auto value = environment(name);
  if (!value)
    return;
  unsigned parsed;
  if (StringRef(*value).trim().getAsInteger(10, parsed))
    errors.push_back(
        formatv("{0}='{1}' is not a non-negative integer", name, *value).str());
  else
    field = parsed;
}

void readSeconds(const char *name, double &field,
                 std::vector<std::string> &errors) {
  auto value = environment(name);
  if (!value)
    return;
  double parsed;
  if (StringRef(*value).trim().getAsDouble(parsed) || !(parsed > 0))
    errors.push_back(
        formatv("{0}='{1}' is not a positive number of seconds", name, *value)
            .str());
  else
    field = parsed;
}

} // namespace

Provider::~Provider() = default;

Expected<CacheMode> parseCacheMode(StringRef text) {
  if (std::optional<CacheMode> mode = symbolizeCacheMode(text))
    return *mode;
  return createStringError("unknown cache mode '" + text +
                           "' (expected readwrite, read or off)");
}

ProviderConfig ProviderConfig::fromEnvironment() {
  ProviderConfig config;
  if (auto value = environment("LLMPTX_PROVIDER"))
    config.kind = *value;
  if (auto value = environment("LLMPTX_MODEL"))
    config.model = *value;
  if (auto value = environment("LLMPTX_BASE_URL"))
    config.baseUrl = *value;
  if (auto value = environment("LLMPTX_EXEC_COMMAND"))
    config.execCommand = *value;
  if (auto value = environment("LLMPTX_CACHE_DIR"))
    config.cacheDir = *value;
  if (auto value = environment("LLMPTX_BATCH_EXPORT"))
    config.batchExportPath = *value;
  if (auto value = environment("LLMPTX_MAX_TOKENS_FIELD")) {
    if (*value == "max_tokens" || *value == "max_completion_tokens")
      config.maxTokensField = *value;
    else
      config.configErrors.push_back(
          "LLMPTX_MAX_TOKENS_FIELD='" + *value +
          "' (expected max_tokens or max_completion_tokens)");
  }
  if (auto value = environment("LLMPTX_CACHE")) {
    auto mode = parseCacheMode(*value);
    if (mode)
      config.cacheMode = *mode;
    else
      config.configErrors.push_back("LLMPTX_CACHE: " +
                                    toString(mode.takeError()));
  }
  readSeconds("LLMPTX_TIMEOUT_S", config.totalTimeoutS, config.configErrors);
  readSeconds("LLMPTX_CONNECT_TIMEOUT_S", config.connectTimeoutS,
              config.configErrors);
  readUnsigned("LLMPTX_MAX_RETRIES", config.maxRetries, config.configErrors);
  readUnsigned("LLMPTX_RETRY_BASE_MS", config.retryBaseMs, config.configErrors);
  readUnsigned("LLMPTX_RETRY_MAX_MS", config.retryMaxMs, config.configErrors);
  readUnsigned("LLMPTX_MAX_IN_FLIGHT", config.maxInFlight, config.configErrors);
  return config;
}

std::string defaultCacheDir() {
  SmallString<256> path;
  if (auto xdg = environment("XDG_CACHE_HOME")) {
    path = *xdg;
  } else if (!sys::path::cache_directory(path)) {
    // No home directory: a per-user folder under the temp directory.
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, path);
  }
  sys::path::append(path, "llmptx");
  return std::string(path);
}

std::optional<std::string> apiKeyFor(StringRef kind) {
  if (auto key = environment("LLMPTX_API_KEY"))
    return key;
  if (kind == "openai")
    return environment("OPENAI_API_KEY");
  if (kind == "anthropic")
    return environment("ANTHROPIC_API_KEY");
  return std::nullopt;
}

CompletionRequest withEffectiveModel(const CompletionRequest &request,
                                     const ProviderConfig &config) {
  CompletionRequest effective = request;
  if (effective.model.empty())
    effective.model = config.model;
  return effective;
}

Expected<std::unique_ptr<Provider>>
createProvider(const ProviderConfig &config) {
  if (!config.configErrors.empty())
    return createStringError("invalid provider configuration: " +
                             join(config.configErrors, "; "));
  StringRef kind = config.kind;
  if (kind.empty())
    return createStringError(
        "no provider configured: set the provider option or LLMPTX_PROVIDER "
        "to openai, anthropic, exec or replay");
  if (kind != "openai" && kind != "anthropic" && kind != "exec" &&
      kind != "replay")
    return createStringError("unknown provider kind '" + kind +
                             "' (expected openai, anthropic, exec or replay)");
  if ((kind == "openai" || kind == "anthropic") && config.model.empty())
    return createStringError("provider '" + kind +
                             "' needs a model: set the model option or "
                             "LLMPTX_MODEL");
  if (kind == "replay" && config.model.empty())
    return createStringError(
        "provider 'replay' needs the model whose cache entries it answers "
        "from (e.g. model 'curated'): set the model option or LLMPTX_MODEL");
  if (kind == "replay" && config.cacheMode == CacheMode::Off)
    return createStringError(
        "provider 'replay' answers from the cache only; cache mode 'off' "
        "leaves it nothing to answer from");
  if (kind == "exec" && StringRef(config.execCommand).trim().empty())
    return createStringError("provider 'exec' needs a command: set the "
                             "exec-command option or LLMPTX_EXEC_COMMAND");
  if (!config.baseUrl.empty() && kind != "exec" && kind != "replay" &&
      !StringRef(config.baseUrl).starts_with("http://") &&
      !StringRef(config.baseUrl).starts_with("https://"))
    return createStringError("base URL '" + config.baseUrl +
                             "' must start with http:// or https://");
  if (!(config.totalTimeoutS > 0) || !(config.connectTimeoutS > 0))
    return createStringError("timeouts must be positive");
  if (config.maxInFlight == 0)
    return createStringError("maxInFlight must be at least 1");

  std::string cacheDir =
      config.cacheDir.empty() ? defaultCacheDir() : config.cacheDir;
  if (kind == "replay")
    return createReplayProvider(config, std::move(cacheDir));
  std::unique_ptr<Provider> inner;
  if (kind == "openai")
    inner = createOpenAIProvider(config);
  else if (kind == "anthropic")
    inner = createAnthropicProvider(config);
  else
    inner = createExecProvider(config);
  return createCachingProvider(config, std::move(cacheDir), std::move(inner));
}

} // namespace llmptx::llm
