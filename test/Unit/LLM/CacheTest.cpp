//===- CacheTest.cpp - Content-addressed completion cache -----------------===//

#include "MockServer.h"

#include "llmptx/LLM/Cache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <atomic>
#include <fstream>
#include <thread>

using namespace llmptx::llm;
using llmptx::test::ScratchDir;

namespace {

CompletionRequest sampleRequest() {
  CompletionRequest request;
  request.messages = {{"system", "rules"}, {"user", "write vecadd"}};
  request.model = "model-a";
  request.templateVersion = "llmptx-translate-v1";
  request.sampling.temperature = 0.2;
  request.sampling.maxTokens = 4096;
  request.sampling.seed = 7;
  return request;
}

CacheEntry entryFor(const CompletionRequest &request, std::string text) {
  CacheEntry entry;
  entry.request = request;
  entry.completion = std::move(text);
  entry.provider = "openai";
  entry.respondedModel = "model-a-0613";
  entry.latencyMs = 1234.5;
  entry.promptTokens = 10;
  entry.completionTokens = 20;
  return entry;
}

TEST(CacheTest, KeyCoversExactlyTheDocumentedFields) {
  CompletionRequest base = sampleRequest();
  std::string key = computeCacheKey(base);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, computeCacheKey(sampleRequest()));

  auto differs = [&](auto change) {
    CompletionRequest changed = sampleRequest();
    change(changed);
    return computeCacheKey(changed) != key;
  };
  EXPECT_TRUE(differs([](CompletionRequest &r) { r.model = "model-b"; }));
  EXPECT_TRUE(
      differs([](CompletionRequest &r) { r.sampling.temperature = 0.3; }));
  EXPECT_TRUE(differs([](CompletionRequest &r) { r.sampling.maxTokens = 1; }));
  EXPECT_TRUE(differs([](CompletionRequest &r) { r.sampling.seed = 8; }));
  EXPECT_TRUE(
      differs([](CompletionRequest &r) { r.sampling.seed = std::nullopt; }));
  EXPECT_TRUE(differs([](CompletionRequest &r) { r.sampleIndex = 1; }));
  EXPECT_TRUE(differs([](CompletionRequest &r) { r.templateVersion = "v2"; }));
  EXPECT_TRUE(
      differs([](CompletionRequest &r) { r.messages[1].content += "!"; }));
  EXPECT_TRUE(
      differs([](CompletionRequest &r) { r.messages[0].role = "user"; }));
  // The label is for people, not part of the request.
  EXPECT_FALSE(differs([](CompletionRequest &r) { r.label = "vecadd"; }));
}

TEST(CacheTest, StoreThenLookupGivesTheSameBytes) {
  ScratchDir dir;
  CompletionCache cache(dir.file("cache"));
  CompletionRequest request = sampleRequest();
  request.label = "vecadd";
  // Unicode, quotes, backslashes, NUL and control characters survive.
  std::string text = std::string("```ptx\n// \xC3\xA9t\xC3\xA9 \"q\" \\ \t") +
                     std::string(1, '\0') + "\x01\n```\n";
  EXPECT_EQ(cache.lookup(request).status, CompletionCache::LookupStatus::Miss);
  ASSERT_FALSE(bool(cache.store(entryFor(request, text))));
  CompletionCache::Lookup found = cache.lookup(request);
  ASSERT_EQ(found.status, CompletionCache::LookupStatus::Hit);
  EXPECT_EQ(found.entry.completion, text);
  EXPECT_EQ(found.entry.key, computeCacheKey(request));
  EXPECT_EQ(found.entry.provider, "openai");
  EXPECT_EQ(found.entry.respondedModel, "model-a-0613");
  EXPECT_EQ(found.entry.latencyMs, 1234.5);
  EXPECT_EQ(found.entry.promptTokens, 10u);
  EXPECT_EQ(found.entry.completionTokens, 20u);
  EXPECT_EQ(found.entry.request.label, "vecadd");
  EXPECT_EQ(found.entry.created.size(), strlen("2025-01-01T00:00:00Z"));
  EXPECT_EQ(found.entry.path, cache.pathForKey(found.entry.key));
}

