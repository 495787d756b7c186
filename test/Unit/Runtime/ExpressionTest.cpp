//===- ExpressionTest.cpp - Size expression parsing and evaluation --------===//

#include "llmptx/Runtime/Expression.h"

#include <gtest/gtest.h>

#include <limits>

using namespace llmptx::runtime;

namespace {

int64_t eval(const std::string &text, const SizeBindings &bindings = {}) {
  auto value = evaluateExpression(text, bindings);
  EXPECT_TRUE(value.ok()) << text << ": " << value.error();
  return value.ok() ? *value : -999999;
}

std::string evalError(const std::string &text,
                      const SizeBindings &bindings = {}) {
  auto value = evaluateExpression(text, bindings);
  EXPECT_FALSE(value.ok()) << text << " evaluated to " << *value;
  return value.error();
}

TEST(ExpressionTest, LiteralsNamesAndPrecedence) {
  EXPECT_EQ(eval("42"), 42);
  EXPECT_EQ(eval("  7 "), 7);
  EXPECT_EQ(eval("N", {{"N", 97}}), 97);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3); // left associative
  EXPECT_EQ(eval("64 / 4 / 2"), 8);
  EXPECT_EQ(eval("-3 * -2"), 6);
  EXPECT_EQ(eval("--5"), 5);
  EXPECT_EQ(eval("N*K+1", {{"N", 3}, {"K", 5}}), 16);
  EXPECT_EQ(eval("size_2", {{"size_2", 4}}), 4);
}

TEST(ExpressionTest, FloorDivisionAndModulo) {
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("-7 / 2"), -4);
  EXPECT_EQ(eval("7 / -2"), -4);
  EXPECT_EQ(eval("-7 / -2"), 3);
  EXPECT_EQ(eval("7 % 3"), 1);
  EXPECT_EQ(eval("-7 % 3"), 2);
  EXPECT_EQ(eval("7 % -3"), -2);
  EXPECT_EQ(eval("-6 % 3"), 0);
}

TEST(ExpressionTest, Functions) {
  EXPECT_EQ(eval("ceildiv(N, 256)", {{"N", 1}}), 1);
  EXPECT_EQ(eval("ceildiv(N, 256)", {{"N", 256}}), 1);
  EXPECT_EQ(eval("ceildiv(N, 256)", {{"N", 257}}), 2);
  EXPECT_EQ(eval("ceildiv(0, 256)"), 0);
  EXPECT_EQ(eval("ceildiv(-7, 2)"), -3);
  EXPECT_EQ(eval("min(3, N)", {{"N", 2}}), 2);
  EXPECT_EQ(eval("max(3, N)", {{"N", 2}}), 3);
  EXPECT_EQ(eval("max(min(1, 2), ceildiv(9, 4)) * 2"), 6);
}

TEST(ExpressionTest, EvaluationErrors) {
  EXPECT_NE(evalError("N / 0", {{"N", 4}}).find("division by zero"),
            std::string::npos);
  EXPECT_NE(evalError("N % M", {{"N", 4}, {"M", 0}}).find("division by zero"),
            std::string::npos);
  EXPECT_NE(evalError("ceildiv(4, 0)").find("division by zero"),
            std::string::npos);
  EXPECT_NE(evalError("Q + 1").find("unknown size 'Q'"), std::string::npos);
  EXPECT_NE(evalError("N * N", {{"N", int64_t(1) << 40}}).find("overflow"),
            std::string::npos);
  EXPECT_NE(evalError("N + 1", {{"N", std::numeric_limits<int64_t>::max()}})
                .find("overflow"),
            std::string::npos);
  EXPECT_NE(evalError("N - 1", {{"N", std::numeric_limits<int64_t>::min()}})
                .find("overflow"),
            std::string::npos);
  EXPECT_NE(evalError("N / -1", {{"N", std::numeric_limits<int64_t>::min()}})
                .find("overflow"),
            std::string::npos);
  EXPECT_NE(evalError("-N", {{"N", std::numeric_limits<int64_t>::min()}})
                .find("overflow"),
            std::string::npos);
}

TEST(ExpressionTest, ParseErrorsNameTheColumn) {
  auto check = [](const std::string &text, const std::string &expected) {
    auto parsed = Expression::parse(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error(), expected) << text;
  };
  check("", "column 1: empty expression");
  check("(N + 1", "column 7: expected ')'");
  check("N +", "column 4: expected a value");
  check("N N", "column 3: unexpected 'N'");
  check("2.5", "column 2: expected an integer");
  check("foo(1, 2)", "column 1: unknown function 'foo' (ceildiv, min, max)");
  check("min(1)", "column 6: expected ',' in min(a, b)");
  check("N # 2", "column 3: unexpected '#'");
  check("99999999999999999999", "column 1: integer literal out of range");
}

TEST(ExpressionTest, NamesAreSortedAndUnique) {
  auto parsed = Expression::parse("ceildiv(N, B) + N * M");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->names(), (std::vector<std::string>{"B", "M", "N"}));
  EXPECT_EQ(parsed->text(), "ceildiv(N, B) + N * M");
}

TEST(ExpressionTest, FloorHelpersMatchDefinitions) {
  for (int64_t a = -9; a <= 9; ++a)
    for (int64_t b = -4; b <= 4; ++b) {
      int64_t q, r, c;
      if (b == 0) {
        EXPECT_FALSE(floorDivide(a, b, q));
        EXPECT_FALSE(floorModulo(a, b, r));
        EXPECT_FALSE(ceilDivide(a, b, c));
        continue;
      }
      ASSERT_TRUE(floorDivide(a, b, q));
      ASSERT_TRUE(floorModulo(a, b, r));
      ASSERT_TRUE(ceilDivide(a, b, c));
      EXPECT_EQ(q * b + r, a) << a << " " << b;
      EXPECT_LE(static_cast<double>(q), static_cast<double>(a) / b);
      EXPECT_GT(static_cast<double>(q) + 1, static_cast<double>(a) / b);
      EXPECT_GE(static_cast<double>(c), static_cast<double>(a) / b);
      EXPECT_LT(static_cast<double>(c) - 1, static_cast<double>(a) / b);
    }
}

} // namespace
