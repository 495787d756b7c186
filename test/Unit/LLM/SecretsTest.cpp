//===- SecretsTest.cpp - Keys never leave the environment -----------------===//

#include "llmptx/LLM/Secrets.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace llmptx::llm;

namespace {

/// Sets an environment variable for the duration of a test.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    setenv(name, value, /*overwrite=*/1);
  }
  ~ScopedEnv() { unsetenv(name); }

private:
  const char *name;
};

TEST(SecretsTest, RedactsEveryKnownKey) {
  ScopedEnv openai("OPENAI_API_KEY", "sk-openai-123456");
  ScopedEnv anthropic("ANTHROPIC_API_KEY", "sk-ant-abcdef");
  ScopedEnv generic("LLMPTX_API_KEY", "generic-key-999");
  ScopedEnv other("MISTRAL_API_KEY", "mistral-key-42");
  std::string text = "a sk-openai-123456 b sk-ant-abcdef c generic-key-999 "
                     "d mistral-key-42 e sk-openai-123456";
  EXPECT_EQ(redactSecrets(text), "a [REDACTED] b [REDACTED] c [REDACTED] d "
                                 "[REDACTED] e [REDACTED]");
  EXPECT_TRUE(containsSecret(text));
  EXPECT_FALSE(containsSecret("nothing secret here"));
}

TEST(SecretsTest, LongerKeyThatContainsAShorterOneIsReplacedWhole) {
  ScopedEnv shorter("OPENAI_API_KEY", "abcd1234");
  ScopedEnv longer("LLMPTX_API_KEY", "xxabcd1234yy");
  EXPECT_EQ(redactSecrets("k=xxabcd1234yy"), "k=[REDACTED]");
}

TEST(SecretsTest, TrivialValuesAreNotSecrets) {
  ScopedEnv tiny("OPENAI_API_KEY", "x");
  EXPECT_EQ(redactSecrets("x marks the spot"), "x marks the spot");
}

TEST(SecretsTest, ReadsTheEnvironmentOnEveryCall) {
  EXPECT_EQ(redactSecrets("late-key-7777"), "late-key-7777");
  ScopedEnv late("ANTHROPIC_API_KEY", "late-key-7777");
  EXPECT_EQ(redactSecrets("late-key-7777"), "[REDACTED]");
}

/// A key holding '"' or '\\' is written escaped into every JSON file (cache
/// entries, batch files, reports); the check does not depend on the key's
/// characters.
TEST(SecretsTest, JsonEscapedKeysAreCaughtToo) {
  ScopedEnv quoted("OPENAI_API_KEY", "sk-q\"u\\o-secret");
  EXPECT_TRUE(containsSecret("{\"completion\": \"sk-q\\\"u\\\\o-secret\"}"));
  EXPECT_EQ(redactSecrets("{\"completion\": \"sk-q\\\"u\\\\o-secret\"}"),
            "{\"completion\": \"[REDACTED]\"}");
  EXPECT_EQ(redactSecrets("raw sk-q\"u\\o-secret"), "raw [REDACTED]");
  ScopedEnv control("ANTHROPIC_API_KEY", "tab\there-secret");
  EXPECT_TRUE(containsSecret("\"tab\\there-secret\""));
}

} // namespace
