//===- AsyncRuntime.cpp - The mlirAsyncRuntime* C ABI of the async dialect ===//
//
// Host code with `async.execute` / `async.await`, lowered by MLIR 22's
// async-to-async-runtime and convert-async-to-llvm, calls a fixed set of C
// functions (mlirAsyncRuntimeCreateToken, mlirAsyncRuntimeExecute ...).
// Upstream implements them in libmlir_async_runtime.so, which Debian ships
// linked against libLLVM (its thread pool), so it cannot travel with an
// executable to a GPU machine without LLVM. This file implements the same
// ABI (the declarations of MLIR 22's ExecutionEngine/AsyncRuntime.h) with the
// standard library only, in the library that executables carry anyway.
//
// The contract, as the lowering relies on it:
// - tokens, values and groups are reference counted; a token or value is
//   created with two references, one of which its producer drops when it
//   emplaces it (or sets its error), so it outlives the task that makes it;
//   a group starts with one;
// - a group is created with the number of tokens that will be added to it;
//   it is ready when all of them are;
// - "AndExecute" runs the coroutine at once, in the calling thread, when
//   what it waits for is ready, and otherwise where that becomes ready;
//   mlirAsyncRuntimeExecute hands it to a worker thread.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#define LLMPTX_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using CoroHandle = void *;
using CoroResume = void (*)(void *);
using Awaiter = std::function<void()>;

//===----------------------------------------------------------------------===//
// Worker threads
//===----------------------------------------------------------------------===//

/// A fixed set of worker threads taking tasks from one queue. It is never
/// destroyed: a program awaits its tasks before it returns, and idle workers
/// end with the process (destroying them from a static destructor would race
/// with the rest of the program's teardown).
class WorkerPool {
public:
  explicit WorkerPool(unsigned count) {
    for (unsigned i = 0; i < count; ++i)
      std::thread([this] { work(); }).detach();
    size = count;
  }

  void post(Awaiter task) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      tasks.push_back(std::move(task));
    }
    ready.notify_one();
  }

  unsigned workers() const { return size; }

private:
  [[noreturn]] void work() {
    for (;;) {
      Awaiter task;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [this] { return !tasks.empty(); });
        task = std::move(tasks.front());
        tasks.pop_front();
      }
      task();
    }
  }

  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Awaiter> tasks;
  unsigned size = 0;
};

WorkerPool &pool() {
  static WorkerPool *instance =
      new WorkerPool(std::max(1u, std::thread::hardware_concurrency()));
  return *instance;
}

[[noreturn]] void misuse(const char *what) {
  std::fprintf(stderr, "llmptx async runtime: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

//===----------------------------------------------------------------------===//
// Reference-counted objects
//===----------------------------------------------------------------------===//

class RefCounted {
public:
  explicit RefCounted(int64_t references) : references(references) {}
  virtual ~RefCounted() = default;

  void addRef(int64_t count) { references.fetch_add(count); }
  void dropRef(int64_t count) {
    int64_t before = references.fetch_sub(count);
    if (before < count)
      misuse("a reference count dropped below zero");
    if (before == count)
      delete this;
  }

private:
  std::atomic<int64_t> references;
};

enum class State { Pending, Available, Error };

/// What tokens and values share: a state that changes once, and the
/// callbacks waiting for that change.
class Completion : public RefCounted {
public:
  Completion() : RefCounted(/*references=*/2) {}

  /// Moves to `final` and runs the awaiters, then drops the producer's
  /// reference (after the lock is released: the drop may delete this).
  void complete(State final) {
    std::vector<Awaiter> waiting;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (state != State::Pending)
        misuse("a token or value was made ready twice");
      state = final;
      waiting.swap(awaiters);
      changed.notify_all();
    }
    for (Awaiter &awaiter : waiting)
      awaiter();
    dropRef(1);
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [this] { return state != State::Pending; });
  }

  bool isError() {
    std::lock_guard<std::mutex> lock(mutex);
    return state == State::Error;
  }

  /// Runs `awaiter` now when ready (outside the lock), or when it becomes so.
  void whenReady(Awaiter awaiter) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (state == State::Pending) {
        awaiters.push_back(std::move(awaiter));
        return;
      }
    }
    awaiter();
  }

private:
  std::mutex mutex;
  std::condition_variable changed;
  State state = State::Pending;
  std::vector<Awaiter> awaiters;
};

class Token final : public Completion {};

class Value final : public Completion {
public:
  explicit Value(int64_t bytes)
      : storage(static_cast<std::byte *>(::operator new(
            static_cast<size_t>(std::max<int64_t>(bytes, 1)),
            std::align_val_t(kAlignment)))) {}
  ~Value() override { ::operator delete(storage, std::align_val_t(kAlignment)); }

  std::byte *data() const { return storage; }

private:
  // The payload is a memref descriptor or a scalar: the alignment of any
  // of them (and of a vector register's worth).
  static constexpr size_t kAlignment = 64;
  std::byte *storage;
};

class Group final : public RefCounted {
public:
  explicit Group(int64_t size)
      : RefCounted(/*references=*/1), size(size), pending(size) {}

