//===- LimitedChild.h - Run untrusted work in a forked child ----*- C++ -*-===//
//
// The toolkit's libraries (nvJitLink, NVRTC) run in this process's address
// space and have crashed, hung and exhausted memory on untrusted input, so
// each call runs in a forked child with a time and an address-space limit
// and sends its result back through a pipe. A crash or a limit ends the
// child, never the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_PTX_LIMITEDCHILD_H
#define LLMPTX_LIB_PTX_LIMITEDCHILD_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llmptx::ptx {

/// How a limited child ended.
struct ChildRun {
  enum class End {
    Finished,    ///< `message` is what the work returned
    TimedOut,    ///< killed at the time limit
    Crashed,     ///< ended by `signal` (SIGKILL or SIGSEGV: maybe the memory)
    NoResult,    ///< exited (`exitStatus`) without sending a whole result
    CannotStart, ///< no pipe or no fork: `startError`
  };
  End end = End::NoResult;
  std::string message;
  int signal = 0;
  int exitStatus = -1;
  std::string startError;

  /// "nvJitLink did not finish within 120 s; killed", "NVRTC crashed
  /// (Segmentation fault); it may have run out of its 8192 MiB", ...: why
  /// `tool` gave no result, or "" when it finished.
  std::string failure(llvm::StringRef tool, unsigned timeoutSeconds,
                      unsigned memoryLimitMB) const;
};

/// Runs `work` in a forked child whose address space may grow by
/// `memoryLimitMB` MiB (0: no limit) and which is killed after
/// `timeoutSeconds` (0: a day); the child's crash handlers are the
/// defaults and its stderr goes to /dev/null.
ChildRun runInLimitedChild(llvm::function_ref<std::string()> work,
                           unsigned timeoutSeconds, unsigned memoryLimitMB);

/// Length-prefixed fields, for a child's message of several strings.
std::string packFields(const std::vector<std::string> &fields);
/// The fields of `message`; false when it is not `count` whole fields.
bool unpackFields(llvm::StringRef message, size_t count,
                  std::vector<std::string> &fields);

} // namespace llmptx::ptx

#endif // LLMPTX_LIB_PTX_LIMITEDCHILD_H
