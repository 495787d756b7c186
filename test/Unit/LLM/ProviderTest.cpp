//===- ProviderTest.cpp - Providers against a real loopback server --------===//
//
// These tests call the library from many threads at once against
// llmptx.testing.mock_llm_server, and run real subprocesses for the exec
// provider.
//
//===----------------------------------------------------------------------===//

#include "MockServer.h"

#include "llmptx/LLM/Cache.h"
#include "llmptx/LLM/Provider.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

using namespace llmptx::llm;
using llmptx::test::MockServer;
using llmptx::test::ScratchDir;

namespace {

CompletionRequest userRequest(const std::string &text, unsigned sample = 0) {
  CompletionRequest request;
  request.messages = {{"user", text}};
  request.sampleIndex = sample;
  request.templateVersion = "test";
  return request;
}

ProviderConfig openaiConfig(const MockServer &server, const ScratchDir &dir) {
  ProviderConfig config;
  config.kind = "openai";
  config.model = "m";
  config.baseUrl = server.baseUrl();
  config.cacheDir = dir.file("cache");
  config.retryBaseMs = 5;
  return config;
}

std::unique_ptr<Provider> create(const ProviderConfig &config) {
  auto provider = createProvider(config);
  if (!provider) {
    ADD_FAILURE() << llvm::toString(provider.takeError());
    return nullptr;
  }
  return std::move(*provider);
}

TEST(ProviderTest, InFlightRequestsAreBounded) {
  MockServer server(R"({"responses": [{"delay": 0.2, "echo": true}]})");
  ASSERT_TRUE(server.started());
  ScratchDir dir;
  ProviderConfig config = openaiConfig(server, dir);
  config.cacheMode = CacheMode::Off;
  config.maxInFlight = 3;
  auto provider = create(config);
  ASSERT_TRUE(provider);
  std::vector<Completion> completions(12);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < completions.size(); ++i)
    threads.emplace_back([&, i] {
      completions[i] =
          provider->complete(userRequest("request " + std::to_string(i)));
    });
  for (std::thread &thread : threads)
    thread.join();
  for (unsigned i = 0; i < completions.size(); ++i) {
    ASSERT_TRUE(completions[i].ok) << completions[i].error;
    // Each thread got the answer to its own request.
    EXPECT_NE(completions[i].text.find("last=request " + std::to_string(i)),
              std::string::npos)
        << completions[i].text;
  }
  EXPECT_EQ(server.requests().size(), 12u);
  EXPECT_LE(server.maxInFlight(), 3u);
  EXPECT_GE(server.maxInFlight(), 2u) << "requests did not overlap at all";
}

TEST(ProviderTest, ManyThreadsOneRequestThroughTheCache) {
  MockServer server(R"({"responses": [{"delay": 0.05, "echo": true}]})");
  ASSERT_TRUE(server.started());
  ScratchDir dir;
  auto provider = create(openaiConfig(server, dir));
  ASSERT_TRUE(provider);
  std::vector<Completion> completions(16);
  std::vector<std::thread> threads;
  for (Completion &completion : completions)
    threads.emplace_back(
        [&] { completion = provider->complete(userRequest("same")); });
  for (std::thread &thread : threads)
    thread.join();
  for (const Completion &completion : completions) {
    ASSERT_TRUE(completion.ok) << completion.error;
    EXPECT_EQ(completion.text, completions[0].text);
    EXPECT_TRUE(completion.warnings.empty());
  }
  unsigned before = server.requests().size();
  Completion again = provider->complete(userRequest("same"));
  EXPECT_TRUE(again.cacheHit);
  EXPECT_EQ(again.text, completions[0].text);
  EXPECT_EQ(again.attempts, 0u);
  EXPECT_EQ(server.requests().size(), before);
  CompletionCache::Scan scan = CompletionCache(dir.file("cache")).scan();
  EXPECT_EQ(scan.entries.size(), 1u);
  EXPECT_TRUE(scan.corrupt.empty());
}

