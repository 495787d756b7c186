//===- ValueOrError.h - A value or an error message -------------*- C++ -*-===//
//
// The runtime library has no LLVM, so it cannot use llvm::Expected. Every
// public function that can fail on bad input returns one of these instead of
// throwing or aborting: MLIR code that includes these headers is built
// without exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_VALUEORERROR_H
#define LLMPTX_RUNTIME_VALUEORERROR_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace llmptx::runtime {

/// An error message; converts into any ValueOrError<T>.
struct Failure {
  std::string message;
};

template <typename T> class ValueOrError {
public:
  ValueOrError(T value) : storage(std::move(value)) {}
  ValueOrError(Failure failure) : storage(std::move(failure)) {}

  bool ok() const { return storage.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &operator*() {
    assert(ok() && "no value");
    return std::get<0>(storage);
  }
  const T &operator*() const {
    assert(ok() && "no value");
    return std::get<0>(storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// The error message; empty when there is a value.
  const std::string &error() const {
    static const std::string none;
    return ok() ? none : std::get<1>(storage).message;
  }

  /// Moves the value out.
  T take() { return std::move(**this); }

private:
  std::variant<T, Failure> storage;
};

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_VALUEORERROR_H
