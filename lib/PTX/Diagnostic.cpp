//===- Diagnostic.cpp - Located PTX diagnostics -----------------*- C++ -*-===//

#include "llmptx/PTX/Diagnostic.h"

#include <algorithm>

using namespace llmptx::ptx;

llvm::StringRef llmptx::ptx::severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

Diagnostic llmptx::ptx::makeDiagnostic(Severity severity, SourceLocation loc,
                                       llvm::StringRef code,
                                       std::string message, std::string hint) {
  Diagnostic diag;
  diag.severity = severity;
  diag.loc = loc;
  diag.code = code.str();
  diag.message = std::move(message);
  diag.hint = std::move(hint);
  return diag;
}

static void appendLocation(std::string &out, llvm::StringRef fileName,
                           SourceLocation loc) {
  out += fileName.str();
  if (loc.line) {
    out += ':';
    out += std::to_string(loc.line);
    if (loc.column) {
      out += ':';
      out += std::to_string(loc.column);
    }
  }
  out += ": ";
}

static void appendDiagnostic(std::string &out, const Diagnostic &diag,
                             llvm::StringRef fileName) {
  appendLocation(out, fileName, diag.loc);
  out += severityName(diag.severity).str();
  out += ": ";
  out += diag.message;
  if (!diag.code.empty() && diag.severity != Severity::Note)
    out += " [" + diag.code + "]";
  out += '\n';
  for (const Diagnostic &note : diag.notes)
    appendDiagnostic(out, note, fileName);
  if (!diag.hint.empty()) {
    appendLocation(out, fileName, diag.loc);
    out += "note: fix: " + diag.hint + "\n";
  }
}

std::string llmptx::ptx::formatDiagnostic(const Diagnostic &diag,
                                          llvm::StringRef fileName) {
  std::string out;
  appendDiagnostic(out, diag, fileName);
  return out;
}

bool llmptx::ptx::hasErrors(const std::vector<Diagnostic> &diags) {
  return countSeverity(diags, Severity::Error) != 0;
}

unsigned llmptx::ptx::countSeverity(const std::vector<Diagnostic> &diags,
                                    Severity severity) {
  return std::count_if(diags.begin(), diags.end(), [&](const Diagnostic &d) {
    return d.severity == severity;
  });
}

llvm::json::Value llmptx::ptx::toJson(const Diagnostic &diag) {
  llvm::json::Array notes;
  for (const Diagnostic &note : diag.notes)
    notes.push_back(toJson(note));
  return llvm::json::Object{{"severity", severityName(diag.severity)},
                            {"line", diag.loc.line},
                            {"column", diag.loc.column},
                            {"message", diag.message},
                            {"hint", diag.hint},
                            {"code", diag.code},
                            {"notes", std::move(notes)}};
}

llvm::json::Value llmptx::ptx::toJson(const std::vector<Diagnostic> &diags) {
  llvm::json::Array array;
  for (const Diagnostic &diag : diags)
    array.push_back(toJson(diag));
  return array;
}

void llmptx::ptx::sortDiagnostics(std::vector<Diagnostic> &diags) {
  std::stable_sort(diags.begin(), diags.end(),
                   [](const Diagnostic &a, const Diagnostic &b) {
                     if (a.loc.line != b.loc.line)
                       return a.loc.line < b.loc.line;
                     return a.loc.column < b.loc.column;
                   });
}
