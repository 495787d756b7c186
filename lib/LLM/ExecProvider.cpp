//===- ExecProvider.cpp - A command as the model --------------------------===//
//
// The command runs through /bin/sh -c with the request JSON on stdin; its
// stdout is the completion. The child gets its own session so that a timeout
// kills the whole process group (the shell and whatever it started), and the
// timeout is enforced by a watchdog thread rather than sys::Wait's alarm(2),
// which is process-wide and unsafe with several calls in flight.
// Non-zero exits are not retried: the command may itself be costly.
//
//===----------------------------------------------------------------------===//

#include "HttpTransport.h"
#include "ProviderKinds.h"
#include "Wire.h"

#include "llmptx/LLM/Secrets.h"
#include "llmptx/LLM/Serialization.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <signal.h>
#include <thread>

using namespace llvm;

namespace llmptx::llm {

namespace {

constexpr size_t StderrTailBytes = 2000;

/// "stderr:" and the last whole lines of \p text that fit in \p bytes.
std::string stderrTail(StringRef text, size_t bytes) {
  text = text.rtrim();
  if (text.size() <= bytes)
    return "; stderr:\n" + text.str();
  StringRef tail = text.take_back(bytes);
  size_t newline = tail.find('\n');
  if (newline != StringRef::npos && newline + 1 < tail.size())
    tail = tail.drop_front(newline + 1);
  return "; stderr (last " + std::to_string(tail.size()) + " of " +
         std::to_string(text.size()) + " bytes):\n" + tail.str();
}

/// The three files a command talks through (the request on stdin, stdout,
/// stderr); they are removed with this object.
struct CommandFiles {
  SmallString<128> in, out, err;
  FileRemover inRemover, outRemover, errRemover;

  /// Creates the files and writes `input` to the first; the reason when one
  /// cannot be created.
  std::optional<std::string> create(StringRef input) {
    int inFd;
    if (std::error_code ec =
            sys::fs::createTemporaryFile("llmptx-exec-in", "json", inFd, in))
      return ec.message();
    inRemover.setFile(in);
    {
      raw_fd_ostream os(inFd, /*shouldClose=*/true);
      os << input;
    }
    if (std::error_code ec =
            sys::fs::createTemporaryFile("llmptx-exec-out", "txt", out))
      return ec.message();
    outRemover.setFile(out);
    if (std::error_code ec =
            sys::fs::createTemporaryFile("llmptx-exec-err", "txt", err))
      return ec.message();
    errRemover.setFile(err);
    return std::nullopt;
  }
};

/// How a command that started commandExit.
struct CommandExit {
  int returnCode = 0;
  std::string waitMessage;
  bool timedOut = false;
};

class ExecProvider : public Provider {
public:
  explicit ExecProvider(const ProviderConfig &config)
      : config(config), gate(config.maxInFlight) {}

  StringRef kind() const override { return "exec"; }

  Completion complete(const CompletionRequest &original) override {
    auto start = std::chrono::steady_clock::now();
    Completion completion;
    completion.provider = "exec";
    try {
      run(withEffectiveModel(original, config), completion);
    } catch (const std::exception &error) {
      completion.ok = false;
      completion.error = std::string("exec: internal error: ") + error.what();
    }
    completion.latencyMs = completion.wallMs =
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - start)
            .count();
    completion.error = redactSecrets(completion.error);
    return completion;
  }

private:
  void run(const CompletionRequest &request, Completion &completion) {
    std::string where =
        request.label.empty() ? "exec: " : "exec: " + request.label + ": ";
    std::string input = requestToJson(request);
    if (containsSecret(input)) {
      completion.error = where + "request not passed to the command: it "
                                 "contains an API key value";
      return;
    }
    CommandFiles files;
    if (std::optional<std::string> reason = files.create(input)) {
      completion.error = where + "cannot create a temporary file: " + *reason;
      return;
    }
    CommandExit commandExit;
    if (std::optional<std::string> reason = runCommand(files, commandExit)) {
      completion.error = where + *reason;
      return;
    }
    completion.attempts = 1;
    readOutcome(request, commandExit, files, where, completion);
  }

