//===- Expression.cpp - Size expressions of verification bundles ----------===//
//
// A recursive-descent parser into a flat node array and a checked evaluator.
// Expressions come from bundles, harnesses and model answers: the parser
// bounds its length, nesting and node count (untrusted::kMaxExpression*), so
// neither its recursion nor the evaluator's can exhaust the stack.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/Expression.h"
#include "llmptx/Support/UntrustedText.h"

#include <algorithm>
#include <cctype>
#include <limits>

using namespace llmptx::runtime;

bool llmptx::runtime::floorDivide(int64_t lhs, int64_t rhs, int64_t &result) {
  if (rhs == 0)
    return false;
  if (lhs == std::numeric_limits<int64_t>::min() && rhs == -1)
    return false;
  int64_t quotient = lhs / rhs;
  if (lhs % rhs != 0 && ((lhs < 0) != (rhs < 0)))
    --quotient;
  result = quotient;
  return true;
}

bool llmptx::runtime::floorModulo(int64_t lhs, int64_t rhs, int64_t &result) {
  if (rhs == 0)
    return false;
  if (rhs == -1) {
    result = 0;
    return true;
  }
  int64_t remainder = lhs % rhs;
  if (remainder != 0 && ((remainder < 0) != (rhs < 0)))
    remainder += rhs;
  result = remainder;
  return true;
}

bool llmptx::runtime::ceilDivide(int64_t lhs, int64_t rhs, int64_t &result) {
  if (rhs == 0)
    return false;
  if (lhs == std::numeric_limits<int64_t>::min() && rhs == -1)
    return false;
  int64_t quotient = lhs / rhs;
  if (lhs % rhs != 0 && ((lhs < 0) == (rhs < 0)))
    ++quotient;
  result = quotient;
  return true;
}

namespace llmptx::runtime {

/// Grammar:
///   sum     := product (('+' | '-') product)*
///   product := unary (('*' | '/' | '%') unary)*
///   unary   := '-' unary | primary
///   primary := INTEGER | NAME | NAME '(' sum ',' sum ')' | '(' sum ')'
class ExpressionParser {
public:
  ExpressionParser(std::string_view text, Expression &expression)
      : text(text), expression(expression) {}

  std::string parse() {
    if (text.size() > untrusted::kMaxExpressionBytes)
      return fail("expression longer than " +
                  std::to_string(untrusted::kMaxExpressionBytes) + " bytes");
    int root = parseSum();
    if (!error.empty())
      return error;
    skipSpace();
    if (position != text.size())
      return fail("unexpected '" + std::string(1, text[position]) + "'");
    expression.root = root;
    return {};
  }

private:
  void skipSpace() {
    while (position < text.size() &&
           std::isspace(static_cast<unsigned char>(text[position])))
      ++position;
  }

  std::string fail(const std::string &message) {
    if (error.empty())
      error = "column " + std::to_string(position + 1) + ": " + message;
    return error;
  }

  int add(Expression::Node node) {
    if (expression.tree.size() >= untrusted::kMaxExpressionNodes) {
      fail("expression has more than " +
           std::to_string(untrusted::kMaxExpressionNodes) + " terms");
      return -1;
    }
    expression.tree.push_back(std::move(node));
    return static_cast<int>(expression.tree.size()) - 1;
  }

  int binary(Expression::Op op, int lhs, int rhs) {
    Expression::Node node;
    node.op = op;
    node.lhs = lhs;
    node.rhs = rhs;
    return add(std::move(node));
  }

  int parseSum() {
    int lhs = parseProduct();
    while (error.empty()) {
      skipSpace();
      if (position >= text.size() ||
          (text[position] != '+' && text[position] != '-'))
        break;
      char op = text[position++];
      int rhs = parseProduct();
      lhs = binary(op == '+' ? Expression::Op::Add : Expression::Op::Sub, lhs,
                   rhs);
    }
    return lhs;
  }

  int parseProduct() {
    int lhs = parseUnary();
    while (error.empty()) {
      skipSpace();
      if (position >= text.size() ||
          (text[position] != '*' && text[position] != '/' &&
           text[position] != '%'))
        break;
      char op = text[position++];
      int rhs = parseUnary();
      Expression::Op kind = op == '*'   ? Expression::Op::Mul
                            : op == '/' ? Expression::Op::Div
                                        : Expression::Op::Mod;
      lhs = binary(kind, lhs, rhs);
    }
    return lhs;
  }

  /// Counts the recursion of parseUnary, which every nesting (parentheses,
  /// function arguments, negation) passes through.
  struct Nesting {
    explicit Nesting(unsigned &depth) : depth(depth) { ++depth; }
    ~Nesting() { --depth; }
    unsigned &depth;
  };

  int parseUnary() {
    Nesting nesting(depth);
    if (depth > untrusted::kMaxExpressionDepth) {
      fail("expression nested deeper than " +
           std::to_string(untrusted::kMaxExpressionDepth) + " levels");
      return -1;
    }
    skipSpace();
    if (position < text.size() && text[position] == '-') {
      ++position;
      int operand = parseUnary();
      Expression::Node node;
      node.op = Expression::Op::Negate;
      node.lhs = operand;
      return add(std::move(node));
    }
    return parsePrimary();
  }

