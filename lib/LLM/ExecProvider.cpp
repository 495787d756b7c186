//===- ExecProvider.cpp - A command as the model --------------------------===//
//
// The command runs through /bin/sh -c with the request JSON on stdin; its
// stdout is the completion. The child gets its own session so that a timeout
// kills the whole process group (the shell and whatever it started), and the
// timeout is enforced by a watchdog thread rather than sys::Wait's alarm(2),
// which is process-wide and unsafe with several calls in flight.
// Non-zero exits are not retried: the command may itself be costly.
// An interrupted compiler (SIGINT, SIGTERM, SIGHUP) takes its commands with
// it: their process groups are killed from LLVM's interrupt handler, and
// the request and answer files (created 0600) are removed by it.
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
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <atomic>
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

/// The process groups of the commands running now, for the interrupt
/// handler: a fixed table of atomics, which a signal handler may read.
class RunningCommands {
public:
  /// Remembers `pid` (a process group leader); false when the table is full
  /// (the command then runs untracked).
  static bool add(pid_t pid) {
    installHandler();
    for (std::atomic<pid_t> &slot : slots) {
      pid_t empty = 0;
      if (slot.compare_exchange_strong(empty, pid))
        return true;
    }
    return false;
  }
  static void remove(pid_t pid) {
    for (std::atomic<pid_t> &slot : slots) {
      pid_t expected = pid;
      if (slot.compare_exchange_strong(expected, 0))
        return;
    }
  }

private:
  /// Kills every running command's group, then ends the process: LLVM has
  /// already removed the files registered with RemoveFileOnSignal and put
  /// the default actions back, so the raise is a plain termination.
  static void interrupted() {
    for (std::atomic<pid_t> &slot : slots)
      if (pid_t pid = slot.load())
        ::kill(-pid, SIGKILL);
    ::raise(SIGTERM);
  }
  static void installHandler() {
    static std::once_flag once;
    std::call_once(once, [] { sys::SetInterruptFunction(interrupted); });
  }
  static inline std::array<std::atomic<pid_t>, 256> slots{};
};

/// The three files a command talks through (the request on stdin, stdout,
/// stderr), created 0600; they are removed with this object, or by LLVM's
/// signal handler when the process is interrupted.
struct CommandFiles {
  SmallString<128> in, out, err;

  ~CommandFiles() {
    for (SmallString<128> *path : {&in, &out, &err})
      if (!path->empty()) {
        sys::fs::remove(*path);
        sys::DontRemoveFileOnSignal(*path);
      }
  }

  /// Creates the files and writes `input` to the first; the reason when one
  /// cannot be created.
  std::optional<std::string> create(StringRef input) {
    for (auto [path, prefix] :
         {std::pair(&in, "llmptx-exec-in"), std::pair(&out, "llmptx-exec-out"),
          std::pair(&err, "llmptx-exec-err")}) {
      // The request and the answer are the user's code: readable by the
      // user alone.
      SmallString<128> model, created;
      sys::path::system_temp_directory(/*ErasedOnReboot=*/true, model);
      sys::path::append(model, Twine(prefix) + "-%%%%%%%%.txt");
      int fd;
      if (std::error_code ec = sys::fs::createUniqueFile(
              model, fd, created, sys::fs::OF_None,
              sys::fs::owner_read | sys::fs::owner_write))
        return ec.message();
      *path = created;
      sys::RemoveFileOnSignal(*path);
      raw_fd_ostream os(fd, /*shouldClose=*/true);
      if (path == &in)
        os << input;
    }
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
    bool tracked = RunningCommands::add(process.Pid);
    commandExit = waitWithDeadline(process);
    if (tracked)
      RunningCommands::remove(process.Pid);
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
