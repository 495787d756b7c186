//===- Parser.cpp - PTX text to a located Module ----------------*- C++ -*-===//
//
// Recursive descent over the token stream, one statement at a time. On a
// syntax error the parser reports it and resynchronises at the next ';' or
// at the next line that starts a statement, so one mistake yields one
// diagnostic rather than a cascade.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/Parser.h"
#include "llmptx/PTX/PtxIsa.h"

#include "Lexer.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llmptx::ptx;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Module helpers
//===----------------------------------------------------------------------===//

unsigned Param::sizeBytes() const {
  std::optional<ScalarType> scalar = parseScalarType(type);
  unsigned elem = scalar ? std::max(1u, scalar->bits / 8) : 0;
  return isArray ? static_cast<unsigned>(elem * arraySize) : elem;
}

const Param *Function::findParam(StringRef paramName) const {
  for (const Param &p : params)
    if (p.name == paramName)
      return &p;
  for (const Param &p : returnParams)
    if (p.name == paramName)
      return &p;
  return nullptr;
}

bool Function::scopeEncloses(unsigned outer, unsigned inner) const {
  while (true) {
    if (inner == outer)
      return true;
    if (inner == 0 || inner >= scopeParents.size())
      return false;
    inner = scopeParents[inner];
  }
}

StringRef Module::chip() const {
  for (StringRef t : targets)
    if (t.starts_with("sm_"))
      return t;
  return {};
}

