//===- KernelSet.cpp - Kernels described in JSON, outside MLIR --*- C++ -*-===//
//
// The description becomes a KernelDescription exactly as KernelFacts.cpp
// fills one from a gpu.module: arguments as written, the ABI from the
// reference entry, a constant launch, the stated facts. A value the stages
// would have to guess is an error here instead.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/KernelSet.h"

#include "llmptx/PTX/Parser.h"
#include "llmptx/Runtime/ElementType.h"
#include "llmptx/Support/UntrustedText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llmptx;
namespace json = llvm::json;

namespace {
/// Where a value is in the document: "kernels[1].args[0]".
struct Path {
  std::string text;

  Path field(llvm::StringRef key) const {
    return {text.empty() ? key.str() : text + "." + key.str()};
  }
  Path index(size_t at) const {
    return {text + "[" + std::to_string(at) + "]"};
  }
};

/// Reads fields of JSON objects, keeping the first problem with its path;
/// reads after a problem change nothing that matters.
class Reader {
public:
  bool failed() const { return !problem.empty(); }
  const std::string &error() const { return problem; }
  void fail(const Path &path, const llvm::Twine &message) {
    if (problem.empty())
      problem = (path.text.empty() ? "" : path.text + ": ") + message.str();
  }

  const json::Object *object(const json::Value *value, const Path &path) {
    const json::Object *object = value ? value->getAsObject() : nullptr;
    if (!object)
      fail(path, "expected an object");
    return object;
  }
  const json::Array *array(const json::Object &parent, llvm::StringRef key,
                           const Path &path, bool required = true) {
    const json::Value *value = parent.get(key);
    if (!value && !required)
      return nullptr;
    const json::Array *array = value ? value->getAsArray() : nullptr;
    if (!array)
      fail(path.field(key), "expected an array");
    return array;
  }
  std::string string(const json::Object &parent, llvm::StringRef key,
                     const Path &path, bool required = true) {
    const json::Value *value = parent.get(key);
    if (!value) {
      if (required)
        fail(path.field(key), "missing");
      return {};
    }
    std::optional<llvm::StringRef> text = value->getAsString();
    if (!text) {
      fail(path.field(key), "expected a string");
      return {};
    }
    return text->str();
  }
  int64_t integer(const json::Value *value, const Path &path, int64_t min,
                  int64_t max) {
    std::optional<int64_t> number =
        value ? value->getAsInteger() : std::nullopt;
    if (!number || *number < min || *number > max) {
      fail(path, llvm::formatv("expected an integer in [{0}, {1}]", min, max));
      return min;
    }
    return *number;
  }
  int64_t integer(const json::Object &parent, llvm::StringRef key,
                  const Path &path, int64_t min, int64_t max,
                  std::optional<int64_t> otherwise = std::nullopt) {
    const json::Value *value = parent.get(key);
    if (!value && otherwise)
      return *otherwise;
    return integer(value, path.field(key), min, max);
  }
  /// Three positive integers: a grid or a block.
  std::array<int64_t, 3> triple(const json::Object &parent, llvm::StringRef key,
                                const Path &path) {
    std::array<int64_t, 3> values{1, 1, 1};
    const json::Array *items = array(parent, key, path);
    if (!items)
      return values;
    if (items->size() != 3) {
      fail(path.field(key), "expected three integers");
      return values;
    }
    for (unsigned i = 0; i < 3; ++i)
      values[i] = integer(&(*items)[i], path.field(key).index(i), 1,
                          std::numeric_limits<int32_t>::max());
    return values;
  }
  std::vector<std::string> strings(const json::Object &parent,
                                   llvm::StringRef key, const Path &path) {
    std::vector<std::string> lines;
    const json::Array *items = array(parent, key, path, /*required=*/false);
    if (!items)
      return lines;
    for (auto [index, item] : llvm::enumerate(*items)) {
      std::optional<llvm::StringRef> text = item.getAsString();
      if (!text)
        fail(path.field(key).index(index), "expected a string");
      else
        lines.push_back(text->str());
    }
    return lines;
  }

private:
  std::string problem;
};
} // namespace

/// One argument: {"kind": "buffer", "element": "f32", "elements": N,
/// "access": "read", "alignment": 4, "type": "..."} or {"kind": "scalar",
/// "element": "i32", "value": "7"}.
static void readArgument(Reader &reader, const json::Value &value,
                         const Path &path, KernelDescription &kernel,
                         ConstantLaunch &launch) {
  const json::Object *object = reader.object(&value, path);
  if (!object)
    return;
  ArgumentInfo arg;
  std::string kind = reader.string(*object, "kind", path);
  arg.element = reader.string(*object, "element", path);
  if (!reader.failed() && !runtime::parseElementType(arg.element))
    reader.fail(path.field("element"),
                "not an element type the runner supports (f16 bf16 f32 f64 "
                "i1 i8 i16 i32 i64 ...)");
  std::vector<int64_t> shape;
  std::string scalarValue;
  if (kind == "buffer") {
    arg.isMemref = true;
    int64_t elements = reader.integer(*object, "elements", path, 1,
                                      std::numeric_limits<int64_t>::max());
    arg.shape = {elements};
    shape = arg.shape;
    arg.access = reader.string(*object, "access", path);
    if (!reader.failed() && arg.access != "read" && arg.access != "write" &&
        arg.access != "readwrite")
      reader.fail(path.field("access"), "expected read, write or readwrite");
    arg.alignment = reader.integer(*object, "alignment", path, 0, 1 << 16, 0);
    arg.mlirType = reader.string(*object, "type", path, /*required=*/false);
    if (arg.mlirType.empty())
      arg.mlirType = llvm::formatv("memref<{0}x{1}>", elements, arg.element);
  } else if (kind == "scalar") {
    scalarValue = reader.string(*object, "value", path);
    arg.mlirType = arg.element;
  } else if (!reader.failed()) {
    reader.fail(path.field("kind"), "expected buffer or scalar");
  }
  kernel.args.push_back(std::move(arg));
  launch.scalarValues.push_back(std::move(scalarValue));
  launch.memrefShapes.push_back(std::move(shape));
}