TEST(ProviderTest, RetryAfterHoldsBackEveryRequestOfTheProvider) {
  MockServer server(R"({"responses": [
      {"status": 429, "headers": {"Retry-After": "1"},
       "json": {"error": {"message": "slow down"}}},
      {"echo": true}]})");
  ASSERT_TRUE(server.started());
  ScratchDir dir;
  ProviderConfig config = openaiConfig(server, dir);
  config.cacheMode = CacheMode::Off;
  std::vector<std::string> logLines;
  std::mutex logMutex;
  config.log = [&](llvm::StringRef line) {
    std::lock_guard<std::mutex> lock(logMutex);
    logLines.push_back(line.str());
  };
  auto provider = create(config);
  ASSERT_TRUE(provider);
  Completion first, second;
  std::thread a([&] { first = provider->complete(userRequest("a")); });
  // Start the second request once the first one got its 429.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (server.requests().size() < 1 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::thread b([&] { second = provider->complete(userRequest("b")); });
  a.join();
  b.join();
  ASSERT_TRUE(first.ok) << first.error;
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_EQ(first.attempts, 2u);
  EXPECT_EQ(second.attempts, 1u);
  std::vector<nlohmann::json> requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  double start = requests[0]["t"].get<double>();
  for (size_t i = 1; i < requests.size(); ++i)
    EXPECT_GE(requests[i]["t"].get<double>() - start, 0.95)
        << "request " << i << " did not wait for Retry-After";
  ASSERT_EQ(logLines.size(), 1u);
  EXPECT_NE(logLines[0].find("HTTP 429"), std::string::npos);
  EXPECT_NE(logLines[0].find("retry 1/4 in 1000 ms (Retry-After)"),
            std::string::npos)
      << logLines[0];
}

TEST(ProviderTest, TooLongRetryAfterFailsAtOnce) {
  MockServer server(R"({"responses": [{"status": 429,
      "headers": {"Retry-After": "3600"}, "text": "come back later"}]})");
  ASSERT_TRUE(server.started());
  ScratchDir dir;
  ProviderConfig config = openaiConfig(server, dir);
  config.maxRetryAfterS = 60;
  auto provider = create(config);
  ASSERT_TRUE(provider);
  auto start = std::chrono::steady_clock::now();
  Completion completion = provider->complete(userRequest("x"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(completion.ok);
  EXPECT_EQ(completion.httpStatus, 429);
  EXPECT_NE(completion.error.find("the server asks to retry after 3600 s, "
                                  "more than the 60 s limit"),
            std::string::npos)
      << completion.error;
}

TEST(ProviderTest, ConnectionFailuresAreRetriedThenReported) {
  ScratchDir dir;
  ProviderConfig config;
  config.kind = "openai";
  config.model = "m";
  config.baseUrl = "http://127.0.0.1:9/v1";
  config.cacheDir = dir.file("cache");
  config.maxRetries = 2;
  config.retryBaseMs = 1;
  auto provider = create(config);
  ASSERT_TRUE(provider);
  Completion completion = provider->complete(userRequest("x"));
  EXPECT_FALSE(completion.ok);
  EXPECT_EQ(completion.attempts, 3u);
  EXPECT_NE(completion.error.find("openai: request to "
                                  "http://127.0.0.1:9/v1/chat/completions "
                                  "failed: "),
            std::string::npos)
      << completion.error;
  EXPECT_NE(completion.error.find("(gave up after 3 attempts)"),
            std::string::npos);
}

TEST(ProviderTest, KeyTravelsInTheHeaderOnly) {
  MockServer server(R"({"responses": [{"status": 401, "json": {"error":
      {"message": "Incorrect API key provided: sk-unit-secret-0042",
       "code": "invalid_api_key"}}}]})");
  ASSERT_TRUE(server.started());
  ScratchDir dir;
  setenv("OPENAI_API_KEY", "sk-unit-secret-0042", 1);
  auto provider = create(openaiConfig(server, dir));
  Completion completion = provider->complete(userRequest("x"));
  unsetenv("OPENAI_API_KEY");
  EXPECT_FALSE(completion.ok);
  EXPECT_EQ(completion.attempts, 1u);
  EXPECT_EQ(completion.httpStatus, 401);
  EXPECT_EQ(completion.error.find("sk-unit-secret-0042"), std::string::npos);
  EXPECT_NE(completion.error.find("Incorrect API key provided: [REDACTED] "
                                  "(invalid_api_key) (not retried)"),
            std::string::npos)
      << completion.error;
  std::vector<nlohmann::json> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["headers"]["authorization"],
            "Bearer sk-unit-secret-0042");
  EXPECT_EQ(requests[0]["body"].dump().find("sk-unit-secret"),
            std::string::npos);
}

