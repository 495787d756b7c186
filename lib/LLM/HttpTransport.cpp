//===- HttpTransport.cpp - POST with timeouts, retries, bounds ------------===//
//
// What is retried: timeouts, connection failures, 408, 429 and 5xx, which
// are the failures that go away on their own. Other 4xx (a bad key, a bad
// model name, a too-long prompt) fail at once, since retrying only adds cost.
//
//===----------------------------------------------------------------------===//

#include "HttpTransport.h"

#include "Wire.h"

#include "llmptx/LLM/Secrets.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

using namespace llvm;

namespace llmptx::llm {

namespace {

void initCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Attempt {
  long status = 0;
  std::string body;
  std::string retryAfter;   // Retry-After header value
  std::string retryAfterMs; // retry-after-ms (OpenAI) header value
  CURLcode code = CURLE_OK;
  std::string curlDetail;
  bool tooLarge = false;
};

struct Sink {
  Attempt *attempt;
  uint64_t limit;
};

size_t writeBody(char *data, size_t size, size_t count, void *user) {
  auto *sink = static_cast<Sink *>(user);
  size_t bytes = size * count;
  if (sink->attempt->body.size() + bytes > sink->limit) {
    sink->attempt->tooLarge = true;
    return 0; // makes curl fail with CURLE_WRITE_ERROR
  }
  sink->attempt->body.append(data, bytes);
  return bytes;
}

size_t readHeader(char *data, size_t size, size_t count, void *user) {
  auto *attempt = static_cast<Attempt *>(user);
  size_t bytes = size * count;
  StringRef line(data, bytes);
  auto [name, value] = line.split(':');
  if (name.trim().equals_insensitive("retry-after"))
    attempt->retryAfter = value.trim().str();
  else if (name.trim().equals_insensitive("retry-after-ms"))
    attempt->retryAfterMs = value.trim().str();
  return bytes;
}

Attempt performPost(StringRef url, ArrayRef<std::string> headers,
                    StringRef body, const ProviderConfig &config) {
  Attempt attempt;
  CURL *curl = curl_easy_init();
  if (!curl) {
    attempt.code = CURLE_FAILED_INIT;
    attempt.curlDetail = "curl_easy_init failed";
    return attempt;
  }
  struct curl_slist *list = nullptr;
  for (const std::string &header : headers)
    list = curl_slist_append(list, header.c_str());
  // Without this curl waits up to a second for "100 Continue" on bodies
  // over 1 KiB, which many servers never send.
  list = curl_slist_append(list, "Expect:");
  char errorBuffer[CURL_ERROR_SIZE] = {0};
  Sink sink{&attempt, config.maxResponseBytes};
  std::string urlText = url.str();

  curl_easy_setopt(curl, CURLOPT_URL, urlText.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "llmptx/0.1");
  // Threads: no signals for timeouts.
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(
      curl, CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(std::max(1.0, config.connectTimeoutS * 1000)));
  curl_easy_setopt(
      curl, CURLOPT_TIMEOUT_MS,
      static_cast<long>(std::max(1.0, config.totalTimeoutS * 1000)));
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  // A redirect would carry the key to another host.
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  // A local server must not be reached through the user's HTTP proxy.
  std::string noProxy = "localhost,127.0.0.1,::1";
  for (const char *name : {"no_proxy", "NO_PROXY"})
    if (const char *value = std::getenv(name); value && *value)
      noProxy = std::string(value) + "," + noProxy;
  curl_easy_setopt(curl, CURLOPT_NOPROXY, noProxy.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, writeBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, readHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &attempt);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);
  if (config.maxResponseBytes > 0)
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(config.maxResponseBytes));

  attempt.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &attempt.status);
  if (attempt.code != CURLE_OK)
    attempt.curlDetail = errorBuffer[0] ? std::string(errorBuffer)
                                        : curl_easy_strerror(attempt.code);
  if (attempt.code == CURLE_FILESIZE_EXCEEDED)
    attempt.tooLarge = true;
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return attempt;
}

