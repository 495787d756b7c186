//===- Provider.h - Providers behind one interface --------------*- C++ -*-===//
//
// The model is a remote, slow, flaky and costly dependency. A Provider turns
// a CompletionRequest into a Completion; createProvider wraps every provider
// in the content-addressed cache, so a second identical run never reaches
// the network. Every function here returns errors as values: nothing throws
// or aborts on bad input, and no message carries an API key.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_PROVIDER_H
#define LLMPTX_LLM_PROVIDER_H

#include "llmptx/LLM/CacheMode.h"
#include "llmptx/LLM/Prompt.h"
#include "llmptx/LLM/Secrets.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmptx::llm {

struct SamplingParams {
  double temperature = 0.2;
  unsigned maxTokens = 16384;
  /// When set, sample i is sent with seed + i, so samples differ yet every
  /// one of them is reproducible.
  std::optional<int64_t> seed;
};

struct CompletionRequest {
  std::vector<ChatMessage> messages;
  SamplingParams sampling;
  /// Empty: the provider's configured model.
  std::string model;
  unsigned sampleIndex = 0;
  std::string templateVersion;
  /// Kernel name or similar, for logs, errors and cache listings only.
  std::string label;
  /// The optimization round that asks (0: the first search), for logs and
  /// scripted models; the prompt itself carries what differs.
  unsigned optimizationRound = 0;
};

struct Completion {
  bool ok = false;
  std::string text;
  std::string error;
  /// The model that answered, as the provider reported it.
  std::string model;
  unsigned promptTokens = 0, completionTokens = 0;
  /// Latency of the model call that produced `text`; on a cache hit, the
  /// latency recorded when the entry was written (so reports built from
  /// completions are reproducible). `wallMs` is the time this call took.
  double latencyMs = 0;
  double wallMs = 0;
  bool cacheHit = false;
  std::string cacheKey;
  int httpStatus = 0;
  unsigned attempts = 0;
  /// The provider kind that produced `text` (the recorded one on a hit).
  std::string provider;
  /// Problems that did not fail the call (a corrupt cache entry that was
  /// ignored, an entry that could not be written, a truncated answer).
  std::vector<std::string> warnings;
};

/// The mode spelled `text`, or an error that lists the valid spellings.
llvm::Expected<CacheMode> parseCacheMode(llvm::StringRef text);

struct ProviderConfig {
  /// openai | anthropic | exec | replay
  std::string kind;
  std::string model;
  /// Empty: https://api.openai.com/v1 or https://api.anthropic.com/v1. A URL
  /// that already ends in /chat/completions or /messages is used as is.
  std::string baseUrl;
  /// exec: run through /bin/sh -c.
  std::string execCommand;
  /// Empty: defaultCacheDir().
  std::string cacheDir;
  CacheMode cacheMode = CacheMode::ReadWrite;

  double connectTimeoutS = 10, totalTimeoutS = 300;
  /// Retries after the first attempt, on timeouts, connection failures,
  /// 408, 429 and 5xx; never on other 4xx.
  unsigned maxRetries = 4;
  /// Bound on concurrent HTTP requests (or exec children) of one provider.
  unsigned maxInFlight = 8;
  /// Backoff before retry k (1-based) is a uniform draw from
  /// [d/2, d] with d = min(retryBaseMs * 2^(k-1), retryMaxMs).
  unsigned retryBaseMs = 500, retryMaxMs = 30000;
  /// A 429 asking to wait longer than this fails at once.
  double maxRetryAfterS = 120;
  /// Larger response bodies (or exec outputs) are refused.
  uint64_t maxResponseBytes = 16ull << 20;
  /// A completion text larger than this (0 = no limit) is a failed call:
  /// neither cached nor returned, and a cached one is not served. The
  /// compiler sets untrusted::kMaxAnswerBytes.
  uint64_t maxAnswerBytes = 0;
  /// openai: newer OpenAI reasoning models want "max_completion_tokens".
  std::string maxTokensField = "max_tokens";
  std::string anthropicVersion = "2023-06-01";
  /// replay: append every miss to this OpenAI batch JSONL file.
  std::string batchExportPath;
  /// Receives progress lines (retries, waits), already redacted; called from
  /// the threads that call complete(), so it must be thread-safe.
  std::function<void(llvm::StringRef)> log;
  /// Values from the environment that could not be used; createProvider
  /// fails with them rather than guessing.
  std::vector<std::string> configErrors;

  /// A default config with LLMPTX_PROVIDER, LLMPTX_MODEL, LLMPTX_BASE_URL,
  /// LLMPTX_EXEC_COMMAND, LLMPTX_CACHE_DIR, LLMPTX_CACHE, LLMPTX_TIMEOUT_S,
  /// LLMPTX_CONNECT_TIMEOUT_S, LLMPTX_MAX_RETRIES, LLMPTX_RETRY_BASE_MS,
  /// LLMPTX_RETRY_MAX_MS, LLMPTX_MAX_IN_FLIGHT, LLMPTX_MAX_TOKENS_FIELD and
  /// LLMPTX_BATCH_EXPORT applied.
  static ProviderConfig fromEnvironment();
};

class Provider {
public:
  virtual ~Provider();
  /// Thread-safe; never throws. A failure is a Completion with ok == false
  /// and `error` set.
  virtual Completion complete(const CompletionRequest &request) = 0;
  virtual llvm::StringRef kind() const = 0;
};

/// Creates the provider of `config.kind`, wrapped in the cache according to
/// `config.cacheMode`; "replay" answers from the cache only.
llvm::Expected<std::unique_ptr<Provider>>
createProvider(const ProviderConfig &config);

/// $XDG_CACHE_HOME/llmptx, or ~/.cache/llmptx.
std::string defaultCacheDir();

/// The API key the provider kind sends: LLMPTX_API_KEY when set (it is the
/// llmptx-specific one and wins), else OPENAI_API_KEY or ANTHROPIC_API_KEY.
std::optional<std::string> apiKeyFor(llvm::StringRef kind);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_PROVIDER_H
