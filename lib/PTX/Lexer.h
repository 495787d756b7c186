//===- Lexer.h - Tokens of PTX text -----------------------------*- C++ -*-===//
//
// A hand-written lexer over a StringRef: no regex, no allocation. Tokens keep
// whether whitespace preceded them, because PTX glues opcodes and modifiers
// ("ld.global.b32") and special register components ("%tid.x") together.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PTX_LEXER_H
#define LLMPTX_LIB_PTX_LEXER_H

#include "llmptx/PTX/Diagnostic.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace llmptx::ptx {

enum class TokenKind {
  Eof,
  Identifier, ///< add, %r1, $L__BB0_2, _Z3fooPf, _
  DotWord,    ///< .reg, .b32, .shared::cta, .2d, .x
  Integer,    ///< 42, 0xff, 1U
  Float,      ///< 0f3F800000, 0d..., 1.5, 8.0
  String,     ///< "nounroll"
  Punct,      ///< one of , ; : { } [ ] ( ) @ ! + - * / < > = | & ^ ~
  Invalid,    ///< a character PTX does not use
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef text;
  SourceLocation loc;
  /// Whitespace or a comment came between this token and the previous one.
  bool spaceBefore = true;
  /// This token is the first on its line.
  bool startsLine = true;

  bool is(char c) const {
    return kind == TokenKind::Punct && text.size() == 1 && text[0] == c;
  }
  bool isDot(llvm::StringRef word) const {
    return kind == TokenKind::DotWord && text == word;
  }
};

class Lexer {
public:
  explicit Lexer(llvm::StringRef text) : text(text) { advance(); }

  const Token &peek() const { return current; }
  Token next() {
    Token token = current;
    consumed = token.text.end() - text.begin();
    advance();
    return token;
  }
  /// Offset just past the last token next() returned (0 before the first).
  size_t consumedEnd() const { return consumed; }
  /// Unterminated block comment or string seen so far (reported once).
  SourceLocation unterminatedAt() const { return unterminated; }
  llvm::StringRef source() const { return text; }

private:
  void advance();
  /// Skips whitespace and comments; returns true when any was skipped.
  bool skipTrivia(bool &sawNewline);
  /// Moves past the token that starts at `pos` (not at the end) and says
  /// what it is.
  TokenKind lexToken();
  TokenKind lexNumber();
  /// A number written with a prefix: 0f/0d float bit patterns, 0x/0b
  /// integers. Nothing (and `pos` unmoved) when there is no such prefix.
  std::optional<TokenKind> lexPrefixedNumber();
  /// A string, up to its closing quote or the end of the line.
  TokenKind lexString();
  SourceLocation here() const {
    return {line, static_cast<unsigned>(pos - lineStart + 1)};
  }

  llvm::StringRef text;
  size_t pos = 0;
  size_t consumed = 0;
  size_t lineStart = 0;
  unsigned line = 1;
  bool first = true;
  Token current;
  SourceLocation unterminated;
};

} // namespace llmptx::ptx

#endif // LLMPTX_LIB_PTX_LEXER_H