/// Seconds to wait that the server asked for, or -1.
double serverDelaySeconds(const Attempt &attempt) {
  StringRef ms = StringRef(attempt.retryAfterMs).trim();
  double value;
  if (!ms.empty() && !ms.getAsDouble(value) && value >= 0)
    return value / 1000.0;
  StringRef text = StringRef(attempt.retryAfter).trim();
  if (text.empty())
    return -1;
  if (!text.getAsDouble(value) && value >= 0)
    return value;
  std::string date = text.str();
  time_t when = curl_getdate(date.c_str(), nullptr);
  if (when < 0)
    return -1;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

double backoffMs(const ProviderConfig &config, unsigned retry) {
  double ceiling = std::min<double>(
      config.retryMaxMs, config.retryBaseMs * std::pow(2.0, retry - 1));
  thread_local std::mt19937_64 engine(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return ceiling * jitter(engine);
}

bool isRetryableStatus(long status) {
  return status == 408 || status == 429 || status >= 500;
}

std::string formatMs(double ms) {
  return ms >= 10000 ? formatv("{0:f1} s", ms / 1000).str()
                     : formatv("{0:f0} ms", ms).str();
}

} // namespace

RequestGate::RequestGate(unsigned maxInFlight)
    : limit(std::max(1u, maxInFlight)) {}

void RequestGate::acquire() {
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    Clock::time_point now = Clock::now();
    if (now < notBefore) {
      freed.wait_until(lock, notBefore);
      continue;
    }
    if (active < limit) {
      ++active;
      return;
    }
    freed.wait(lock);
  }
}

void RequestGate::release() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    --active;
  }
  freed.notify_all();
}

void RequestGate::holdUntil(Clock::time_point until) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    notBefore = std::max(notBefore, until);
  }
  freed.notify_all();
}

unsigned RequestGate::inFlight() {
  std::lock_guard<std::mutex> lock(mutex);
  return active;
}

HttpTransport::HttpTransport(const ProviderConfig &config,
                             std::string providerName)
    : config(config), providerName(std::move(providerName)),
      gate(config.maxInFlight) {
  initCurlOnce();
}

HttpOutcome HttpTransport::post(StringRef url, ArrayRef<std::string> headers,
                                StringRef body, StringRef label) {
  HttpOutcome outcome;
  // The caller names the request in its own messages; only log lines,
  // which stand alone, carry the label.
  std::string where = providerName + ": ";
  std::string logWhere = label.empty() ? where : where + label.str() + ": ";
  auto log = [&](const std::string &line) {
    if (config.log)
      config.log(redactSecrets(line));
  };
  unsigned maxAttempts = config.maxRetries + 1;
  for (unsigned number = 1; number <= maxAttempts; ++number) {
    gate.acquire();
    Attempt attempt = performPost(url, headers, body, config);
    gate.release();
    outcome.attempts = number;
    outcome.status = attempt.status;

    if (attempt.tooLarge) {
      outcome.error = formatv("{0}response from {1} is larger than the {2} "
                              "byte limit (maxResponseBytes); refused",
                              where, url, config.maxResponseBytes)
                          .str();
      break;
    }
    bool transportFailure = attempt.code != CURLE_OK;
    if (!transportFailure && attempt.status >= 200 && attempt.status < 300) {
      outcome.ok = true;
      outcome.body = std::move(attempt.body);
      return outcome;
    }

    std::string problem;
    bool retryable;
    if (transportFailure) {
      problem =
          formatv("request to {0} failed: {1}", url, attempt.curlDetail).str();
      // Everything but a malformed URL or an unsupported protocol may pass.
      retryable = attempt.code != CURLE_URL_MALFORMAT &&
                  attempt.code != CURLE_UNSUPPORTED_PROTOCOL;
    } else {
      problem = formatv("HTTP {0} from {1}: {2}", attempt.status, url,
                        wire::providerErrorMessage(attempt.body))
                    .str();
      retryable = isRetryableStatus(attempt.status);
    }
    if (!retryable) {
      outcome.error = where + problem + " (not retried)";
      outcome.body = std::move(attempt.body);
      break;
    }
    if (number == maxAttempts) {
      outcome.error = formatv("{0}{1} (gave up after {2} attempt{3})", where,
                              problem, number, number == 1 ? "" : "s")
                          .str();
      break;
    }

    double delayMs = backoffMs(config, number);
    std::string why = "backoff";
    if (!transportFailure && attempt.status == 429) {
      double asked = serverDelaySeconds(attempt);
      if (asked > config.maxRetryAfterS) {
        outcome.error = formatv("{0}{1} (the server asks to retry after {2} "
                                "s, more than the {3} s limit)",
                                where, problem, wire::formatSeconds(asked),
                                wire::formatSeconds(config.maxRetryAfterS))
                            .str();
        break;
      }
      if (asked >= 0) {
        delayMs = asked * 1000;
        why = "Retry-After";
        // Every other request to this provider would get the same answer.
        gate.holdUntil(
            RequestGate::Clock::now() +
            std::chrono::milliseconds(static_cast<int64_t>(delayMs)));
      }
    }
    log(formatv("{0}{1}; retry {2}/{3} in {4} ({5})", logWhere, problem, number,
                config.maxRetries, formatMs(delayMs), why)
            .str());
    std::this_thread::sleep_for(
        std::chrono::microseconds(static_cast<int64_t>(delayMs * 1000)));
  }
  outcome.error = redactSecrets(outcome.error);
  return outcome;
}

} // namespace llmptx::llm
