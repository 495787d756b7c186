//===- LimitedChild.cpp - Run untrusted work in a forked child --*- C++ -*-===//
//
// The parent reads the pipe with a deadline (poll), so neither a child that
// hangs nor one that writes forever can hold it; the child's result is one
// message, whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "LimitedChild.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llmptx::ptx;

static bool writeAll(int fd, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t put = ::write(fd, bytes, size);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    bytes += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

/// The child's address space limit: what it inherits plus `extraBytes`.
static void limitAddressSpace(uint64_t extraBytes) {
  unsigned long pages = 0;
  if (FILE *statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%lu", &pages) != 1)
      pages = 0;
    std::fclose(statm);
  }
  uint64_t current = static_cast<uint64_t>(pages) * ::sysconf(_SC_PAGESIZE);
  struct rlimit limit;
  limit.rlim_cur = limit.rlim_max = current + extraBytes;
  ::setrlimit(RLIMIT_AS, &limit);
}

/// Reads the child's message until it closes the pipe or the deadline;
/// false at the deadline.
static bool readUntil(int fd, std::chrono::steady_clock::time_point deadline,
                      std::string &message) {
  char chunk[1 << 16];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0)
      return false;
    struct pollfd poll = {fd, POLLIN, 0};
    int ready =
        ::poll(&poll, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR)
      return true;
    if (ready <= 0)
      continue;
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return true;
    message.append(chunk, static_cast<size_t>(got));
  }
}

ChildRun llmptx::ptx::runInLimitedChild(llvm::function_ref<std::string()> work,
                                        unsigned timeoutSeconds,
                                        unsigned memoryLimitMB) {
  ChildRun run;
  int pipeFds[2];
  if (::pipe(pipeFds) != 0) {
    run.end = ChildRun::End::CannotStart;
    run.startError = std::strerror(errno);
    return run;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    run.end = ChildRun::End::CannotStart;
    run.startError = std::strerror(errno);
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    return run;
  }
  if (pid == 0) {
    // The child: the parent's crash handlers (LLVM's print a stack trace,
    // which can deadlock on a heap the library corrupted) are not wanted,
    // nor what glibc prints as it aborts on such a heap.
    for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
      std::signal(signal, SIG_DFL);
    ::close(pipeFds[0]);
    int devNull = ::open("/dev/null", O_WRONLY);
    if (devNull >= 0)
      ::dup2(devNull, STDERR_FILENO);
    if (memoryLimitMB)
      limitAddressSpace(static_cast<uint64_t>(memoryLimitMB) << 20);
    std::string result = work();
    ::_exit(writeAll(pipeFds[1], result.data(), result.size()) ? 0 : 1);
  }
  ::close(pipeFds[1]);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(timeoutSeconds ? timeoutSeconds
                                                      : 24 * 3600);
  bool finished = readUntil(pipeFds[0], deadline, run.message);
  ::close(pipeFds[0]);
  if (!finished)
    ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    run.end = ChildRun::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    run.end = ChildRun::End::Crashed;
    run.signal = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    run.end = ChildRun::End::Finished;
  } else {
    run.end = ChildRun::End::NoResult;
    run.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  if (run.end != ChildRun::End::Finished)
    run.message.clear();
  return run;
}

std::string ChildRun::failure(llvm::StringRef tool, unsigned timeoutSeconds,
                              unsigned memoryLimitMB) const {
  switch (end) {
  case End::Finished:
    return "";
  case End::TimedOut:
    return tool.str() + " did not finish within " +
           std::to_string(timeoutSeconds) + " s; killed";
  case End::Crashed:
    return tool.str() + " crashed (" + std::string(strsignal(signal)) + ")" +
           (signal == SIGKILL || signal == SIGSEGV
                ? "; it may have run out of its " +
                      std::to_string(memoryLimitMB) + " MiB"
                : std::string());
  case End::NoResult:
    return tool.str() + "'s child process ended without a result (exit " +
           "status " + std::to_string(exitStatus) + ")";
  case End::CannotStart:
    return "cannot start " + tool.str() + "'s child process: " + startError;
  }
  return "";
}

std::string llmptx::ptx::packFields(const std::vector<std::string> &fields) {
  std::string message;
  for (const std::string &field : fields) {
    uint64_t size = field.size();
    message.append(reinterpret_cast<const char *>(&size), sizeof size);
    message += field;
  }
  return message;
}

bool llmptx::ptx::unpackFields(llvm::StringRef message, size_t count,
                               std::vector<std::string> &fields) {
  fields.clear();
  for (size_t index = 0; index < count; ++index) {
    uint64_t size;
    if (message.size() < sizeof size)
      return false;
    std::memcpy(&size, message.data(), sizeof size);
    message = message.drop_front(sizeof size);
    if (message.size() < size)
      return false;
    fields.push_back(message.take_front(size).str());
    message = message.drop_front(size);
  }
  return message.empty();
}
