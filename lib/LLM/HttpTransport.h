//===- HttpTransport.h - POST with timeouts and retries ---------*- C++ -*-===//
//
// One libcurl easy handle per attempt; the provider's RequestGate bounds the
// attempts in flight and holds every thread back while a 429's Retry-After
// runs, so a rate-limited endpoint is not hammered by the other samples.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_LLM_HTTPTRANSPORT_H
#define LLMPTX_LIB_LLM_HTTPTRANSPORT_H

#include "llmptx/LLM/Provider.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace llmptx::llm {

/// A counting semaphore plus a shared "not before" time.
class RequestGate {
public:
  using Clock = std::chrono::steady_clock;
  explicit RequestGate(unsigned maxInFlight);
  /// Waits for the shared not-before time and a free slot.
  void acquire();
  void release();
  /// Holds every later acquire() back until \p until.
  void holdUntil(Clock::time_point until);
  unsigned inFlight();

private:
  std::mutex mutex;
  std::condition_variable freed;
  unsigned limit;
  unsigned active = 0;
  Clock::time_point notBefore{};
};

struct HttpOutcome {
  bool ok = false;
  long status = 0;
  std::string body;
  /// Set when !ok: names the provider, the URL, the status and the
  /// provider's message; already redacted.
  std::string error;
  unsigned attempts = 0;
};

class HttpTransport {
public:
  HttpTransport(const ProviderConfig &config, std::string providerName);

  /// POSTs \p body to \p url with \p headers ("Name: value"), retrying as
  /// the config says.
  HttpOutcome post(llvm::StringRef url, llvm::ArrayRef<std::string> headers,
                   llvm::StringRef body, llvm::StringRef label);

private:
  ProviderConfig config;
  std::string providerName;
  RequestGate gate;
};

} // namespace llmptx::llm

#endif // LLMPTX_LIB_LLM_HTTPTRANSPORT_H
