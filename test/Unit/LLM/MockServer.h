//===- MockServer.h - Loopback mock LLM server for tests --------*- C++ -*-===//
//
// Runs llmptx.testing.mock_llm_server as a child process on an ephemeral
// port with a given script, and reads its request log back. The server
// stops when the test's MockServer goes out of scope (SIGTERM), and on its
// own after an idle timeout if the test dies first.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_TEST_UNIT_LLM_MOCKSERVER_H
#define LLMPTX_TEST_UNIT_LLM_MOCKSERVER_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace llmptx::test {

/// A scratch directory removed with its contents at scope exit.
class ScratchDir {
public:
  ScratchDir() {
    llvm::sys::fs::createUniqueDirectory("llmptx-llm-test", path);
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<256> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  llvm::SmallString<128> path;
};

/// A Python with the llmptx package: lit's LLMPTX_PYTHON, else the build's
/// environment.
inline std::string pythonExecutable() {
  if (const char *python = std::getenv("LLMPTX_PYTHON"))
    return python;
  return LLMPTX_VENV_PYTHON;
}

class MockServer {
public:
  /// Starts the server with \p script (the JSON text of a script).
  explicit MockServer(const std::string &script) {
    scriptPath = dir.file("script.json");
    logPath = dir.file("log.jsonl");
    portPath = dir.file("port");
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(scriptPath, ec);
      os << script;
    }
    std::string python = pythonExecutable();
    std::vector<llvm::StringRef> args = {
        python,           "-m",          "llmptx.testing.mock_llm_server",
        "--script",       scriptPath,    "--log",
        logPath,          "--port-file", portPath,
        "--idle-timeout", "60"};
    process = llvm::sys::ExecuteNoWait(python, args, std::nullopt);
    for (int i = 0; i < 400 && port.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      if (auto buffer = llvm::MemoryBuffer::getFile(portPath))
        port = (*buffer)->getBuffer().trim().str();
    }
  }

  ~MockServer() {
    if (process.Pid > 0) {
      ::kill(process.Pid, SIGTERM);
      llvm::sys::Wait(process, std::nullopt);
    }
  }

  bool started() const { return !port.empty(); }
  std::string baseUrl() const { return "http://127.0.0.1:" + port + "/v1"; }

  /// The requests received so far, one JSON object each.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> records;
    auto buffer = llvm::MemoryBuffer::getFile(logPath);
    if (!buffer)
      return records;
    llvm::SmallVector<llvm::StringRef, 16> lines;
    (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef line : lines)
      records.push_back(nlohmann::json::parse(line.begin(), line.end()));
    return records;
  }

  unsigned maxInFlight() const {
    unsigned result = 0;
    for (const nlohmann::json &record : requests())
      result = std::max(result, record["in_flight"].get<unsigned>());
    return result;
  }

private:
  ScratchDir dir;
  std::string scriptPath, logPath, portPath, port;
  llvm::sys::ProcessInfo process;
};

} // namespace llmptx::test

#endif // LLMPTX_TEST_UNIT_LLM_MOCKSERVER_H