/// The ABI: the reference entry's parameter types, a bare pointer per
/// buffer and a value per scalar.
static void readAbi(Reader &reader, const Path &path,
                    KernelDescription &kernel) {
  ptx::ParseResult parsed = ptx::parsePtx(kernel.referencePtx);
  const ptx::Function *entry = parsed.module.findFunction(kernel.name);
  if (!entry || !entry->isEntry) {
    reader.fail(path.field("reference_ptx"), "has no .entry " + kernel.name);
    return;
  }
  if (entry->params.size() != kernel.args.size()) {
    reader.fail(path.field("args"),
                llvm::formatv("{0} argument(s), but the reference entry has "
                              "{1} parameter(s)",
                              kernel.args.size(), entry->params.size()));
    return;
  }
  kernel.barePointers = true;
  setAbiFromEntry(kernel, *entry,
                  abiRolesFor(kernel.args, /*barePointers=*/true));
}

/// {"ulp": N, "rel": X, "abs": Y}: how far outputs may lie from the
/// reference's.
static void readTolerance(Reader &reader, const json::Object &object,
                          const Path &path, HarnessFacts &harness) {
  const json::Value *value = object.get("tolerance");
  if (!value)
    return;
  const json::Object *tolerance = reader.object(value, path.field("tolerance"));
  if (!tolerance)
    return;
  Path at = path.field("tolerance");
  if (tolerance->get("ulp"))
    harness.ulp = reader.integer(*tolerance, "ulp", at, 0, 1 << 30);
  for (auto [key, slot] :
       {std::pair{"rel", &harness.rel}, std::pair{"abs", &harness.abs}}) {
    const json::Value *number = tolerance->get(key);
    if (!number)
      continue;
    std::optional<double> parsed = number->getAsNumber();
    if (!parsed || *parsed < 0)
      reader.fail(at.field(key), "expected a number >= 0");
    else
      *slot = *parsed;
  }
}

static KernelDescription readKernel(Reader &reader, const json::Value &value,
                                    const Path &path) {
  KernelDescription kernel;
  const json::Object *object = reader.object(&value, path);
  if (!object)
    return kernel;
  kernel.name = reader.string(*object, "name", path);
  kernel.referencePtx = reader.string(*object, "reference_ptx", path);
  kernel.referenceKind =
      reader.string(*object, "reference_kind", path, /*required=*/false);
  if (kernel.referenceKind.empty())
    kernel.referenceKind = "reference";
  kernel.source = reader.string(*object, "source", path);
  kernel.intent = reader.string(*object, "intent", path, /*required=*/false);
  kernel.statedFacts = reader.strings(*object, "stated_facts", path);
  kernel.launchFacts =
      reader.string(*object, "launch_facts", path, /*required=*/false);

  ConstantLaunch launch;
  if (const json::Array *args = reader.array(*object, "args", path))
    for (auto [index, arg] : llvm::enumerate(*args))
      readArgument(reader, arg, path.field("args").index(index), kernel,
                   launch);
  const json::Object *launchObject =
      reader.object(object->get("launch"), path.field("launch"));
  if (launchObject) {
    Path at = path.field("launch");
    launch.grid = reader.triple(*launchObject, "grid", at);
    launch.block = reader.triple(*launchObject, "block", at);
    launch.dynamicSharedBytes = reader.integer(
        *launchObject, "dynamic_shared_bytes", at, 0, 1 << 30, 0);
  }
  kernel.hostLaunch = std::move(launch);
  kernel.blockSize = kernel.hostLaunch->block;
  kernel.launch.reason = "the caller launches it with a fixed block and grid";

  // Tolerances are the harness's only fact here: sizes and grid are fixed.
  HarnessFacts harness;
  readTolerance(reader, *object, path, harness);
  if (harness.ulp || harness.rel || harness.abs)
    kernel.harness = std::move(harness);
  if (!reader.failed())
    readAbi(reader, path, kernel);
  return kernel;
}

llvm::Expected<KernelSet> llmptx::parseKernelSet(llvm::StringRef text,
                                                 llvm::StringRef path) {
  auto error = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + message);
  };
  if (auto nesting = untrusted::findExcessiveJsonNesting(text))
    return error(*nesting);
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return error(llvm::toString(value.takeError()));
  Reader reader;
  KernelSet set;
  Path top;
  if (const json::Object *object = reader.object(&*value, top)) {
    set.name = reader.string(*object, "name", top);
    if (!reader.failed() && set.name.empty())
      reader.fail(top.field("name"), "must not be empty");
    if (const json::Array *kernels = reader.array(*object, "kernels", top))
      for (auto [index, kernel] : llvm::enumerate(*kernels)) {
        Path at = top.field("kernels").index(index);
        set.kernels.push_back(readKernel(reader, kernel, at));
        if (reader.failed())
          break;
        // Bundles, results and the report know a kernel by its name.
        for (auto [earlier, other] : llvm::enumerate(set.kernels))
          if (earlier + 1 < set.kernels.size() &&
              other.name == set.kernels.back().name) {
            reader.fail(at.field("name"), "'" + other.name +
                                              "' is also the name of kernels[" +
                                              llvm::Twine(earlier) + "]");
            break;
          }
        if (reader.failed())
          break;
      }
  }
  if (reader.failed())
    return error(reader.error());
  return set;
}