const Function *Module::findFunction(StringRef name) const {
  for (const Function &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

const VariableDecl *Module::findGlobal(StringRef name) const {
  for (const VariableDecl &v : globals)
    if (v.name == name)
      return &v;
  return nullptr;
}

unsigned Module::instructionCount() const {
  unsigned n = 0;
  for (const Function &f : functions)
    n += f.instructions.size();
  return n;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

namespace {

bool isStateSpaceDirective(StringRef word) {
  return llvm::StringSwitch<bool>(word)
      .Cases({".global", ".const", ".shared", ".local"}, true)
      .Cases({".tex", ".texref", ".samplerref", ".surfref"}, true)
      .Default(false);
}

bool isLinkage(StringRef word) {
  return llvm::StringSwitch<bool>(word)
      .Cases({".visible", ".extern", ".weak", ".common"}, true)
      .Default(false);
}

bool parseUnsigned(StringRef text, uint64_t &value) {
  if (text.ends_with("U") || text.ends_with("u"))
    text = text.drop_back();
  if (text.size() > 2 && (text[1] == 'b' || text[1] == 'B') && text[0] == '0')
    return !text.drop_front(2).getAsInteger(2, value);
  return !text.getAsInteger(0, value);
}

class Parser {
public:
  explicit Parser(StringRef text) : lex(text) {}

  ParseResult run() {
    parseModule();
    if (lex.unterminatedAt().line)
      error(lex.unterminatedAt(), "syntax",
            "unterminated comment or string literal");
    ParseResult result;
    result.module = std::move(module);
    result.diagnostics = std::move(diags);
    sortDiagnostics(result.diagnostics);
    return result;
  }

private:
  // --- Diagnostics and recovery -------------------------------------------
  void error(SourceLocation loc, StringRef code, std::string message,
             std::string hint = {}) {
    diags.push_back(makeDiagnostic(Severity::Error, loc, code,
                                   std::move(message), std::move(hint)));
  }

  /// Skips to just after the next ';' at this nesting level, or stops before
  /// a '}' / end of input. Braces inside (initializers) are skipped whole.
  void skipStatement() {
    int depth = 0;
    while (lex.peek().kind != TokenKind::Eof) {
      const Token &t = lex.peek();
      if (t.is('{')) {
        ++depth;
      } else if (t.is('}')) {
        if (depth == 0)
          return;
        --depth;
      } else if (t.is(';') && depth == 0) {
        lex.next();
        return;
      }
      lex.next();
    }
  }

  /// Skips the rest of a line-terminated directive (.loc, .file).
  void skipLine() {
    lex.next();
    while (lex.peek().kind != TokenKind::Eof && !lex.peek().startsLine)
      lex.next();
  }

  /// Skips `{ ... }` with nesting (debug sections).
  void skipBraced() {
    int depth = 0;
    while (lex.peek().kind != TokenKind::Eof) {
      Token t = lex.next();
      if (t.is('{'))
        ++depth;
      else if (t.is('}') && --depth <= 0)
        return;
    }
  }

  bool expectPunct(char c, StringRef context) {
    if (lex.peek().is(c)) {
      lex.next();
      return true;
    }
    error(lex.peek().loc, "syntax",
          "expected '" + std::string(1, c) + "' " + context.str() +
              ", found '" + describe(lex.peek()) + "'");
    return false;
  }

  size_t offsetOf(const Token &t) const {
    return t.text.data() - lex.source().data();
  }

  /// The text from offset `begin` to the end of the last consumed token.
  StringRef consumedSince(size_t begin) const {
    return lex.source().slice(begin, lex.consumedEnd());
  }

  static std::string describe(const Token &t) {
    if (t.kind == TokenKind::Eof)
      return "end of file";
    return t.text.str();
  }

  // --- Module level --------------------------------------------------------
  void parseModule() {
    while (lex.peek().kind != TokenKind::Eof) {
      const Token &t = lex.peek();
      if (t.kind == TokenKind::DotWord) {
        parseTopDirective();
      } else if (t.is('}')) {
        error(t.loc, "unbalanced-braces",
              "unmatched '}' outside of any function body",
              "remove this '}' or the extra '}' before it");
        lex.next();
      } else if (t.is(';')) {
        lex.next();
      } else {
        error(t.loc, "syntax",
              "expected a directive at module scope, found '" + describe(t) +
                  "'");
        skipStatement();
        if (lex.peek().is('}'))
          lex.next();
      }
    }
  }

  void parseTopDirective() {
    Token t = lex.peek();
    StringRef word = t.text;
    if (word == ".version") {
      lex.next();
      Token v = lex.next();
      StringRef major, minor;
      std::tie(major, minor) = v.text.split('.');
      if ((v.kind != TokenKind::Float && v.kind != TokenKind::Integer) ||
          major.getAsInteger(10, module.versionMajor) ||
          (!minor.empty() && minor.getAsInteger(10, module.versionMinor))) {
        error(v.loc, "syntax",
              "expected a version number like 8.0 after .version, found '" +
                  describe(v) + "'");
        return;
      }
      module.versionLoc = t.loc;
      return;
    }
    if (word == ".target") {
      lex.next();
      module.targetLoc = t.loc;
      while (true) {
        Token name = lex.peek();
        if (name.kind != TokenKind::Identifier) {
          error(name.loc, "syntax",
                "expected a target name like sm_90 after .target, found '" +
                    describe(name) + "'");
          return;
        }
        lex.next();
        module.targets.push_back(name.text);
        if (!lex.peek().is(','))
          return;
        lex.next();
      }
    }
    if (word == ".address_size") {
      lex.next();
      Token v = lex.next();
      uint64_t size = 0;
      if (v.kind != TokenKind::Integer || !parseUnsigned(v.text, size) ||
          (size != 32 && size != 64)) {
        error(v.loc, "syntax",
              ".address_size must be 32 or 64, found '" + describe(v) + "'");
        return;
      }
      module.addressSize = size;
      module.addressSizeLoc = t.loc;
      return;
    }
    if (word == ".file" || word == ".loc")
      return skipLine();
    if (word == ".section") {
      lex.next();
      while (lex.peek().kind != TokenKind::Eof && !lex.peek().is('{') &&
             !lex.peek().is(';'))
        lex.next();
      if (lex.peek().is('{'))
        skipBraced();
      return;
    }
    if (word == ".pragma" || word == ".alias") {
      lex.next();
      return skipStatement();
    }
    // Linkage, then a function or a variable.
    size_t begin = offsetOf(lex.peek());
    StringRef linkage;
    while (lex.peek().kind == TokenKind::DotWord &&
           isLinkage(lex.peek().text)) {
      linkage = lex.next().text;
    }
    const Token &what = lex.peek();
    if (what.isDot(".entry") || what.isDot(".func")) {
      size_t parsed = module.functions.size();
      parseFunction(linkage);
      if (module.functions.size() > parsed)
        module.functions.back().text = consumedSince(begin);
      return;
    }
    if (what.kind == TokenKind::DotWord && isStateSpaceDirective(what.text)) {
      VariableDecl var;
      var.linkage = linkage;
      if (parseVariable(var, 0)) {
        var.text = consumedSince(begin);
        module.globals.push_back(var);
      }
      return;
    }
    reportUnknownDirective(what);
    skipStatement();
  }

  void reportUnknownDirective(const Token &t) {
    if (t.kind != TokenKind::DotWord) {
      error(t.loc, "syntax",
            "expected a directive, found '" + describe(t) + "'");
      return;
    }
    StringRef suggestion = suggestModifier(t.text);
    if (!suggestion.empty() && isStateSpace(suggestion)) {
      error(t.loc, "unknown-state-space",
            "unknown state space '" + t.text.str() + "'",
            "did you mean '" + suggestion.str() + "'?");
      return;
    }
    error(t.loc, "unknown-directive",
          "unknown directive '" + t.text.str() + "'",
          suggestion.empty() ? std::string()
                             : "did you mean '" + suggestion.str() + "'?");
  }

  /// Parses `.space [.align N] [.vN] .type name[dims] [= init];` starting at
  /// the state space token. Returns false when it was malformed.
  bool parseVariable(VariableDecl &var, unsigned scope) {
    Token space = lex.next();
    var.space = space.text;
    var.loc = space.loc;
    var.scope = scope;
    while (lex.peek().kind == TokenKind::DotWord) {
      Token attr = lex.next();
      if (attr.text == ".align") {
        Token n = lex.next();
        uint64_t value = 0;
        if (n.kind != TokenKind::Integer || !parseUnsigned(n.text, value)) {
          error(n.loc, "syntax", "expected an alignment after .align");
          skipStatement();
          return false;
        }
        var.align = value;
      } else if (attr.text.starts_with(".v") || attr.text == ".ptr" ||
                 isStateSpaceDirective(attr.text) ||
                 attr.text.starts_with(".attribute")) {
        // Vector width or address-space attribute: not needed by the lint.
        if (attr.text.starts_with(".attribute") && lex.peek().is('(')) {
          while (!lex.peek().is(')') && lex.peek().kind != TokenKind::Eof)
            lex.next();
          lex.next();
        }
      } else if (isTypeName(attr.text) || attr.text == ".texref" ||
                 attr.text == ".samplerref" || attr.text == ".surfref") {
        var.type = attr.text;
      } else {
        error(attr.loc, "syntax",
              "unknown type '" + attr.text.str() + "' in declaration of a " +
                  var.space.str() + " variable");
        skipStatement();
        return false;
      }
    }
    Token name = lex.peek();
    if (name.kind != TokenKind::Identifier) {
      error(name.loc, "syntax",
            "expected a variable name in " + var.space.str() +
                " declaration, found '" + describe(name) + "'");
      skipStatement();
      return false;
    }
    lex.next();
    var.name = name.text;
    var.loc = name.loc;
    while (lex.peek().is('[')) {
      lex.next();
      var.isArray = true;
      uint64_t dim = 0;
      if (lex.peek().kind == TokenKind::Integer) {
        parseUnsigned(lex.next().text, dim);
      }
      var.dims.push_back(dim);
      if (!expectPunct(']', "to close the array dimension")) {
        skipStatement();
        return false;
      }
    }
    if (lex.peek().is('<')) {
      // `.reg`-style range on a variable is not PTX; report clearly.
      error(lex.peek().loc, "syntax",
            "a range '<N>' is only valid in a .reg declaration");
      skipStatement();
      return false;
    }
    if (lex.peek().is('=')) {
      var.hasInitializer = true;
      lex.next();
      // Initializer: skip balanced braces up to ';'.
      int depth = 0;
      while (lex.peek().kind != TokenKind::Eof) {
        const Token &t = lex.peek();
        if (t.is('{'))
          ++depth;
        else if (t.is('}')) {
          if (depth == 0)
            break;
          --depth;
        } else if (t.is(';') && depth == 0)
          break;
        lex.next();
      }
    }
    if (!lex.peek().is(';')) {
      error(lex.peek().loc, "syntax",
            "expected ';' after declaration of '" + var.name.str() + "'");
      skipStatement();
      return true;
    }
    lex.next();
    return true;
  }

  // --- Functions -----------------------------------------------------------
  bool parseParamList(std::vector<Param> &params, StringRef what) {
    if (!expectPunct('(', what))
      return false;
    if (lex.peek().is(')')) {
      lex.next();
      return true;
    }
    while (true) {
      Param param;
      const Token &spaceTok = lex.peek();
      if (!spaceTok.isDot(".param") && !spaceTok.isDot(".reg")) {
        error(spaceTok.loc, "syntax",
              "expected '.param' to start a parameter, found '" +
                  describe(spaceTok) + "'",
              "declare each parameter as '.param .u64 name'");
        return false;
      }
      param.space = lex.next().text;
      param.loc = spaceTok.loc;
      while (lex.peek().kind == TokenKind::DotWord) {
        Token attr = lex.next();
        if (attr.text == ".align") {
          Token n = lex.next();
          uint64_t value = 0;
          if (n.kind != TokenKind::Integer || !parseUnsigned(n.text, value)) {
            error(n.loc, "syntax", "expected an alignment after .align");
            return false;
          }
          if (param.isPtr)
            param.ptrAlign = value;
          else
            param.align = value;
        } else if (attr.text == ".ptr") {
          param.isPtr = true;
        } else if (isStateSpaceDirective(attr.text)) {
          param.ptrSpace = attr.text;
        } else if (isTypeName(attr.text)) {
          param.type = attr.text;
        } else {
          error(attr.loc, "syntax",
                "unknown type or attribute '" + attr.text.str() +
                    "' in parameter declaration");
          return false;
        }
      }
      Token name = lex.peek();
      if (name.kind != TokenKind::Identifier) {
        error(name.loc, "syntax",
              "expected a parameter name, found '" + describe(name) + "'");
        return false;
      }
      lex.next();
      param.name = name.text;
      param.loc = name.loc;
      if (param.type.empty())
        error(name.loc, "syntax",
              "parameter '" + name.text.str() + "' has no type",
              "write '.param .u64 " + name.text.str() + "'");
      if (lex.peek().is('[')) {
        lex.next();
        param.isArray = true;
        if (lex.peek().kind == TokenKind::Integer)
          parseUnsigned(lex.next().text, param.arraySize);
        if (!expectPunct(']', "to close the parameter array"))
          return false;
      }
      params.push_back(param);
      if (lex.peek().is(',')) {
        lex.next();
        continue;
      }
      return expectPunct(')', "to close the parameter list");
    }
  }

  void parseFunction(StringRef linkage) {
    Function fn;
    Token kw = lex.next();
    fn.isEntry = kw.text == ".entry";
    fn.linkage = linkage;
    fn.loc = kw.loc;
    if (!fn.isEntry && lex.peek().is('(')) {
      if (!parseParamList(fn.returnParams, "to open the return parameter")) {
        skipFunctionRest();
        return;
      }
    }
    Token name = lex.peek();
    if (name.kind != TokenKind::Identifier) {
      error(name.loc, "syntax",
            "expected a function name after " + kw.text.str() + ", found '" +
                describe(name) + "'");
      skipFunctionRest();
      return;
    }
    lex.next();
    fn.name = name.text;
    fn.loc = name.loc;
    if (lex.peek().is('(')) {
      if (!parseParamList(fn.params, "to open the parameter list")) {
        skipFunctionRest();
        module.functions.push_back(std::move(fn));
        return;
      }
    }
    // Performance directives: .maxntid 128, 1, 1  .reqntid 256  .noreturn.
    while (lex.peek().kind == TokenKind::DotWord) {
      FunctionDirective dir;
      Token d = lex.next();
      dir.name = d.text;
      dir.loc = d.loc;
      while (lex.peek().kind == TokenKind::Integer) {
        uint64_t value = 0;
        parseUnsigned(lex.next().text, value);
        dir.values.push_back(value);
        if (!lex.peek().is(','))
          break;
        lex.next();
      }
      fn.directives.push_back(dir);
    }
    if (lex.peek().is(';')) {
      lex.next(); // A declaration (prototype) without body.
      module.functions.push_back(std::move(fn));
      return;
    }
    if (!lex.peek().is('{')) {
      error(lex.peek().loc, "syntax",
            "expected '{' to open the body of '" + fn.name.str() +
                "', found '" + describe(lex.peek()) + "'");
      skipFunctionRest();
      module.functions.push_back(std::move(fn));
      return;
    }
    fn.hasBody = true;
    fn.bodyBegin = lex.next().loc;
    fn.scopeBegins[0] = fn.bodyBegin;
    parseBody(fn);
    module.functions.push_back(std::move(fn));
  }

  void skipFunctionRest() {
    while (lex.peek().kind != TokenKind::Eof && !lex.peek().is('{') &&
           !lex.peek().is(';'))
      lex.next();
    if (lex.peek().is('{'))
      skipBraced();
    else if (lex.peek().is(';'))
      lex.next();
  }

  void parseBody(Function &fn) {
    std::vector<unsigned> scopes{0};
    while (true) {
      const Token &t = lex.peek();
      if (t.kind == TokenKind::Eof) {
        SourceLocation open = fn.scopeBegins[scopes.back()];
        Diagnostic diag = makeDiagnostic(
            Severity::Error, open, "unbalanced-braces",
            "'{' opened here is never closed (end of file reached inside '" +
                fn.name.str() + "')",
            "add the missing '}'");
        diags.push_back(std::move(diag));
        fn.bodyEnd = t.loc;
        return;
      }
      if (t.is('}')) {
        SourceLocation closeLoc = lex.next().loc;
        scopes.pop_back();
        if (scopes.empty()) {
          fn.bodyEnd = closeLoc;
          return;
        }
        continue;
      }
      if (t.is('{')) {
        fn.scopeParents.push_back(scopes.back());
        fn.scopeBegins.push_back(lex.next().loc);
        scopes.push_back(fn.scopeParents.size() - 1);
        continue;
      }
      if (t.is(';')) {
        lex.next();
        continue;
      }
      unsigned scope = scopes.back();
      if (t.kind == TokenKind::DotWord) {
        if (t.text == ".entry" || t.text == ".func" || isLinkage(t.text)) {
          // A new function starts: the body was never closed.
          SourceLocation open = fn.scopeBegins[scopes.back()];
          error(open, "unbalanced-braces",
                "'{' opened here is not closed before '" + t.text.str() +
                    "' at line " + std::to_string(t.loc.line),
                "add the missing '}'");
          fn.bodyEnd = t.loc;
          return;
        }
        parseBodyDirective(fn, scope);
        continue;
      }
      if (t.is('@') || t.kind == TokenKind::Identifier) {
        parseLabelOrInstruction(fn, scope);
        continue;
      }
      error(t.loc, "syntax",
            "expected an instruction, label or directive, found '" +
                describe(t) + "'");
      lex.next();
      skipStatement();
    }
  }

  void parseBodyDirective(Function &fn, unsigned scope) {
    const Token &t = lex.peek();
    StringRef word = t.text;
    if (word == ".reg")
      return parseRegisterDecl(fn, scope);
    if (word == ".loc" || word == ".file")
      return skipLine();
    if (word == ".pragma") {
      lex.next();
      return skipStatement();
    }
    if (word == ".param" || isStateSpaceDirective(word)) {
      VariableDecl var;
      if (word == ".param")
        var.space = word;
      if (parseVariable(var, scope))
        fn.variables.push_back(var);
      return;
    }
    reportUnknownDirective(t);
    lex.next();
    skipStatement();
  }

  void parseRegisterDecl(Function &fn, unsigned scope) {
    Token regTok = lex.next();
    StringRef type;
    unsigned vectorWidth = 1;
    while (lex.peek().kind == TokenKind::DotWord) {
      Token attr = lex.next();
      if (attr.text == ".v2" || attr.text == ".v4" || attr.text == ".v8") {
        vectorWidth = attr.text.back() - '0';
      } else if (isTypeName(attr.text)) {
        type = attr.text;
      } else {
        StringRef suggestion = suggestModifier(attr.text);
        error(attr.loc, "syntax",
              "unknown register type '" + attr.text.str() + "'",
              suggestion.empty() || !isTypeName(suggestion)
                  ? std::string("use a type such as .b32, .b64, .f32 or .pred")
                  : "did you mean '" + suggestion.str() + "'?");
        skipStatement();
        return;
      }
    }
    if (type.empty()) {
      error(regTok.loc, "syntax", ".reg declaration without a type",
            "write '.reg .b32 %r<N>;'");
      skipStatement();
      return;
    }
    while (true) {
      Token name = lex.peek();
      if (name.kind != TokenKind::Identifier) {
        error(name.loc, "syntax",
              "expected a register name in .reg declaration, found '" +
                  describe(name) + "'");
        skipStatement();
        return;
      }
      lex.next();
      RegisterDecl decl;
      decl.type = type;
      decl.name = name.text;
      decl.loc = name.loc;
      decl.scope = scope;
      decl.vectorWidth = vectorWidth;
      if (lex.peek().is('<')) {
        lex.next();
        Token n = lex.next();
        uint64_t count = 0;
        if (n.kind != TokenKind::Integer || !parseUnsigned(n.text, count)) {
          error(n.loc, "syntax",
                "expected a register count in '" + name.text.str() + "<N>'");
          skipStatement();
          return;
        }
        if (!expectPunct('>', "to close the register range")) {
          skipStatement();
          return;
        }
        decl.isRange = true;
        decl.count = count;
      }
      fn.registers.push_back(decl);
      if (lex.peek().is(',')) {
        lex.next();
        continue;
      }
      if (!lex.peek().is(';')) {
        error(lex.peek().loc, "syntax",
              "expected ';' after .reg declaration, found '" +
                  describe(lex.peek()) + "'");
        skipStatement();
        return;
      }
      lex.next();
      return;
    }
  }

  void parseLabelOrInstruction(Function &fn, unsigned scope) {
    Instruction inst;
    inst.scope = scope;
    Token first = lex.next();
    if (first.is('@')) {
      inst.guardLoc = first.loc;
      if (lex.peek().is('!')) {
        lex.next();
        inst.guardNegated = true;
      }
      Token pred = lex.peek();
      if (pred.kind != TokenKind::Identifier) {
        error(pred.loc, "syntax",
              "expected a predicate register after '@', found '" +
                  describe(pred) + "'");
        skipStatement();
        return;
      }
      lex.next();
      inst.guard = pred.text;
      inst.guardLoc = pred.loc;
      first = lex.peek();
      if (first.kind != TokenKind::Identifier) {
        error(first.loc, "syntax",
              "expected an instruction after the guard '@" + pred.text.str() +
                  "', found '" + describe(first) + "'");
        skipStatement();
        return;
      }
      lex.next();
    } else if (lex.peek().is(':') && !lex.peek().spaceBefore) {
      lex.next();
      if (lex.peek().isDot(".callprototype")) {
        skipStatement();
        return;
      }
      Label label;
      label.name = first.text;
      label.loc = first.loc;
      label.instructionIndex = fn.instructions.size();
      fn.labels.push_back(label);
      return;
    } else if (lex.peek().is(':')) {
      // `name :` with a space: a label too (prototypes are written so).
      lex.next();
      if (lex.peek().isDot(".callprototype")) {
        skipStatement();
        return;
      }
      Label label;
      label.name = first.text;
      label.loc = first.loc;
      label.instructionIndex = fn.instructions.size();
      fn.labels.push_back(label);
      return;
    }
    // Opcode: identifier plus the modifiers glued to it.
    inst.modifiers.reserve(4);
    inst.operands.reserve(4);
    inst.loc = first.loc;
    inst.baseOpcode = first.text;
    const char *begin = first.text.data();
    const char *end = first.text.end();
    while (lex.peek().kind == TokenKind::DotWord && !lex.peek().spaceBefore) {
      Token mod = lex.next();
      inst.modifiers.push_back(mod.text);
      end = mod.text.end();
    }
    inst.opcode = StringRef(begin, end - begin);
    parseOperands(inst);
    fn.instructions.push_back(std::move(inst));
  }

  void parseOperands(Instruction &inst) {
    if (lex.peek().is(';')) {
      lex.next();
      return;
    }
    while (true) {
      const Token &t = lex.peek();
      if (t.kind == TokenKind::Eof || t.is('}')) {
        error(lastEnd, "syntax",
              "expected ';' after instruction '" + inst.opcode.str() + "'",
              "end the instruction with ';'");
        return;
      }
      Operand op;
      if (!parseOperand(op)) {
        skipStatement();
        return;
      }
      inst.operands.push_back(std::move(op));
      const Token &sep = lex.peek();
      if (sep.is(',')) {
        lex.next();
        continue;
      }
      if (sep.is(';')) {
        lex.next();
        return;
      }
      if (sep.startsLine || sep.is('}') || sep.kind == TokenKind::Eof) {
        // Missing semicolon: report at the end of this instruction and let
        // the next line parse as its own statement.
        error(lastEnd, "syntax",
              "expected ';' after instruction '" + inst.opcode.str() + "'",
              "end the instruction with ';'");
        return;
      }
      error(sep.loc, "syntax",
            "expected ',' or ';' after operand of '" + inst.opcode.str() +
                "', found '" + describe(sep) + "'");
      skipStatement();
      return;
    }
  }

  Token consume() {
    Token t = lex.next();
    lastEnd = t.loc;
    lastEnd.column += t.text.size();
    return t;
  }

  bool parseOperand(Operand &op) {
    if (!parseTerm(op))
      return false;
    // Binary expressions: p|q (setp), a+4, sym+8, (1<<3).
    while (true) {
      const Token &t = lex.peek();
      bool binary = t.is('+') || t.is('-') || t.is('|') || t.is('*') ||
                    t.is('&') || t.is('^') || t.is('/');
      bool shift = (t.is('<') || t.is('>'));
      if (!binary && !shift)
        return true;
      Operand lhs = std::move(op);
      op = Operand();
      op.loc = lhs.loc;
      char opChar = t.text[0];
      consume();
      if (shift) {
        if (!lex.peek().is(opChar)) {
          error(lex.peek().loc, "syntax",
                "unexpected '" + std::string(1, opChar) + "' in operand");
          return false;
        }
        consume();
      }
      Operand rhs;
      if (!parseTerm(rhs))
        return false;
      // [reg+imm] keeps the register as the base and the offset as a value.
      if ((opChar == '+' || opChar == '-') &&
          rhs.kind == Operand::Kind::IntImmediate &&
          (lhs.kind == Operand::Kind::Register ||
           lhs.kind == Operand::Kind::Symbol)) {
        op.kind = Operand::Kind::Expression;
        op.intValue = opChar == '+' ? rhs.intValue : -rhs.intValue;
        op.text = StringRef(lhs.text.data(), rhs.text.end() - lhs.text.data());
        op.elements.push_back(std::move(lhs));
        continue;
      }
      op.kind = Operand::Kind::Expression;
      op.text = StringRef(lhs.text.data(), rhs.text.end() - lhs.text.data());
      if (lhs.kind == Operand::Kind::Expression && !lhs.elements.empty()) {
        op.intValue = lhs.intValue;
        for (Operand &e : lhs.elements)
          op.elements.push_back(std::move(e));
      } else {
        op.elements.push_back(std::move(lhs));
      }
      op.elements.push_back(std::move(rhs));
    }
  }

  bool parseList(Operand &op, char close, Operand::Kind kind) {
    Token open = consume();
    op.kind = kind;
    op.loc = open.loc;
    const char *begin = open.text.data();
    if (!lex.peek().is(close)) {
      while (true) {
        Operand element;
        if (!parseOperand(element))
          return false;
        op.elements.push_back(std::move(element));
        if (lex.peek().is(',')) {
          consume();
          continue;
        }
        break;
      }
    }
    if (!lex.peek().is(close)) {
      error(lex.peek().loc, "syntax",
            "expected '" + std::string(1, close) +
                "' to close the operand "
                "opened at column " +
                std::to_string(open.loc.column) + ", found '" +
                describe(lex.peek()) + "'");
      return false;
    }
    Token closeTok = consume();
    op.text = StringRef(begin, closeTok.text.end() - begin);
    return true;
  }

  bool parseTerm(Operand &op) {
    const Token &t = lex.peek();
    op.loc = t.loc;
    if (t.is('!')) {
      consume();
      if (!parseTerm(op))
        return false;
      op.negated = !op.negated;
      return true;
    }
    if (t.is('-') || t.is('~')) {
      char sign = t.text[0];
      Token signTok = consume();
      if (!parseTerm(op))
        return false;
      if (op.kind == Operand::Kind::IntImmediate)
        op.intValue = sign == '-' ? -op.intValue : ~op.intValue;
      op.text =
          StringRef(signTok.text.data(), op.text.end() - signTok.text.data());
      op.loc = signTok.loc;
      return true;
    }
    if (t.is('[')) {
      Operand inner;
      if (!parseList(inner, ']', Operand::Kind::Address))
        return false;
      op = std::move(inner);
      // [base+off] -> Address{elements=[base], intValue=off}.
      if (op.elements.size() == 1 &&
          op.elements[0].kind == Operand::Kind::Expression &&
          op.elements[0].elements.size() == 1) {
        Operand expr = std::move(op.elements[0]);
        op.intValue = expr.intValue;
        op.elements.clear();
        op.elements.push_back(std::move(expr.elements[0]));
      }
      return true;
    }
    if (t.is('{'))
      return parseList(op, '}', Operand::Kind::Vector);
    if (t.is('(')) {
      return parseList(op, ')', Operand::Kind::ParenList);
    }
    if (t.kind == TokenKind::Integer) {
      Token n = consume();
      op.kind = Operand::Kind::IntImmediate;
      op.text = n.text;
      uint64_t value = 0;
      parseUnsigned(n.text, value);
      op.intValue = static_cast<int64_t>(value);
      return true;
    }
    if (t.kind == TokenKind::Float) {
      Token n = consume();
      op.kind = Operand::Kind::FloatImmediate;
      op.text = n.text;
      op.decimalFloat = !(n.text.size() > 2 && n.text[0] == '0' &&
                          (n.text[1] == 'f' || n.text[1] == 'F' ||
                           n.text[1] == 'd' || n.text[1] == 'D'));
      return true;
    }
    if (t.kind == TokenKind::Identifier) {
      Token id = consume();
      const char *begin = id.text.data();
      const char *end = id.text.end();
      // %tid.x, %envreg3: glue the components.
      while (lex.peek().kind == TokenKind::DotWord && !lex.peek().spaceBefore) {
        end = consume().text.end();
      }
      op.text = StringRef(begin, end - begin);
      if (id.text == "_")
        op.kind = Operand::Kind::Sink;
      else if (id.text.starts_with("%"))
        op.kind = Operand::Kind::Register;
      else
        op.kind = Operand::Kind::Symbol;
      return true;
    }
    error(t.loc, "syntax", "expected an operand, found '" + describe(t) + "'");
    return false;
  }

  Lexer lex;
  Module module;
  std::vector<Diagnostic> diags;
  SourceLocation lastEnd;
};

} // namespace

ParseResult llmptx::ptx::parsePtx(StringRef text) { return Parser(text).run(); }
