//===- Cache.h - Content-addressed completion cache -------------*- C++ -*-===//
//
// One JSON file per completion under <dir>/v1/<k0k1>/<key>.json. The key is
// the SHA-256 of the model, the sampling parameters, the sample index, the
// template version and the messages; the provider kind is recorded in the
// entry but is not part of the key, so a `replay` run (or any other kind)
// answers from entries that another kind wrote for the same model. Entries
// are written to a unique temporary file and renamed into place, so readers
// and concurrent writers (threads or processes) only ever see whole entries;
// each carries a checksum that is checked on every read.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_CACHE_H
#define LLMPTX_LLM_CACHE_H

#include "llmptx/LLM/Provider.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx::llm {

/// Hex SHA-256 cache key of \p request; `request.model` must already be the
/// effective model (the provider's when the request left it empty).
std::string computeCacheKey(const CompletionRequest &request);

struct CacheEntry {
  std::string key;
  CompletionRequest request;
  std::string completion;
  /// Metadata, not part of the key.
  std::string provider;       // kind that produced the completion
  std::string respondedModel; // model name the provider reported
  double latencyMs = 0;
  unsigned promptTokens = 0, completionTokens = 0;
  std::string created; // UTC, ISO 8601
  /// Where the entry lives (filled by lookups and scans).
  std::string path;
};

class CompletionCache {
public:
  explicit CompletionCache(std::string dir);

  llvm::StringRef dir() const { return root; }
  std::string pathForKey(llvm::StringRef key) const;

  enum class LookupStatus { Hit, Miss, Corrupt };
  struct Lookup {
    LookupStatus status = LookupStatus::Miss;
    /// The request's key, whatever the status.
    std::string key;
    CacheEntry entry;
    /// Corrupt: what is wrong, with the file's path.
    std::string problem;
  };
  Lookup lookup(const CompletionRequest &request) const;

  /// Writes \p entry atomically (its key is recomputed from the request).
  /// Refuses an entry that would contain an API key.
  llvm::Error store(CacheEntry entry) const;

  struct Scan {
    std::vector<CacheEntry> entries;
    /// (path, problem) of every entry that failed its checks.
    std::vector<std::pair<std::string, std::string>> corrupt;
    /// Why the cache could not be scanned at all (the directory is a file,
    /// cannot be read); empty when it was, or does not exist yet.
    std::string problem;
  };
  /// Reads and checks every entry, sorted by path.
  Scan scan() const;

  /// Parses and checks one entry file; \p expectedKey (when non-empty) must
  /// match the key recomputed from the stored request.
  static llvm::Expected<CacheEntry> readEntryFile(llvm::StringRef path,
                                                  llvm::StringRef expectedKey);

private:
  std::string root;
};

} // namespace llmptx::llm

#endif // LLMPTX_LLM_CACHE_H
