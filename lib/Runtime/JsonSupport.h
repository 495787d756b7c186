//===- JsonSupport.h - Path-tracking JSON reading (private) -----*- C++ -*-===//
//
// Bundle and result files are read with nlohmann/json. Every read goes
// through JsonReader so that an error names the JSON path of the value
// ("$.buffers[2].shape[0]") instead of throwing out of the library.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_RUNTIME_JSONSUPPORT_H
#define LLMPTX_LIB_RUNTIME_JSONSUPPORT_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace llmptx::runtime::json_support {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// Parses text; on a syntax error returns nullopt and sets `error` to
/// "line L, column C: <what>".
std::optional<Json> parseJsonText(std::string_view text, std::string &error);

/// Records the first error; later reads become no-ops that return defaults.
class JsonReader {
public:
  bool failed() const { return !error.empty(); }
  const std::string &firstError() const { return error; }
  void fail(const std::string &path, const std::string &message) {
    if (error.empty())
      error = path + ": " + message;
  }

  /// Checks that `value` is an object whose keys are all in `allowed`.
  bool expectObject(const Json &value, const std::string &path,
                    std::initializer_list<const char *> allowed);
  bool expectArray(const Json &value, const std::string &path);

  /// Member accessors: `required` members that are missing are errors.
  const Json *member(const Json &object, const std::string &path,
                     const char *key, bool required);
  std::string string(const Json &object, const std::string &path,
                     const char *key, bool required,
                     const std::string &fallback = {});
  double number(const Json &object, const std::string &path, const char *key,
                bool required, double fallback = 0);
  int64_t integer(const Json &object, const std::string &path, const char *key,
                  bool required, int64_t fallback = 0);
  uint64_t unsignedInteger(const Json &object, const std::string &path,
                           const char *key, bool required,
                           uint64_t fallback = 0);
  bool boolean(const Json &object, const std::string &path, const char *key,
               bool required, bool fallback = false);
  /// An expression: a JSON integer or a string.
  std::string expression(const Json &value, const std::string &path);

private:
  std::string error;
};

std::string typeName(const Json &value);
std::string memberPath(const std::string &path, const char *key);
std::string elementPath(const std::string &path, size_t index);

} // namespace llmptx::runtime::json_support

#endif // LLMPTX_LIB_RUNTIME_JSONSUPPORT_H
