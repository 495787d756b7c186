//===- JsonSupport.cpp - Path-tracking JSON reading -----------------------===//

#include "JsonSupport.h"

#include "llmptx/Support/UntrustedText.h"

#include <cmath>

using namespace llmptx::runtime::json_support;

std::optional<Json>
llmptx::runtime::json_support::parseJsonText(std::string_view text,
                                             std::string &error) {
  if (auto tooDeep = llmptx::untrusted::findExcessiveJsonNesting(text)) {
    error = "invalid JSON at " + *tooDeep;
    return std::nullopt;
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error &e) {
    // e.byte is 1-based and points just past the offending character.
    size_t byte = e.byte == 0 ? 0 : e.byte - 1;
    if (byte > text.size())
      byte = text.size();
    size_t line = 1, column = 1;
    for (size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line
    // 1, column 2: " prefix; the position is ours.
    size_t colon = what.find(": ");
    if (colon != std::string::npos)
      what = what.substr(colon + 2);
    error = "line " + std::to_string(line) + ", column " +
            std::to_string(column) + ": invalid JSON: " + what;
    return std::nullopt;
  } catch (const std::exception &e) {
    error = std::string("invalid JSON: ") + e.what();
    return std::nullopt;
  }
}

std::string llmptx::runtime::json_support::typeName(const Json &value) {
  if (value.is_number_integer() || value.is_number_unsigned())
    return "an integer";
  if (value.is_number_float())
    return "a number";
  if (value.is_string())
    return "a string";
  if (value.is_boolean())
    return "a boolean";
  if (value.is_null())
    return "null";
  if (value.is_array())
    return "an array";
  return "an object";
}

std::string llmptx::runtime::json_support::memberPath(const std::string &path,
                                                      const char *key) {
  return path + "." + key;
}

std::string llmptx::runtime::json_support::elementPath(const std::string &path,
                                                       size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

bool JsonReader::expectObject(const Json &value, const std::string &path,
                              std::initializer_list<const char *> allowed) {
  if (failed())
    return false;
  if (!value.is_object()) {
    fail(path, "expected an object, got " + typeName(value));
    return false;
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    bool known = false;
    for (const char *key : allowed)
      if (it.key() == key)
        known = true;
    if (!known) {
      std::string list;
      for (const char *key : allowed)
        list += (list.empty() ? "" : ", ") + std::string(key);
      fail(memberPath(path, it.key().c_str()),
           "unknown field (expected one of: " + list + ")");
      return false;
    }
  }
  return true;
}

bool JsonReader::expectArray(const Json &value, const std::string &path) {
  if (failed())
    return false;
  if (!value.is_array()) {
    fail(path, "expected an array, got " + typeName(value));
    return false;
  }
  return true;
}

const Json *JsonReader::member(const Json &object, const std::string &path,
                               const char *key, bool required) {
  if (failed() || !object.is_object())
    return nullptr;
  auto it = object.find(key);
  if (it == object.end()) {
    if (required)
      fail(memberPath(path, key), "missing required field");
    return nullptr;
  }
  return &*it;
}

std::string JsonReader::string(const Json &object, const std::string &path,
                               const char *key, bool required,
                               const std::string &fallback) {
  const Json *value = member(object, path, key, required);
  if (!value)
    return fallback;
  if (!value->is_string()) {
    fail(memberPath(path, key), "expected a string, got " + typeName(*value));
    return fallback;
  }
  return value->get<std::string>();
}

double JsonReader::number(const Json &object, const std::string &path,
                          const char *key, bool required, double fallback) {
  const Json *value = member(object, path, key, required);
  if (!value)
    return fallback;
  if (!value->is_number()) {
    fail(memberPath(path, key), "expected a number, got " + typeName(*value));
    return fallback;
  }
  return value->get<double>();
}

int64_t JsonReader::integer(const Json &object, const std::string &path,
                            const char *key, bool required, int64_t fallback) {
  const Json *value = member(object, path, key, required);
  if (!value)
    return fallback;
  if (value->is_number_unsigned()) {
    uint64_t v = value->get<uint64_t>();
    if (v > static_cast<uint64_t>(INT64_MAX)) {
      fail(memberPath(path, key), "integer out of range");
      return fallback;
    }
    return static_cast<int64_t>(v);
  }
  if (!value->is_number_integer()) {
    fail(memberPath(path, key), "expected an integer, got " + typeName(*value));
    return fallback;
  }
  return value->get<int64_t>();
}

uint64_t JsonReader::unsignedInteger(const Json &object,
                                     const std::string &path, const char *key,
                                     bool required, uint64_t fallback) {
  const Json *value = member(object, path, key, required);
  if (!value)
    return fallback;
  if (value->is_number_unsigned())
    return value->get<uint64_t>();
  if (value->is_number_integer()) {
    fail(memberPath(path, key), "expected a non-negative integer");
    return fallback;
  }
  fail(memberPath(path, key),
       "expected a non-negative integer, got " + typeName(*value));
  return fallback;
}

bool JsonReader::boolean(const Json &object, const std::string &path,
                         const char *key, bool required, bool fallback) {
  const Json *value = member(object, path, key, required);
  if (!value)
    return fallback;
  if (!value->is_boolean()) {
    fail(memberPath(path, key),
         "expected true or false, got " + typeName(*value));
    return fallback;
  }
  return value->get<bool>();
}

std::string JsonReader::expression(const Json &value, const std::string &path) {
  if (failed())
    return {};
  if (value.is_number_integer())
    return std::to_string(value.get<int64_t>());
  if (value.is_number_unsigned())
    return std::to_string(value.get<uint64_t>());
  if (value.is_string())
    return value.get<std::string>();
  fail(path,
       "expected an integer or an expression string, got " + typeName(value));
  return {};
}