  int parsePrimary() {
    skipSpace();
    if (position >= text.size()) {
      fail(text.empty() ? "empty expression" : "expected a value");
      return -1;
    }
    char c = text[position];
    if (c == '(') {
      ++position;
      int inner = parseSum();
      skipSpace();
      if (error.empty() && (position >= text.size() || text[position] != ')'))
        fail("expected ')'");
      ++position;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = position;
      int64_t value = 0;
      while (position < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[position]))) {
        int digit = text[position] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          position = start;
          fail("integer literal out of range");
          return -1;
        }
        value = value * 10 + digit;
        ++position;
      }
      if (position < text.size() &&
          (text[position] == '.' || text[position] == 'e' ||
           text[position] == 'E' ||
           std::isalpha(static_cast<unsigned char>(text[position])))) {
        fail("expected an integer");
        return -1;
      }
      Expression::Node node;
      node.op = Expression::Op::Literal;
      node.literal = value;
      return add(std::move(node));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = position;
      while (position < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[position])) ||
              text[position] == '_'))
        ++position;
      std::string name(text.substr(start, position - start));
      skipSpace();
      if (position < text.size() && text[position] == '(') {
        Expression::Op op;
        if (name == "ceildiv")
          op = Expression::Op::CeilDiv;
        else if (name == "min")
          op = Expression::Op::Min;
        else if (name == "max")
          op = Expression::Op::Max;
        else {
          position = start;
          fail("unknown function '" + name + "' (ceildiv, min, max)");
          return -1;
        }
        ++position;
        int lhs = parseSum();
        skipSpace();
        if (error.empty() && (position >= text.size() || text[position] != ','))
          fail("expected ',' in " + name + "(a, b)");
        ++position;
        int rhs = parseSum();
        skipSpace();
        if (error.empty() && (position >= text.size() || text[position] != ')'))
          fail("expected ')' after the arguments of " + name);
        ++position;
        return binary(op, lhs, rhs);
      }
      Expression::Node node;
      node.op = Expression::Op::Name;
      node.name = std::move(name);
      return add(std::move(node));
    }
    fail("unexpected '" + std::string(1, c) + "'");
    return -1;
  }

  std::string_view text;
  Expression &expression;
  size_t position = 0;
  unsigned depth = 0;
  std::string error;
};

} // namespace llmptx::runtime

ValueOrError<Expression> Expression::parse(std::string_view text) {
  Expression expression;
  expression.source = std::string(text);
  ExpressionParser parser(text, expression);
  std::string error = parser.parse();
  if (!error.empty())
    return Failure{error};
  return expression;
}

ValueOrError<int64_t> Expression::evaluate(const SizeBindings &bindings) const {
  if (root < 0)
    return Failure{"empty expression"};
  return evaluateNode(root, bindings);
}

ValueOrError<int64_t>
Expression::evaluateNode(int index, const SizeBindings &bindings) const {
  const Node &node = tree[index];
  switch (node.op) {
  case Op::Literal:
    return node.literal;
  case Op::Name: {
    auto it = bindings.find(node.name);
    if (it == bindings.end())
      return Failure{"unknown size '" + node.name + "'"};
    return it->second;
  }
  case Op::Negate: {
    auto operand = evaluateNode(node.lhs, bindings);
    if (!operand)
      return operand;
    if (*operand == std::numeric_limits<int64_t>::min())
      return Failure{"overflow in '" + untrusted::clipForMessage(source) + "'"};
    return -*operand;
  }
  default:
    break;
  }
  auto lhs = evaluateNode(node.lhs, bindings);
  if (!lhs)
    return lhs;
  auto rhs = evaluateNode(node.rhs, bindings);
  if (!rhs)
    return rhs;
  int64_t a = *lhs, b = *rhs, result = 0;
  bool fine = true;
  switch (node.op) {
  case Op::Add:
    fine = !__builtin_add_overflow(a, b, &result);
    break;
  case Op::Sub:
    fine = !__builtin_sub_overflow(a, b, &result);
    break;
  case Op::Mul:
    fine = !__builtin_mul_overflow(a, b, &result);
    break;
  case Op::Div:
  case Op::Mod:
  case Op::CeilDiv:
    if (b == 0)
      return Failure{"division by zero in '" +
                     untrusted::clipForMessage(source) + "'"};
    fine = node.op == Op::Div   ? floorDivide(a, b, result)
           : node.op == Op::Mod ? floorModulo(a, b, result)
                                : ceilDivide(a, b, result);
    break;
  case Op::Min:
    result = std::min(a, b);
    break;
  case Op::Max:
    result = std::max(a, b);
    break;
  default:
    return Failure{"internal error: bad expression node"};
  }
  if (!fine)
    return Failure{"overflow in '" + untrusted::clipForMessage(source) + "'"};
  return result;
}

std::vector<std::string> Expression::names() const {
  std::vector<std::string> result;
  for (const Node &node : tree)
    if (node.op == Op::Name)
      result.push_back(node.name);
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

ValueOrError<int64_t>
llmptx::runtime::evaluateExpression(std::string_view text,
                                    const SizeBindings &bindings) {
  auto expression = Expression::parse(text);
  if (!expression)
    return Failure{expression.error()};
  return expression->evaluate(bindings);
}

std::vector<std::string>
llmptx::runtime::splitExpressionList(std::string_view text) {
  std::vector<std::string> parts;
  auto keep = [&](size_t begin, size_t end) {
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
      ++begin;
    while (end > begin &&
           std::isspace(static_cast<unsigned char>(text[end - 1])))
      --end;
    if (end > begin)
      parts.emplace_back(text.substr(begin, end - begin));
  };
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')')
      --depth;
    else if (text[i] == ',' && depth == 0) {
      keep(start, i);
      start = i + 1;
    }
  }
  keep(start, text.size());
  return parts;
}

std::string llmptx::runtime::formatSizes(const SizeBindings &sizes,
                                         std::string_view separator) {
  std::string text;
  for (const auto &[name, value] : sizes) {
    if (!text.empty())
      text += separator;
    text += name + "=" + std::to_string(value);
  }
  return text;
}
