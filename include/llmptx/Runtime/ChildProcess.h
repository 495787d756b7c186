//===- ChildProcess.h - Watched child processes -----------------*- C++ -*-===//
//
// Every GPU run happens in a child process so that a hang, a fault or a
// sticky CUDA error becomes a verdict instead of taking the runner (or the
// compiler that called it) down. The child gets its own process group, a
// message pipe on a given descriptor, and its stdout/stderr captured; the
// parent reads messages with a deadline and kills the whole group when it
// passes.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_CHILDPROCESS_H
#define LLMPTX_RUNTIME_CHILDPROCESS_H

#include "llmptx/Runtime/ValueOrError.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace llmptx::runtime {

/// How a child ended.
struct ChildExit {
  enum class Kind { Exited, Signaled, Killed };
  Kind kind = Kind::Exited;
  /// Exit code (Exited) or signal number (Signaled, Killed).
  int code = 0;
  std::string describe() const;
};

class ChildProcess {
public:
  /// Starts argv[0] (searched on PATH when it has no slash) with the
  /// message pipe's write end as descriptor `messageFd` in the child
  /// (0 = no message pipe). stdout and stderr are captured together.
  /// With `withInput`, the child's stdin is a pipe fed by writeLine;
  /// otherwise it is /dev/null.
  static ValueOrError<ChildProcess> spawn(const std::vector<std::string> &argv,
                                          int messageFd = 3,
                                          bool withInput = false);

  ChildProcess(ChildProcess &&other) noexcept;
  ChildProcess &operator=(ChildProcess &&other) = delete;
  ChildProcess(const ChildProcess &) = delete;
  ~ChildProcess();

  enum class ReadStatus { Line, EndOfFile, Timeout };
  /// Waits up to `timeoutSeconds` for one complete line on the message
  /// pipe (or, without one, for the child to close its output).
  ReadStatus readLine(std::string &line, double timeoutSeconds);

  /// Sends one line to the child's stdin; false when the child is gone.
  bool writeLine(const std::string &line);
  /// Closes the child's stdin (end of commands).
  void closeInput();

  /// Kills the child's whole process group with SIGKILL.
  void kill();

  /// Waits for the child to end, at most `timeoutSeconds` (then kills it).
  ChildExit wait(double timeoutSeconds = 30);

  /// What the child printed (stdout and stderr), up to a limit.
  const std::string &output() const { return captured; }

  pid_t pid() const { return childPid; }

private:
  ChildProcess() = default;
  /// Reads whatever is available on the pipes, waiting up to timeoutMs.
  void pump(int timeoutMs);

  pid_t childPid = -1;
  int messageRead = -1;
  int outputRead = -1;
  int inputWrite = -1;
  bool hasMessagePipe = false;
  bool killed = false;
  bool reaped = false;
  ChildExit exit;
  std::string pending;
  std::string captured;
};

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_CHILDPROCESS_H
