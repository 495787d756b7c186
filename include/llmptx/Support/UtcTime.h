//===- UtcTime.h - The time stamps of stored entries ------------*- C++ -*-===//
//
// Header-only, so the LLVM-free libraries can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_SUPPORT_UTCTIME_H
#define LLMPTX_SUPPORT_UTCTIME_H

#include <ctime>
#include <string>

namespace llmptx {

/// Now, in UTC, as ISO 8601 to the second ("2026-12-06T04:12:00Z"): the
/// `created` field of cache entries.
inline std::string utcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

} // namespace llmptx

#endif // LLMPTX_SUPPORT_UTCTIME_H
