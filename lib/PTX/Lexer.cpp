//===- Lexer.cpp - Tokens of PTX text ---------------------------*- C++ -*-===//

#include "Lexer.h"

using namespace llmptx::ptx;

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '$' || c == '%';
}
static bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isHex(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool Lexer::skipTrivia(bool &sawNewline) {
  bool skipped = false;
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '\n') {
      ++pos;
      ++line;
      lineStart = pos;
      sawNewline = true;
      skipped = true;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos;
      skipped = true;
    } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
      size_t end = text.find('\n', pos);
      pos = end == llvm::StringRef::npos ? text.size() : end;
      skipped = true;
    } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
      SourceLocation start = here();
      pos += 2;
      bool closed = false;
      while (pos < text.size()) {
        if (text[pos] == '*' && pos + 1 < text.size() && text[pos + 1] == '/') {
          pos += 2;
          closed = true;
          break;
        }
        if (text[pos] == '\n') {
          ++line;
          lineStart = pos + 1;
          sawNewline = true;
        }
        ++pos;
      }
      if (!closed && !unterminated.line)
        unterminated = start;
      skipped = true;
    } else {
      break;
    }
  }
  return skipped;
}

static bool isPunct(char c) {
  switch (c) {
  case ',':
  case ';':
  case ':':
  case '{':
  case '}':
  case '[':
  case ']':
  case '(':
  case ')':
  case '@':
  case '!':
  case '+':
  case '-':
  case '*':
  case '/':
  case '<':
  case '>':
  case '=':
  case '|':
  case '&':
  case '^':
  case '~':
  case '?':
    return true;
  default:
    return false;
  }
}

void Lexer::advance() {
  bool sawNewline = first;
  bool space = skipTrivia(sawNewline) || first;
  first = false;
  current = Token();
  current.spaceBefore = space;
  current.startsLine = sawNewline;
  current.loc = here();
  if (pos >= text.size()) {
    current.kind = TokenKind::Eof;
    current.text = text.substr(text.size());
    return;
  }
  size_t start = pos;
  current.kind = lexToken();
  current.text = text.slice(start, pos);
}

TokenKind Lexer::lexToken() {
  char c = text[pos];
  if (isIdentStart(c)) {
    ++pos;
    while (pos < text.size() && isIdentChar(text[pos]))
      ++pos;
    return TokenKind::Identifier;
  }
  if (c == '.' && pos + 1 < text.size() &&
      (isIdentChar(text[pos + 1]) || text[pos + 1] == ':')) {
    ++pos;
    while (pos < text.size() && (isIdentChar(text[pos]) || text[pos] == ':'))
      ++pos;
    return TokenKind::DotWord;
  }
  if (isDigit(c))
    return lexNumber();
  if (c == '"')
    return lexString();
  ++pos;
  return isPunct(c) ? TokenKind::Punct : TokenKind::Invalid;
}

std::optional<TokenKind> Lexer::lexPrefixedNumber() {
  if (text[pos] != '0' || pos + 1 >= text.size())
    return std::nullopt;
  // Hex float bit patterns first: 0f3F800000 (f32), 0d3FF0... (f64).
  char k = text[pos + 1];
  unsigned want = (k == 'f' || k == 'F') ? 8 : (k == 'd' || k == 'D') ? 16 : 0;
  if (want) {
    size_t p = pos + 2;
    while (p < text.size() && isHex(text[p]))
      ++p;
    if (p - (pos + 2) == want) {
      pos = p;
      return TokenKind::Float;
    }
  }
  if (k == 'x' || k == 'X' || k == 'b' || k == 'B') {
    pos += 2;
    while (pos < text.size() && isHex(text[pos]))
      ++pos;
    if (pos < text.size() && (text[pos] == 'U' || text[pos] == 'u'))
      ++pos;
    return TokenKind::Integer;
  }
  return std::nullopt;
}

TokenKind Lexer::lexNumber() {
  if (std::optional<TokenKind> prefixed = lexPrefixedNumber())
    return *prefixed;
  while (pos < text.size() && isDigit(text[pos]))
    ++pos;
  bool isFloat = false;
  if (pos + 1 < text.size() && text[pos] == '.' && isDigit(text[pos + 1])) {
    isFloat = true;
    ++pos;
    while (pos < text.size() && isDigit(text[pos]))
      ++pos;
  }
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    size_t p = pos + 1;
    if (p < text.size() && (text[p] == '+' || text[p] == '-'))
      ++p;
    if (p < text.size() && isDigit(text[p])) {
      isFloat = true;
      pos = p;
      while (pos < text.size() && isDigit(text[pos]))
        ++pos;
    }
  }
  if (!isFloat && pos < text.size() && (text[pos] == 'U' || text[pos] == 'u'))
    ++pos;
  return isFloat ? TokenKind::Float : TokenKind::Integer;
}

TokenKind Lexer::lexString() {
  ++pos;
  while (pos < text.size() && text[pos] != '"' && text[pos] != '\n') {
    if (text[pos] == '\\' && pos + 1 < text.size())
      ++pos;
    ++pos;
  }
  if (pos < text.size() && text[pos] == '"')
    ++pos;
  else if (!unterminated.line)
    unterminated = current.loc;
  return TokenKind::String;
}
