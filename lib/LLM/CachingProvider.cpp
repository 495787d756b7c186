//===- CachingProvider.cpp - The cache in front of every provider ---------===//
//
// A hit returns the stored text and the stored metadata, so a second run
// produces byte-identical completions (and reports) without the network. A
// corrupt entry is reported as a warning and treated as a miss; in
// readwrite mode the fresh answer then replaces it.
//
//===----------------------------------------------------------------------===//

#include "ProviderKinds.h"
#include "Wire.h"

#include "llmptx/LLM/Batch.h"
#include "llmptx/LLM/Cache.h"
#include "llmptx/LLM/Secrets.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <mutex>
#include <set>

using namespace llvm;

namespace llmptx::llm {

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

Completion completionFromEntry(const CacheEntry &entry) {
  Completion completion;
  completion.ok = true;
  completion.text = entry.completion;
  completion.model =
      entry.respondedModel.empty() ? entry.request.model : entry.respondedModel;
  completion.promptTokens = entry.promptTokens;
  completion.completionTokens = entry.completionTokens;
  completion.latencyMs = entry.latencyMs;
  completion.cacheHit = true;
  completion.cacheKey = entry.key;
  completion.provider = entry.provider;
  return completion;
}

std::string describe(const CompletionRequest &request) {
  std::string text = request.label.empty() ? "request" : request.label;
  return text + " (model '" + request.model + "', sample " +
         std::to_string(request.sampleIndex) + ")";
}

/// An answer is checked before anything keeps it: one over the configured
/// size is a failed call, and an API key it quotes is redacted, so the key
/// reaches neither the cache, nor a repair request, nor the output module
/// or a bundle.
void admitAnswer(const ProviderConfig &config, Completion &completion) {
  if (config.maxAnswerBytes && completion.text.size() > config.maxAnswerBytes) {
    completion.ok = false;
    completion.error =
        formatv("the answer is {0} bytes, more than the {1} an answer may be",
                completion.text.size(), config.maxAnswerBytes)
            .str();
    completion.text.clear();
    return;
  }
  completion.text = redactSecrets(wire::sanitizeUtf8(completion.text));
}

class CachingProvider : public Provider {
public:
  CachingProvider(const ProviderConfig &config, std::string cacheDir,
                  std::unique_ptr<Provider> inner)
      : config(config), cache(std::move(cacheDir)), inner(std::move(inner)) {}

  StringRef kind() const override { return inner->kind(); }

  Completion complete(const CompletionRequest &original) override {
    auto start = std::chrono::steady_clock::now();
    CompletionRequest request = withEffectiveModel(original, config);
    std::vector<std::string> warnings;
    std::string key;
    try {
      if (config.cacheMode == CacheMode::Off) {
        key = computeCacheKey(request);
      } else {
        CompletionCache::Lookup found = cache.lookup(request);
        key = found.key;
        if (found.status == CompletionCache::LookupStatus::Hit) {
          Completion completion = completionFromEntry(found.entry);
          admitAnswer(config, completion);
          completion.wallMs = millisecondsSince(start);
          return completion;
        }
        if (found.status == CompletionCache::LookupStatus::Corrupt)
          warnings.push_back(redactSecrets(found.problem));
      }
    } catch (const std::exception &error) {
      warnings.push_back(std::string("cache lookup failed: ") + error.what());
    }

    Completion completion = inner->complete(request);
    completion.cacheKey = key;
    if (completion.ok)
      admitAnswer(config, completion);
    if (completion.ok) {
      if (config.cacheMode == CacheMode::ReadWrite) {
        CacheEntry entry;
        entry.request = request;
        entry.completion = completion.text;
        entry.provider = inner->kind().str();
        entry.respondedModel = completion.model;
        entry.latencyMs = completion.latencyMs;
        entry.promptTokens = completion.promptTokens;
        entry.completionTokens = completion.completionTokens;
        if (Error error = cache.store(std::move(entry)))
          warnings.push_back(redactSecrets(toString(std::move(error))));
      }
    }
    completion.warnings.insert(completion.warnings.begin(), warnings.begin(),
                               warnings.end());
    completion.wallMs = millisecondsSince(start);
    return completion;
  }

private:
  ProviderConfig config;
  CompletionCache cache;
  std::unique_ptr<Provider> inner;
};

class ReplayProvider : public Provider {
public:
  ReplayProvider(const ProviderConfig &config, std::string cacheDir)
      : config(config), cache(std::move(cacheDir)) {}

  StringRef kind() const override { return "replay"; }

  Completion complete(const CompletionRequest &original) override {
    auto start = std::chrono::steady_clock::now();
    Completion completion;
    completion.provider = "replay";
    try {
      CompletionRequest request = withEffectiveModel(original, config);
      CompletionCache::Lookup found = cache.lookup(request);
      completion.cacheKey = found.key;
      switch (found.status) {
      case CompletionCache::LookupStatus::Hit:
        completion = completionFromEntry(found.entry);
        admitAnswer(config, completion);
        break;
      case CompletionCache::LookupStatus::Corrupt:
        completion.error = "replay: " + found.problem;
        break;
      case CompletionCache::LookupStatus::Miss:
        completion.error =
            formatv("replay: no cache entry for {0} (key {1}) in {2}",
                    describe(request), completion.cacheKey, cache.dir())
                .str();
        exportMiss(request, completion);
        break;
      }
    } catch (const std::exception &error) {
      completion.ok = false;
      completion.error = std::string("replay: internal error: ") + error.what();
    }
    completion.error = redactSecrets(completion.error);
    completion.wallMs = millisecondsSince(start);
    return completion;
  }

private:
  /// With a batch export path, every miss becomes one batch line (once per
  /// key and process), so a replay run doubles as the export step.
  void exportMiss(const CompletionRequest &request, Completion &completion) {
    if (config.batchExportPath.empty())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!exported.insert(completion.cacheKey).second) {
        completion.error +=
            "; already appended to batch file " + config.batchExportPath;
        return;
      }
    }
    if (Error error = appendBatchLines(config.batchExportPath, {request},
                                       config.maxTokensField))
      completion.warnings.push_back(toString(std::move(error)));
    else
      completion.error += "; appended to batch file " + config.batchExportPath;
  }

  ProviderConfig config;
  CompletionCache cache;
  std::mutex mutex;
  std::set<std::string> exported;
};

} // namespace

std::unique_ptr<Provider>
createCachingProvider(const ProviderConfig &config, std::string cacheDir,
                      std::unique_ptr<Provider> inner) {
  return std::make_unique<CachingProvider>(config, std::move(cacheDir),
                                           std::move(inner));
}

std::unique_ptr<Provider> createReplayProvider(const ProviderConfig &config,
                                               std::string cacheDir) {
  return std::make_unique<ReplayProvider>(config, std::move(cacheDir));
}

} // namespace llmptx::llm
