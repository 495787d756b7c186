//===- SerializationTest.cpp - JSON forms of requests and completions -----===//

#include "llmptx/LLM/Serialization.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"

using namespace llmptx::llm;

namespace {

TEST(SerializationTest, ExecRequestFormRoundTrips) {
  CompletionRequest request;
  request.messages = {{"system", "rules"}, {"user", "write \"k\"\n"}};
  request.model = "m";
  request.sampling.temperature = 0;
  request.sampling.maxTokens = 100;
  request.sampling.seed = 40;
  request.sampleIndex = 3;
  request.templateVersion = "llmptx-translate-v1";
  request.label = "vecadd";
  std::string json = requestToJson(request);

  nlohmann::json parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["model"], "m");
  EXPECT_EQ(parsed["temperature"], 0);
  EXPECT_EQ(parsed["max_tokens"], 100);
  EXPECT_EQ(parsed["seed"], 43) << "sample 3 is sent with seed 40 + 3";
  EXPECT_EQ(parsed["messages"][1]["content"], "write \"k\"\n");
  EXPECT_EQ(parsed["llmptx"]["sample_index"], 3);
  EXPECT_EQ(parsed["llmptx"]["template_version"], "llmptx-translate-v1");
  EXPECT_EQ(parsed["llmptx"]["kernel"], "vecadd");

  auto back = parseRequestJson(json, "req");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->model, "m");
  EXPECT_EQ(back->sampling.seed, 40);
  EXPECT_EQ(back->sampleIndex, 3u);
  EXPECT_EQ(back->messages.size(), 2u);
  EXPECT_EQ(back->label, "vecadd");
  EXPECT_EQ(requestToJson(*back), json);
}

TEST(SerializationTest, MessagesErrorsNameTheSourceAndTheSpot) {
  auto broken = parseMessagesJson("[{\"role\": \"user\"", "m.json");
  ASSERT_FALSE(bool(broken));
  std::string message = llvm::toString(broken.takeError());
  EXPECT_NE(message.find("m.json: malformed JSON at byte 17"),
            std::string::npos)
      << message;

  auto role = parseMessagesJson("[{\"role\": \"robot\", \"content\": \"x\"}]",
                                "m.json");
  ASSERT_FALSE(bool(role));
  EXPECT_EQ(llvm::toString(role.takeError()),
            "m.json: message 0 has role 'robot' (expected system, user or "
            "assistant)");

  auto shape = parseMessagesJson("{\"messages\": 3}", "m.json");
  ASSERT_FALSE(bool(shape));
  llvm::consumeError(shape.takeError());

  auto wrapped = parseMessagesJson(
      "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}", "m.json");
  ASSERT_TRUE(bool(wrapped));
  EXPECT_EQ((*wrapped)[0].content, "hi");
}

TEST(SerializationTest, KernelSpecFieldsAndTypos) {
  auto spec = parseKernelSpecJson(
      "{\"kernel_name\": \"k\", \"chip\": \"sm_90\", \"ptx_isa\": \"8.5\"}",
      "s.json");
  ASSERT_TRUE(bool(spec));
  EXPECT_EQ(spec->kernelName, "k");
  EXPECT_EQ(spec->chip, "sm_90");
  auto typo = parseKernelSpecJson("{\"chips\": \"sm_90\"}", "s.json");
  ASSERT_FALSE(bool(typo));
  EXPECT_EQ(llvm::toString(typo.takeError()),
            "s.json: unknown field 'chips' in kernel spec");
  auto type = parseKernelSpecJson("{\"chip\": 90}", "s.json");
  ASSERT_FALSE(bool(type));
  EXPECT_EQ(llvm::toString(type.takeError()),
            "s.json: field 'chip' must be a string");
}

TEST(SerializationTest, CompletionJsonCarriesMetadata) {
  Completion completion;
  completion.ok = true;
  completion.text = "t";
  completion.cacheHit = true;
  completion.attempts = 2;
  completion.warnings = {"w"};
  nlohmann::json parsed =
      nlohmann::json::parse(completionToJson(completion, 5));
  EXPECT_EQ(parsed["sample"], 5);
  EXPECT_EQ(parsed["cache_hit"], true);
  EXPECT_EQ(parsed["attempts"], 2);
  EXPECT_EQ(parsed["warnings"][0], "w");
}

} // namespace
