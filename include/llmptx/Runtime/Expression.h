//===- Expression.h - Size expressions of verification bundles --*- C++ -*-===//
//
// Shapes, strides, offsets, launch dimensions and scalar arguments of a
// bundle are written in a tiny integer language so that one bundle covers
// every shape: integer literals, size names, + - * / % (floor division and
// floor modulo), unary minus, parentheses, ceildiv(a, b), min(a, b) and
// max(a, b). Evaluation is checked: division by zero, 64-bit overflow and
// unknown names are errors, never undefined behaviour.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_EXPRESSION_H
#define LLMPTX_RUNTIME_EXPRESSION_H

#include "llmptx/Runtime/ValueOrError.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace llmptx::runtime {

/// Values of the symbolic problem sizes for one shape, e.g. {N: 97}.
using SizeBindings = std::map<std::string, int64_t>;

/// "K=2048 M=2048" (names in order, joined by `separator`); "" for none.
std::string formatSizes(const SizeBindings &sizes,
                        std::string_view separator = " ");

class Expression {
public:
  /// Parses `text`; errors name the column ("column 5: expected ')'").
  static ValueOrError<Expression> parse(std::string_view text);

  /// Evaluates with the given size values.
  ValueOrError<int64_t> evaluate(const SizeBindings &bindings) const;

  /// The size names the expression refers to, sorted, without duplicates.
  std::vector<std::string> names() const;

  const std::string &text() const { return source; }

  enum class Op : uint8_t {
    Literal,
    Name,
    Negate,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    CeilDiv,
    Min,
    Max
  };
  /// One node of the parsed tree; lhs and rhs index into nodes() (-1: none).
  struct Node {
    Op op;
    int64_t literal = 0;
    std::string name;
    int lhs = -1, rhs = -1;
  };
  /// The tree, so that other code can translate an expression (e.g. into
  /// host IR) with exactly the semantics evaluate() has.
  const std::vector<Node> &nodes() const { return tree; }
  int rootNode() const { return root; }

private:
  friend class ExpressionParser;

  ValueOrError<int64_t> evaluateNode(int index,
                                     const SizeBindings &bindings) const;

  std::string source;
  std::vector<Node> tree;
  int root = -1;
};

/// Parses and evaluates in one step.
ValueOrError<int64_t> evaluateExpression(std::string_view text,
                                         const SizeBindings &bindings);

/// Splits a comma-separated list of expressions ("M, min(N, 4)") at its
/// top-level commas, trimmed; empty entries are dropped.
std::vector<std::string> splitExpressionList(std::string_view text);

/// Floor division and modulo as the expression language defines them; they
/// return false on division by zero or overflow.
bool floorDivide(int64_t lhs, int64_t rhs, int64_t &result);
bool floorModulo(int64_t lhs, int64_t rhs, int64_t &result);
bool ceilDivide(int64_t lhs, int64_t rhs, int64_t &result);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_EXPRESSION_H
