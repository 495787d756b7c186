//===- ChildProcess.cpp - Watched child processes -------------------------===//

#include "llmptx/Runtime/ChildProcess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llmptx::runtime;

/// Captured output beyond this is dropped (a runaway child must not eat
/// the runner's memory).
static constexpr size_t kMaxCapturedBytes = 1 << 20;

std::string ChildExit::describe() const {
  switch (kind) {
  case Kind::Exited:
    return "exited with status " + std::to_string(code);
  case Kind::Signaled:
    return std::string("killed by signal ") + std::to_string(code) + " (" +
           strsignal(code) + ")";
  case Kind::Killed:
    return "killed by the watchdog";
  }
  return "?";
}

static void closeIfOpen(int &fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

ValueOrError<ChildProcess>
ChildProcess::spawn(const std::vector<std::string> &argv, int messageFd,
                    bool withInput) {
  if (argv.empty())
    return Failure{"no command"};
  int messagePipe[2] = {-1, -1};
  int outputPipe[2] = {-1, -1};
  int inputPipe[2] = {-1, -1};
  auto closeAll = [&] {
    for (int *pipe : {messagePipe, outputPipe, inputPipe})
      for (int end = 0; end < 2; ++end)
        if (pipe[end] >= 0)
          ::close(pipe[end]);
  };
  if ((messageFd > 0 && ::pipe2(messagePipe, O_CLOEXEC) != 0) ||
      ::pipe2(outputPipe, O_CLOEXEC) != 0 ||
      (withInput && ::pipe2(inputPipe, O_CLOEXEC) != 0)) {
    std::string error = std::strerror(errno);
    closeAll();
    return Failure{"cannot create a pipe: " + error};
  }
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<char *> args;
  for (const std::string &arg : argv)
    args.push_back(const_cast<char *>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) {
    std::string error = std::strerror(errno);
    closeAll();
    return Failure{"cannot fork: " + error};
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (withInput) {
      ::dup2(inputPipe[0], 0);
    } else {
      int devNull = ::open("/dev/null", O_RDONLY);
      if (devNull >= 0)
        ::dup2(devNull, 0);
    }
    ::dup2(outputPipe[1], 1);
    ::dup2(outputPipe[1], 2);
    if (messageFd > 0) {
      // dup2 clears O_CLOEXEC on the new descriptor.
      if (messagePipe[1] == messageFd)
        ::fcntl(messageFd, F_SETFD, 0);
      else
        ::dup2(messagePipe[1], messageFd);
    }
    ::signal(SIGPIPE, SIG_DFL);
    ::execvp(args[0], args.data());
    const char message[] = "cannot execute the child program\n";
    ssize_t ignored = ::write(2, message, sizeof(message) - 1);
    (void)ignored;
    ::_exit(127);
  }
  // Also from the parent, so a kill right after spawn reaches the group.
  ::setpgid(pid, pid);
  ChildProcess child;
  child.childPid = pid;
  if (messageFd > 0) {
    ::close(messagePipe[1]);
    child.messageRead = messagePipe[0];
    child.hasMessagePipe = true;
  }
  ::close(outputPipe[1]);
  child.outputRead = outputPipe[0];
  if (withInput) {
    ::close(inputPipe[0]);
    child.inputWrite = inputPipe[1];
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess &&other) noexcept
    : childPid(other.childPid), messageRead(other.messageRead),
      outputRead(other.outputRead), inputWrite(other.inputWrite),
      hasMessagePipe(other.hasMessagePipe), killed(other.killed),
      reaped(other.reaped), exit(other.exit), pending(std::move(other.pending)),
      captured(std::move(other.captured)) {
  other.childPid = -1;
  other.messageRead = -1;
  other.outputRead = -1;
  other.inputWrite = -1;
  other.reaped = true;
}

ChildProcess::~ChildProcess() {
  if (childPid > 0 && !reaped) {
    kill();
    wait(5);
  }
  closeIfOpen(messageRead);
  closeIfOpen(outputRead);
  closeIfOpen(inputWrite);
}

bool ChildProcess::writeLine(const std::string &line) {
  if (inputWrite < 0)
    return false;
  std::string data = line + "\n";
  // A child that died closes the pipe; the write must then fail with EPIPE
  // instead of killing the runner, so SIGPIPE is blocked around it.
  sigset_t block, previous;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  size_t written = 0;
  bool fine = true;
  while (written < data.size()) {
    ssize_t n =
        ::write(inputWrite, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fine = false;
      break;
    }
    written += static_cast<size_t>(n);
  }
  if (!fine) {
    // Consume the SIGPIPE that is now pending, if any.
    timespec zero{0, 0};
    sigtimedwait(&block, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return fine;
}

void ChildProcess::closeInput() { closeIfOpen(inputWrite); }

void ChildProcess::pump(int timeoutMs) {
  pollfd fds[2];
  int count = 0;
  if (messageRead >= 0)
    fds[count++] = {messageRead, POLLIN, 0};
  if (outputRead >= 0)
    fds[count++] = {outputRead, POLLIN, 0};
  if (count == 0) {
    if (timeoutMs > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(timeoutMs));
    return;
  }
  int ready = ::poll(fds, count, timeoutMs);
  if (ready <= 0)
    return;
  char buffer[65536];
  for (int i = 0; i < count; ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    bool isMessage = fds[i].fd == messageRead;
    if (n <= 0) {
      if (isMessage)
        closeIfOpen(messageRead);
      else
        closeIfOpen(outputRead);
      continue;
    }
    if (isMessage) {
      pending.append(buffer, static_cast<size_t>(n));
    } else if (captured.size() < kMaxCapturedBytes) {
      captured.append(buffer, std::min(static_cast<size_t>(n),
                                       kMaxCapturedBytes - captured.size()));
    }
  }
}

ChildProcess::ReadStatus ChildProcess::readLine(std::string &line,
                                                double timeoutSeconds) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    size_t newline = pending.find('\n');
    if (newline != std::string::npos) {
      line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      return ReadStatus::Line;
    }
    bool sourceOpen = hasMessagePipe ? messageRead >= 0 : outputRead >= 0;
    if (!sourceOpen) {
      if (pending.empty())
        return ReadStatus::EndOfFile;
      line = std::move(pending); // a last line without a newline
      pending.clear();
      return ReadStatus::Line;
    }
    auto now = Clock::now();
    if (now >= deadline)
      return ReadStatus::Timeout;
    int remaining = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
            .count());
    pump(std::max(1, std::min(remaining, 1000)));
  }
}

void ChildProcess::kill() {
  if (childPid <= 0 || reaped)
    return;
  killed = true;
  ::kill(-childPid, SIGKILL);
  ::kill(childPid, SIGKILL);
}

ChildExit ChildProcess::wait(double timeoutSeconds) {
  if (reaped || childPid <= 0)
    return exit;
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeoutSeconds);
  int status = 0;
  while (true) {
    pid_t result = ::waitpid(childPid, &status, WNOHANG);
    if (result == childPid)
      break;
    if (result < 0 && errno != EINTR) {
      reaped = true;
      exit = {ChildExit::Kind::Killed, SIGKILL};
      return exit;
    }
    if (Clock::now() >= deadline && !killed)
      kill();
    // Keep draining so a child blocked on a full pipe can finish.
    pump(10);
  }
  // Whatever the child's group left in the pipes.
  for (int i = 0; i < 10 && (outputRead >= 0 || messageRead >= 0); ++i)
    pump(0);
  reaped = true;
  if (WIFEXITED(status))
    exit = {ChildExit::Kind::Exited, WEXITSTATUS(status)};
  else if (killed)
    exit = {ChildExit::Kind::Killed, WTERMSIG(status)};
  else
    exit = {ChildExit::Kind::Signaled, WTERMSIG(status)};
  // Make sure nothing of the group survives (e.g. a sanitizer's target).
  ::kill(-childPid, SIGKILL);
  return exit;
}