TEST(CacheTest, CorruptEntriesAreReportedNeverServed) {
  ScratchDir dir;
  CompletionCache cache(dir.file("cache"));
  CompletionRequest request = sampleRequest();
  ASSERT_FALSE(bool(cache.store(entryFor(request, "answer text"))));
  std::string path = cache.pathForKey(computeCacheKey(request));

  auto rewrite = [&](auto edit) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(buffer));
    std::string content = (*buffer)->getBuffer().str();
    edit(content);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  };
  std::string original;
  rewrite([&](std::string &content) { original = content; });

  // One flipped bit in the completion.
  rewrite([](std::string &content) {
    content[content.find("answer text")] ^= 0x01;
  });
  CompletionCache::Lookup flipped = cache.lookup(request);
  EXPECT_EQ(flipped.status, CompletionCache::LookupStatus::Corrupt);
  EXPECT_NE(flipped.problem.find("checksum mismatch"), std::string::npos);
  EXPECT_NE(flipped.problem.find(path), std::string::npos);

  // Truncated.
  rewrite([&](std::string &content) {
    content = original.substr(0, original.size() / 2);
  });
  CompletionCache::Lookup truncated = cache.lookup(request);
  EXPECT_EQ(truncated.status, CompletionCache::LookupStatus::Corrupt);
  EXPECT_NE(truncated.problem.find("malformed JSON"), std::string::npos);

  // A valid entry of another request, copied under this key.
  rewrite([&](std::string &content) { content = original; });
  CompletionRequest other = sampleRequest();
  other.model = "model-b";
  ASSERT_FALSE(bool(cache.store(entryFor(other, "other answer"))));
  ASSERT_FALSE(bool(llvm::sys::fs::copy_file(
      cache.pathForKey(computeCacheKey(other)), path)));
  CompletionCache::Lookup swapped = cache.lookup(request);
  EXPECT_EQ(swapped.status, CompletionCache::LookupStatus::Corrupt);
  EXPECT_NE(swapped.problem.find("does not match"), std::string::npos);

  CompletionCache::Scan scan = cache.scan();
  EXPECT_EQ(scan.entries.size(), 1u);
  ASSERT_EQ(scan.corrupt.size(), 1u);
  EXPECT_EQ(scan.corrupt[0].first, path);

  // Storing again repairs the entry.
  ASSERT_FALSE(bool(cache.store(entryFor(request, "answer text"))));
  EXPECT_EQ(cache.lookup(request).status, CompletionCache::LookupStatus::Hit);
}

TEST(CacheTest, ConcurrentWritersAndReadersSeeOnlyWholeEntries) {
  ScratchDir dir;
  CompletionCache cache(dir.file("cache"));
  CompletionRequest request = sampleRequest();
  // Big enough that a torn write would be likely to be seen.
  std::string text(256 * 1024, 'p');
  // Readers must only ever hit: an entry exists before they start, and
  // every rewrite replaces it whole.
  ASSERT_FALSE(bool(cache.store(entryFor(request, text))));
  std::atomic<unsigned> hits{0}, misses{0}, corrupt{0}, failedStores{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i)
        if (llvm::Error error = cache.store(entryFor(request, text))) {
          llvm::consumeError(std::move(error));
          ++failedStores;
        }
    });
  for (int r = 0; r < 4; ++r)
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        CompletionCache::Lookup found = cache.lookup(request);
        if (found.status == CompletionCache::LookupStatus::Hit) {
          ++hits;
          EXPECT_EQ(found.entry.completion.size(), text.size());
        } else if (found.status == CompletionCache::LookupStatus::Miss) {
          ++misses;
        } else {
          ++corrupt;
          ADD_FAILURE() << found.problem;
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(corrupt.load(), 0u);
  EXPECT_EQ(failedStores.load(), 0u);
  EXPECT_EQ(misses.load(), 0u);
  EXPECT_EQ(hits.load(), 400u);
  CompletionCache::Scan scan = cache.scan();
  EXPECT_EQ(scan.entries.size(), 1u);
  EXPECT_TRUE(scan.corrupt.empty());
  // No temporary file is left behind.
  std::error_code ec;
  unsigned files = 0;
  for (llvm::sys::fs::recursive_directory_iterator it(dir.file("cache"), ec),
       end;
       !ec && it != end; it.increment(ec))
    if (!llvm::sys::fs::is_directory(it->path()))
      ++files;
  EXPECT_EQ(files, 1u);
}

TEST(CacheTest, RefusesToStoreAKey) {
  ScratchDir dir;
  CompletionCache cache(dir.file("cache"));
  setenv("OPENAI_API_KEY", "sk-cache-test-secret", 1);
  CompletionRequest request = sampleRequest();
  request.messages[1].content += " sk-cache-test-secret";
  llvm::Error error = cache.store(entryFor(request, "x"));
  unsetenv("OPENAI_API_KEY");
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("API key"),
            std::string::npos);
  EXPECT_TRUE(cache.scan().entries.empty());
}

TEST(CacheTest, MissingDirectoryIsAnEmptyCache) {
  CompletionCache cache("/nonexistent/llmptx-cache-test");
  EXPECT_EQ(cache.lookup(sampleRequest()).status,
            CompletionCache::LookupStatus::Miss);
  CompletionCache::Scan scan = cache.scan();
  EXPECT_TRUE(scan.entries.empty());
  EXPECT_TRUE(scan.corrupt.empty());
}

} // namespace