  int64_t add(Token *token) {
    int64_t rank;
    {
      std::lock_guard<std::mutex> lock(mutex);
      rank = added++;
      if (added > size)
        misuse("more tokens were added to a group than its size");
    }
    // The group stays alive until the token has reported to it.
    addRef(1);
    token->whenReady([this, token] {
      tokenReady(token->isError());
      dropRef(1);
    });
    return rank;
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [this] { return pending == 0; });
  }

  bool isError() {
    std::lock_guard<std::mutex> lock(mutex);
    return errors > 0;
  }

  void whenReady(Awaiter awaiter) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (pending != 0) {
        awaiters.push_back(std::move(awaiter));
        return;
      }
    }
    awaiter();
  }

private:
  void tokenReady(bool error) {
    std::vector<Awaiter> waiting;
    {
      std::lock_guard<std::mutex> lock(mutex);
      errors += error;
      if (--pending != 0)
        return;
      waiting.swap(awaiters);
      changed.notify_all();
    }
    for (Awaiter &awaiter : waiting)
      awaiter();
  }

  std::mutex mutex;
  std::condition_variable changed;
  const int64_t size;
  int64_t pending; // tokens not ready yet, counting those not yet added
  int64_t added = 0;
  int64_t errors = 0;
  std::vector<Awaiter> awaiters;
};

Awaiter resumeTask(CoroHandle handle, CoroResume resume) {
  return [handle, resume] { resume(handle); };
}

} // namespace

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

LLMPTX_EXPORT void mlirAsyncRuntimeAddRef(void *object, int64_t count) {
  static_cast<RefCounted *>(object)->addRef(count);
}

LLMPTX_EXPORT void mlirAsyncRuntimeDropRef(void *object, int64_t count) {
  static_cast<RefCounted *>(object)->dropRef(count);
}

// The lowering passes these objects as opaque pointers and hands them back
// to AddRef/DropRef: each is created through its RefCounted base so that
// the pointer it sees is the base's.
LLMPTX_EXPORT void *mlirAsyncRuntimeCreateToken() {
  return static_cast<RefCounted *>(new Token());
}

LLMPTX_EXPORT void *mlirAsyncRuntimeCreateValue(int64_t bytes) {
  return static_cast<RefCounted *>(new Value(bytes));
}

LLMPTX_EXPORT void *mlirAsyncRuntimeCreateGroup(int64_t size) {
  return static_cast<RefCounted *>(new Group(size));
}

namespace {
Token *token(void *object) {
  return static_cast<Token *>(static_cast<RefCounted *>(object));
}
Value *value(void *object) {
  return static_cast<Value *>(static_cast<RefCounted *>(object));
}
Group *group(void *object) {
  return static_cast<Group *>(static_cast<RefCounted *>(object));
}
} // namespace

LLMPTX_EXPORT int64_t mlirAsyncRuntimeAddTokenToGroup(void *t, void *g) {
  return group(g)->add(token(t));
}

LLMPTX_EXPORT void mlirAsyncRuntimeEmplaceToken(void *t) {
  token(t)->complete(State::Available);
}

LLMPTX_EXPORT void mlirAsyncRuntimeEmplaceValue(void *v) {
  value(v)->complete(State::Available);
}

LLMPTX_EXPORT void mlirAsyncRuntimeSetTokenError(void *t) {
  token(t)->complete(State::Error);
}

LLMPTX_EXPORT void mlirAsyncRuntimeSetValueError(void *v) {
  value(v)->complete(State::Error);
}

LLMPTX_EXPORT bool mlirAsyncRuntimeIsTokenError(void *t) {
  return token(t)->isError();
}

LLMPTX_EXPORT bool mlirAsyncRuntimeIsValueError(void *v) {
  return value(v)->isError();
}

LLMPTX_EXPORT bool mlirAsyncRuntimeIsGroupError(void *g) {
  return group(g)->isError();
}

LLMPTX_EXPORT void mlirAsyncRuntimeAwaitToken(void *t) { token(t)->wait(); }

LLMPTX_EXPORT void mlirAsyncRuntimeAwaitValue(void *v) { value(v)->wait(); }

LLMPTX_EXPORT void mlirAsyncRuntimeAwaitAllInGroup(void *g) {
  group(g)->wait();
}

LLMPTX_EXPORT std::byte *mlirAsyncRuntimeGetValueStorage(void *v) {
  return value(v)->data();
}

LLMPTX_EXPORT void mlirAsyncRuntimeExecute(CoroHandle handle,
                                           CoroResume resume) {
  pool().post(resumeTask(handle, resume));
}

LLMPTX_EXPORT void mlirAsyncRuntimeAwaitTokenAndExecute(void *t,
                                                        CoroHandle handle,
                                                        CoroResume resume) {
  token(t)->whenReady(resumeTask(handle, resume));
}

LLMPTX_EXPORT void mlirAsyncRuntimeAwaitValueAndExecute(void *v,
                                                        CoroHandle handle,
                                                        CoroResume resume) {
  value(v)->whenReady(resumeTask(handle, resume));
}

LLMPTX_EXPORT void mlirAsyncRuntimeAwaitAllInGroupAndExecute(
    void *g, CoroHandle handle, CoroResume resume) {
  group(g)->whenReady(resumeTask(handle, resume));
}

// The name is upstream's, misspelling included: the lowering calls it so.
LLMPTX_EXPORT int64_t mlirAsyncRuntimGetNumWorkerThreads() {
  return pool().workers();
}

LLMPTX_EXPORT void mlirAsyncRuntimePrintCurrentThreadId() {
  std::printf("Current thread id: %zu\n",
              std::hash<std::thread::id>()(std::this_thread::get_id()));
  std::fflush(stdout);
}
