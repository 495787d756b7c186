//===- BatchTest.cpp - OpenAI batch JSONL export and import ---------------===//

#include "MockServer.h"

#include "llmptx/LLM/Batch.h"
#include "llmptx/LLM/Cache.h"

#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"

#include <fstream>
#include <thread>

using namespace llmptx::llm;
using llmptx::test::ScratchDir;

namespace {

CompletionRequest request(unsigned sample) {
  CompletionRequest result;
  result.messages = {{"user", "write k"}};
  result.model = "gpt-test";
  result.sampleIndex = sample;
  result.sampling.seed = 10;
  result.templateVersion = "llmptx-translate-v1";
  return result;
}

TEST(BatchTest, LineIsAnOpenAIBatchRequest) {
  nlohmann::json line = nlohmann::json::parse(formatBatchLine(request(2)));
  EXPECT_EQ(line["method"], "POST");
  EXPECT_EQ(line["url"], "/v1/chat/completions");
  EXPECT_EQ(line["custom_id"],
            "llmptx:" + computeCacheKey(request(2)) + ":2:llmptx-translate-v1");
  EXPECT_EQ(line["body"]["seed"], 12);
  EXPECT_EQ(line["body"]["model"], "gpt-test");
  EXPECT_FALSE(line["body"].contains("llmptx"))
      << "the batch API rejects unknown body fields";
  nlohmann::json newer = nlohmann::json::parse(
      formatBatchLine(request(0), "max_completion_tokens"));
  EXPECT_TRUE(newer["body"].contains("max_completion_tokens"));
  EXPECT_FALSE(newer["body"].contains("max_tokens"));
}

TEST(BatchTest, ConcurrentAppendsKeepLinesWhole) {
  ScratchDir dir;
  std::string path = dir.file("batch.jsonl");
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (unsigned i = 0; i < 20; ++i) {
        CompletionRequest big = request(t * 100 + i);
        big.messages[0].content = std::string(20000, 'a' + t);
        EXPECT_FALSE(bool(appendBatchLines(path, {big})));
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buffer));
  llvm::SmallVector<llvm::StringRef, 0> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  ASSERT_EQ(lines.size(), 160u);
  for (llvm::StringRef line : lines)
    EXPECT_NO_THROW(nlohmann::json::parse(line.begin(), line.end()));
}

TEST(BatchTest, ImportChecksEveryLine) {
  ScratchDir dir;
  std::string requests = dir.file("batch.jsonl");
  ASSERT_FALSE(bool(appendBatchLines(requests, {request(0), request(1)})));
  std::string id0 =
      nlohmann::json::parse(formatBatchLine(request(0)))["custom_id"]
          .get<std::string>();
  std::string id1 =
      nlohmann::json::parse(formatBatchLine(request(1)))["custom_id"]
          .get<std::string>();
  nlohmann::json ok = {
      {"custom_id", id1},
      {"response",
       {{"status_code", 200},
        {"body",
         {{"model", "gpt-test-1"},
          {"choices",
           {{{"message", {{"role", "assistant"}, {"content", "answer 1"}}},
             {"finish_reason", "stop"}}}},
          {"usage", {{"prompt_tokens", 3}, {"completion_tokens", 4}}}}}}},
      {"error", nullptr}};
  nlohmann::json empty = {{"custom_id", id0},
                          {"response",
                           {{"status_code", 200},
                            {"body", {{"choices", nlohmann::json::array()}}}}},
                          {"error", nullptr}};
  std::string results = dir.file("results.jsonl");
  std::ofstream(results) << empty.dump() << "\n" << ok.dump() << "\n";

  auto imported = importBatchResults(requests, results, dir.file("cache"));
  ASSERT_TRUE(bool(imported)) << llvm::toString(imported.takeError());
  EXPECT_EQ(imported->imported, 1u);
  ASSERT_EQ(imported->errors.size(), 1u);
  EXPECT_NE(imported->errors[0].find("results.jsonl:1: " + id0 +
                                     ": the response has no choices"),
            std::string::npos)
      << imported->errors[0];

  CompletionCache cache(dir.file("cache"));
  CompletionCache::Lookup hit = cache.lookup(request(1));
  ASSERT_EQ(hit.status, CompletionCache::LookupStatus::Hit);
  EXPECT_EQ(hit.entry.completion, "answer 1");
  EXPECT_EQ(hit.entry.provider, "openai-batch");
  EXPECT_EQ(hit.entry.respondedModel, "gpt-test-1");
  EXPECT_EQ(hit.entry.completionTokens, 4u);
  EXPECT_EQ(cache.lookup(request(0)).status,
            CompletionCache::LookupStatus::Miss);
}

TEST(BatchTest, TamperedExportIsRejected) {
  ScratchDir dir;
  std::string requests = dir.file("batch.jsonl");
  nlohmann::json line = nlohmann::json::parse(formatBatchLine(request(0)));
  line["body"]["messages"][0]["content"] = "something else";
  std::ofstream(requests) << line.dump() << "\n";
  std::ofstream(dir.file("results.jsonl")) << "";
  auto imported = importBatchResults(requests, dir.file("results.jsonl"),
                                     dir.file("cache"));
  ASSERT_FALSE(bool(imported));
  EXPECT_NE(llvm::toString(imported.takeError())
                .find("batch.jsonl:1: custom_id key does not match the body"),
            std::string::npos);
}

} // namespace