TEST(ProviderTest, ExecRunsConcurrentlyAndKillsHangs) {
  ScratchDir dir;
  ProviderConfig config;
  config.kind = "exec";
  config.model = "local";
  // The request itself comes back as the answer: each call must see its own.
  config.execCommand = "cat";
  config.cacheMode = CacheMode::Off;
  config.maxInFlight = 4;
  auto echo = create(config);
  ASSERT_TRUE(echo);
  config.execCommand = "sleep 30";
  config.totalTimeoutS = 0.3;
  auto hang = create(config);
  ASSERT_TRUE(hang);

  std::vector<Completion> echoed(8), hung(4);
  std::vector<std::thread> threads;
  auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < echoed.size(); ++i)
    threads.emplace_back([&, i] {
      echoed[i] = echo->complete(userRequest("exec " + std::to_string(i), i));
    });
  for (Completion &completion : hung)
    threads.emplace_back(
        [&] { completion = hang->complete(userRequest("hang")); });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  for (unsigned i = 0; i < echoed.size(); ++i) {
    ASSERT_TRUE(echoed[i].ok) << echoed[i].error;
    nlohmann::json request = nlohmann::json::parse(echoed[i].text);
    EXPECT_EQ(request["messages"][0]["content"], "exec " + std::to_string(i));
    EXPECT_EQ(request["llmptx"]["sample_index"], i);
    EXPECT_EQ(request["model"], "local");
  }
  for (const Completion &completion : hung) {
    EXPECT_FALSE(completion.ok);
    EXPECT_EQ(completion.error,
              "exec: command timed out after 0.3 s and was killed");
    EXPECT_LT(completion.wallMs, 5000);
  }
}

TEST(ProviderTest, ConfigurationErrors) {
  auto expectError = [](ProviderConfig config, const std::string &expected) {
    auto provider = createProvider(config);
    ASSERT_FALSE(bool(provider));
    std::string message = llvm::toString(provider.takeError());
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  };
  ProviderConfig config;
  expectError(config, "no provider configured");
  config.kind = "openai";
  expectError(config, "provider 'openai' needs a model");
  config.model = "m";
  config.maxInFlight = 0;
  expectError(config, "maxInFlight must be at least 1");
  config.maxInFlight = 1;
  config.totalTimeoutS = 0;
  expectError(config, "timeouts must be positive");
  config.kind = "exec";
  config.totalTimeoutS = 1;
  expectError(config, "provider 'exec' needs a command");
  config.kind = "replay";
  config.cacheMode = CacheMode::Off;
  expectError(config, "cache mode 'off'");
  config.configErrors = {"LLMPTX_X='y' is bad"};
  expectError(config, "invalid provider configuration: LLMPTX_X='y' is bad");
}

TEST(ProviderTest, EnvironmentFillsTheConfig) {
  setenv("LLMPTX_PROVIDER", "anthropic", 1);
  setenv("LLMPTX_MODEL", "claude-x", 1);
  setenv("LLMPTX_BASE_URL", "http://127.0.0.1:1/v1", 1);
  setenv("LLMPTX_CACHE", "read", 1);
  setenv("LLMPTX_RETRY_BASE_MS", "7", 1);
  setenv("LLMPTX_TIMEOUT_S", "-1", 1);
  setenv("LLMPTX_MAX_TOKENS_FIELD", "max_completion_tokens", 1);
  ProviderConfig config = ProviderConfig::fromEnvironment();
  for (const char *name :
       {"LLMPTX_PROVIDER", "LLMPTX_MODEL", "LLMPTX_BASE_URL", "LLMPTX_CACHE",
        "LLMPTX_RETRY_BASE_MS", "LLMPTX_TIMEOUT_S", "LLMPTX_MAX_TOKENS_FIELD"})
    unsetenv(name);
  EXPECT_EQ(config.kind, "anthropic");
  EXPECT_EQ(config.model, "claude-x");
  EXPECT_EQ(config.baseUrl, "http://127.0.0.1:1/v1");
  EXPECT_EQ(config.cacheMode, CacheMode::Read);
  EXPECT_EQ(config.retryBaseMs, 7u);
  EXPECT_EQ(config.totalTimeoutS, 300);
  EXPECT_EQ(config.maxTokensField, "max_completion_tokens");
  ASSERT_EQ(config.configErrors.size(), 1u);
  EXPECT_EQ(config.configErrors[0],
            "LLMPTX_TIMEOUT_S='-1' is not a positive number of seconds");
}

TEST(ProviderTest, GenericKeyWins) {
  setenv("OPENAI_API_KEY", "openai-key-1", 1);
  EXPECT_EQ(apiKeyFor("openai"), "openai-key-1");
  EXPECT_EQ(apiKeyFor("anthropic"), std::nullopt);
  setenv("LLMPTX_API_KEY", "generic-key-2", 1);
  EXPECT_EQ(apiKeyFor("openai"), "generic-key-2");
  EXPECT_EQ(apiKeyFor("anthropic"), "generic-key-2");
  unsetenv("OPENAI_API_KEY");
  unsetenv("LLMPTX_API_KEY");
}

} // namespace
