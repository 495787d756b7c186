//===- RunReport.cpp - The JSON report of an llm-lower run ------*- C++ -*-===//

#include "RunReport.h"

#include "llmptx/LLM/Secrets.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>

using namespace llmptx;

namespace {
/// What this process has reported so far to one path.
struct ReportState {
  llvm::json::Object settings;
  llvm::json::Array modules;
  llvm::json::Array kernels;
};
} // namespace

static std::mutex reportMutex;
static std::map<std::string, ReportState> &reportStates() {
  static std::map<std::string, ReportState> states;
  return states;
}

std::string llmptx::appendToReport(llvm::StringRef path,
                                   llvm::json::Object settings,
                                   llvm::json::Object moduleRecord,
                                   llvm::json::Array kernels) {
  std::lock_guard<std::mutex> lock(reportMutex);
  ReportState &state = reportStates()[path.str()];
  state.settings = std::move(settings);
  state.modules.push_back(std::move(moduleRecord));
  for (llvm::json::Value &kernel : kernels)
    state.kernels.push_back(std::move(kernel));

  llvm::json::Object report{{"format", "llmptx-report"},
                            {"version", 1},
                            {"settings", llvm::json::Object(state.settings)},
                            {"modules", llvm::json::Array(state.modules)},
                            {"kernels", llvm::json::Array(state.kernels)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  text = llm::redactSecrets(text);

  // Write next to the target and rename, so readers never see half a file.
  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (!directory.empty())
    if (std::error_code error = llvm::sys::fs::create_directories(directory))
      return "cannot create " + directory.str().str() + ": " + error.message();
  llvm::SmallString<256> temporary(path);
  temporary += ".tmp-%%%%%%";
  int fd = -1;
  llvm::SmallString<256> temporaryPath;
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(temporary, fd, temporaryPath))
    return "cannot write the report next to " + path.str() + ": " +
           error.message();
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << text;
    out.close();
    if (out.has_error()) {
      llvm::sys::fs::remove(temporaryPath);
      return "cannot write " + temporaryPath.str().str();
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporaryPath, path)) {
    llvm::sys::fs::remove(temporaryPath);
    return "cannot write " + path.str() + ": " + error.message();
  }
  return {};
}