  /// Runs the command on `files` while holding a slot of the gate; the
  /// reason when /bin/sh cannot be started.
  std::optional<std::string> runCommand(const CommandFiles &files,
                                        CommandExit &commandExit) {
    std::optional<StringRef> redirects[] = {
        StringRef(files.in), StringRef(files.out), StringRef(files.err)};
    StringRef args[] = {"/bin/sh", "-c", config.execCommand};
    std::string errorMessage;
    bool executionFailed = false;
    gate.acquire();
    sys::ProcessInfo process = sys::ExecuteNoWait(
        "/bin/sh", args, std::nullopt, redirects, /*MemoryLimit=*/0,
        &errorMessage, &executionFailed, /*AffinityMask=*/nullptr,
        /*DetachProcess=*/true);
    if (executionFailed || process.Pid <= 0) {
      gate.release();
      return "cannot run /bin/sh: " + errorMessage;
    }
    commandExit = waitWithDeadline(process);
    gate.release();
    return std::nullopt;
  }

  /// Waits for the command to end; a watchdog kills its process group at
  /// the deadline unless the command was reaped first.
  CommandExit waitWithDeadline(const sys::ProcessInfo &process) const {
    CommandExit commandExit;
    std::mutex mutex;
    std::condition_variable finished;
    bool reaped = false;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(
                        static_cast<int64_t>(config.totalTimeoutS * 1000));
    pid_t pid = process.Pid;
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lock(mutex);
      if (!finished.wait_until(lock, deadline, [&] { return reaped; })) {
        commandExit.timedOut = true;
        if (::kill(-pid, SIGKILL) != 0)
          ::kill(pid, SIGKILL);
      }
    });
    sys::ProcessInfo result = sys::Wait(process, /*SecondsToWait=*/std::nullopt,
                                        &commandExit.waitMessage);
    {
      std::lock_guard<std::mutex> lock(mutex);
      reaped = true;
    }
    // The command ran in a process group of its own (DetachProcess); what
    // it left running in the background ends with it.
    ::kill(-pid, SIGKILL);
    finished.notify_all();
    watchdog.join();
    commandExit.returnCode = result.ReturnCode;
    return commandExit;
  }

  /// The completion: the command's stdout when it exited cleanly and
  /// printed something within the size limit, else why not.
  void readOutcome(const CompletionRequest &request,
                   const CommandExit &commandExit, const CommandFiles &files,
                   const std::string &where, Completion &completion) const {
    std::string errText = readTail(files.err, 1 << 20);
    bool quiet = StringRef(errText).trim().empty();
    if (commandExit.timedOut) {
      completion.error =
          formatv("{0}command timed out after {1} s and was "
                  "killed",
                  where, wire::formatSeconds(config.totalTimeoutS))
              .str();
      if (!quiet)
        completion.error += stderrTail(errText, StderrTailBytes);
      return;
    }
    if (commandExit.returnCode != 0) {
      if (commandExit.returnCode == -2)
        completion.error =
            where + "command crashed: " + commandExit.waitMessage;
      else
        completion.error = formatv("{0}command exited with status {1}", where,
                                   commandExit.returnCode)
                               .str();
      completion.error += quiet ? std::string(" (no stderr)")
                                : stderrTail(errText, StderrTailBytes);
      return;
    }
    uint64_t size = 0;
    if (!sys::fs::file_size(files.out, size) &&
        size > config.maxResponseBytes) {
      completion.error = formatv("{0}command printed {1} bytes, more than the "
                                 "{2} byte limit (maxResponseBytes); refused",
                                 where, size, config.maxResponseBytes)
                             .str();
      return;
    }
    std::string text = readLimited(files.out, config.maxResponseBytes);
    if (StringRef(text).trim().empty()) {
      completion.error = where + "command printed nothing on stdout";
      if (!quiet)
        completion.error += stderrTail(errText, StderrTailBytes);
      return;
    }
    completion.text = wire::sanitizeUtf8(text);
    completion.model = request.model;
    completion.ok = true;
  }

  /// The last `limit` bytes of `path`: what a failing command printed last
  /// is what explains it.
  static std::string readTail(StringRef path, uint64_t limit) {
    uint64_t size = 0;
    if (sys::fs::file_size(path, size) || size == 0)
      return {};
    uint64_t offset = size > limit ? size - limit : 0;
    auto buffer = MemoryBuffer::getFileSlice(path, size - offset, offset,
                                             /*IsVolatile=*/false);
    if (!buffer)
      return {};
    return (*buffer)->getBuffer().str();
  }

  static std::string readLimited(StringRef path, uint64_t limit) {
    auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
    if (!buffer)
      return {};
    StringRef data = (*buffer)->getBuffer();
    return data.take_front(limit).str();
  }

  ProviderConfig config;
  RequestGate gate;
};

} // namespace

std::unique_ptr<Provider> createExecProvider(const ProviderConfig &config) {
  return std::make_unique<ExecProvider>(config);
}

} // namespace llmptx::llm
