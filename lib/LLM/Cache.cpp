//===- Cache.cpp - Content-addressed completion cache ---------------------===//
//
// The checksum covers the canonical (sorted, compact) dump of the entry
// without its checksum field, so an entry stays checkable after a reader
// pretty-prints it, and any change to its content is caught. The key is
// recomputed from the stored request on every read, so a file that was
// renamed or edited by hand is never served for another request.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Cache.h"

#include "Wire.h"

#include "llmptx/LLM/Secrets.h"
#include "llmptx/Support/FileIO.h"
#include "llmptx/Support/UtcTime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <ctime>

using namespace llvm;
using llmptx::llm::wire::Json;

namespace llmptx::llm {

namespace {

constexpr StringLiteral EntryFormat = "llmptx-cache-entry-v1";

std::string sha256Hex(StringRef data) {
  SHA256 sha;
  sha.update(data);
  return toHex(sha.final(), /*LowerCase=*/true);
}

std::string entryChecksum(const Json &entryWithoutChecksum) {
  return "sha256:" + sha256Hex(wire::dumpJson(entryWithoutChecksum));
}

bool isHexKey(StringRef key) {
  return key.size() == 64 && llvm::all_of(key, [](char c) {
           return isDigit(c) || (c >= 'a' && c <= 'f');
         });
}

Expected<CacheEntry> parseEntry(StringRef text, StringRef path,
                                StringRef expectedKey) {
  auto fail = [&](const Twine &problem) {
    return createStringError(path + ": " + problem);
  };
  auto parsed = wire::parseJson(text, path);
  if (!parsed)
    return parsed.takeError();
  Json entry = std::move(*parsed);
  if (!entry.is_object() || wire::stringMember(entry, "format") != EntryFormat)
    return fail("not an " + EntryFormat + " cache entry");
  std::string checksum = wire::stringMember(entry, "checksum");
  if (checksum.empty())
    return fail("entry has no checksum");
  entry.erase("checksum");
  if (entryChecksum(entry) != checksum)
    return fail("checksum mismatch (the entry was altered or damaged)");

  auto request = wire::requestFromKeyMaterial(entry.value("request", Json()));
  if (!request)
    return fail(toString(request.takeError()));
  CacheEntry result;
  result.request = std::move(*request);
  result.request.label = wire::stringMember(entry, "label");
  result.key = computeCacheKey(result.request);
  if (result.key != wire::stringMember(entry, "key") ||
      (!expectedKey.empty() && result.key != expectedKey))
    return fail("the stored key does not match the stored request");
  if (!entry.contains("completion") || !entry["completion"].is_string())
    return fail("entry has no completion text");
  result.completion = entry["completion"].get<std::string>();
  result.provider = wire::stringMember(entry, "provider");
  result.respondedModel = wire::stringMember(entry, "model");
  if (entry.contains("latency_ms") && entry["latency_ms"].is_number())
    result.latencyMs = entry["latency_ms"].get<double>();
  result.promptTokens = wire::unsignedMember(entry, "prompt_tokens");
  result.completionTokens = wire::unsignedMember(entry, "completion_tokens");
  result.created = wire::stringMember(entry, "created");
  result.path = path.str();
  return result;
}

} // namespace

std::string computeCacheKey(const CompletionRequest &request) {
  try {
    return sha256Hex(wire::dumpJson(wire::keyMaterial(request)));
  } catch (const std::exception &) {
    return std::string(64, '0');
  }
}

CompletionCache::CompletionCache(std::string dir) : root(std::move(dir)) {}

std::string CompletionCache::pathForKey(StringRef key) const {
  SmallString<256> path(root);
  sys::path::append(path, "v1", key.take_front(2), key + ".json");
  return std::string(path);
}

Expected<CacheEntry> CompletionCache::readEntryFile(StringRef path,
                                                    StringRef expectedKey) {
  std::string text;
  if (auto problem = untrusted::readRegularFile(path.str(), text,
                                                untrusted::kMaxDocumentBytes))
    return createStringError(path + ": cannot read: " + *problem);
  try {
    return parseEntry(text, path, expectedKey);
  } catch (const std::exception &error) {
    return createStringError(path + ": unreadable entry: " + error.what());
  }
}

CompletionCache::Lookup
CompletionCache::lookup(const CompletionRequest &request) const {
  Lookup result;
  result.key = computeCacheKey(request);
  const std::string &key = result.key;
  std::string path = pathForKey(key);
  if (!sys::fs::exists(path))
    return result;
  auto entry = readEntryFile(path, key);
  if (!entry) {
    std::string problem = toString(entry.takeError());
    // Removed between the check and the read: an ordinary miss.
    if (!sys::fs::exists(path))
      return result;
    result.status = LookupStatus::Corrupt;
    result.problem = "ignored corrupt cache entry " + problem;
    return result;
  }
  result.status = LookupStatus::Hit;
  result.entry = std::move(*entry);
  return result;
}

Error CompletionCache::store(CacheEntry entry) const {
  std::string content;
  std::string key;
  try {
    key = computeCacheKey(entry.request);
    Json object = Json::object();
    object["format"] = EntryFormat;
    object["key"] = key;
    object["request"] = wire::keyMaterial(entry.request);
    object["label"] = wire::sanitizeUtf8(entry.request.label);
    object["completion"] = wire::sanitizeUtf8(entry.completion);
    object["provider"] = wire::sanitizeUtf8(entry.provider);
    object["model"] = wire::sanitizeUtf8(entry.respondedModel);
    object["latency_ms"] = entry.latencyMs;
    object["prompt_tokens"] = entry.promptTokens;
    object["completion_tokens"] = entry.completionTokens;
    object["created"] = entry.created.empty() ? utcTimestamp() : entry.created;
    object["checksum"] = entryChecksum(object);
    content = wire::dumpJson(object, 1) + "\n";
  } catch (const std::exception &error) {
    return createStringError(std::string("cannot encode cache entry: ") +
                             error.what());
  }
  if (containsSecret(content))
    return createStringError(
        "cache entry not written: it would contain an API key value from the "
        "environment");

  std::string path = pathForKey(key);
  StringRef dir = sys::path::parent_path(path);
  if (std::error_code ec = sys::fs::create_directories(dir))
    return createStringError(ec, "cannot create cache directory " + dir + ": " +
                                     ec.message());
  // Readers and concurrent writers only ever see a complete file; a FIFO
  // or a device planted at the entry's path is replaced, not written into.
  if (auto problem = untrusted::writeFileAtomically(
          path, content, untrusted::SpecialFiles::Replace))
    return createStringError("cannot write cache entry " + path + ": " +
                             *problem);
  return Error::success();
}

CompletionCache::Scan CompletionCache::scan() const {
  Scan result;
  SmallString<256> base(root);
  sys::path::append(base, "v1");
  // A cache that does not exist yet is empty; one that is not a directory
  // is an error, not an empty cache.
  for (StringRef dir : {StringRef(root), StringRef(base)}) {
    sys::fs::file_status status;
    if (sys::fs::status(dir, status))
      return result;
    if (!sys::fs::is_directory(status)) {
      result.problem = (dir + " is not a directory").str();
      return result;
    }
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (sys::fs::directory_iterator shard(base, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    if (sys::fs::is_directory(shard->path()) == false)
      continue;
    std::error_code inner;
    for (sys::fs::directory_iterator file(shard->path(), inner), fileEnd;
         !inner && file != fileEnd; file.increment(inner)) {
      StringRef name = sys::path::filename(file->path());
      if (name.starts_with(".") || !name.ends_with(".json"))
        continue;
      files.push_back(file->path());
    }
    if (inner)
      result.corrupt.push_back(
          {shard->path(), "cannot list: " + inner.message()});
  }
  if (ec)
    result.problem = "cannot list " + base.str().str() + ": " + ec.message();
  llvm::sort(files);
  for (const std::string &path : files) {
    StringRef stem = sys::path::stem(path);
    if (!isHexKey(stem)) {
      result.corrupt.push_back({path, "file name is not a cache key"});
      continue;
    }
    auto entry = readEntryFile(path, stem);
    if (!entry) {
      std::string problem = toString(entry.takeError());
      StringRef shortProblem = problem;
      shortProblem.consume_front(path + ": ");
      result.corrupt.push_back({path, shortProblem.str()});
      continue;
    }
    result.entries.push_back(std::move(*entry));
  }
  return result;
}

} // namespace llmptx::llm
