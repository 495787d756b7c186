//===- TaskPool.h - Run indexed tasks on a bounded thread pool --*- C++ -*-===//
//
// The one way the pipeline runs work in parallel: model calls, checks and
// verification retries are indexed tasks on llvm's thread pool.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_SUPPORT_TASKPOOL_H
#define LLMPTX_SUPPORT_TASKPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

namespace llmptx {

/// Runs `task(0)` ... `task(count - 1)` on a pool of `threads` threads (0:
/// min(count, 8)) and waits for them. Model calls wait on the network, so
/// there may be more threads than cores; the provider bounds its own
/// requests in flight.
inline void runTasks(unsigned count, unsigned threads,
                     llvm::function_ref<void(unsigned)> task) {
  if (count == 0)
    return;
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(
      threads > 0 ? threads : std::min<unsigned>(count, 8)));
  for (unsigned index = 0; index < count; ++index)
    pool.async([&task, index]() { task(index); });
  pool.wait();
}

} // namespace llmptx

#endif // LLMPTX_SUPPORT_TASKPOOL_H
