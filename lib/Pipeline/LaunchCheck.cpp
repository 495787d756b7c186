//===- LaunchCheck.cpp - Launch configurations a model proposes -*- C++ -*-===//
//
// A proposed launch is checked on plain data in the workers: its block
// against the device limits, its grid as expressions of the sizes evaluated
// on every shape verification tests. Whether a launch may be free at all is
// the front end's question (lib/Target/LaunchFreedom.cpp for MLIR).
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/LaunchCheck.h"

#include "llmptx/Runtime/Expression.h"
#include "llmptx/Runtime/TensorMap.h"
#include "llmptx/Support/UntrustedText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llmptx;

/// The size names of `freedom`, each once, in order.
static std::vector<std::string> sizeNames(const LaunchFreedom &freedom) {
  std::vector<std::string> names;
  for (const SizeSource &source : freedom.sources)
    if (!llvm::is_contained(names, source.size))
      names.push_back(source.size);
  return names;
}

/// One entry of a launch block's tensor_maps: {"name", "arg", "box",
/// "swizzle", "interleave", "l2_promotion", "oob_fill"}.
static llvm::Expected<TensorMapRequest>
parseTensorMap(const llvm::json::Value &value, unsigned index) {
  std::string at = llvm::formatv("tensor_maps[{0}]", index).str();
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   at + message);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail(": expected an object {\"name\": ..., \"arg\": N, "
                "\"box\": [...]}");
  TensorMapRequest map;
  for (const auto &entry : *object) {
    llvm::StringRef key = entry.first;
    const llvm::json::Value &field = entry.second;
    if (key == "arg") {
      std::optional<int64_t> arg = field.getAsInteger();
      if (!arg || *arg < 0 || *arg > 4096)
        return fail(".arg: expected the index of a memref argument");
      map.arg = static_cast<unsigned>(*arg);
    } else if (key == "box") {
      const llvm::json::Array *box = field.getAsArray();
      if (!box)
        return fail(".box: expected an array of integers, outermost first");
      for (auto [i, extent] : llvm::enumerate(*box)) {
        std::optional<int64_t> value = extent.getAsInteger();
        if (!value || *value < 0 || *value > 0xffffffffll)
          return fail(llvm::formatv(".box[{0}]: expected an integer", i).str());
        map.spec.box.push_back(static_cast<uint32_t>(*value));
      }
    } else if (std::string *text =
                   llvm::StringSwitch<std::string *>(key)
                       .Case("name", &map.spec.name)
                       .Case("swizzle", &map.spec.swizzle)
                       .Case("interleave", &map.spec.interleave)
                       .Case("l2_promotion", &map.spec.l2Promotion)
                       .Case("oob_fill", &map.spec.oobFill)
                       .Default(nullptr)) {
      std::optional<llvm::StringRef> string = field.getAsString();
      if (!string)
        return fail("." + key + ": expected a string");
      *text = untrusted::clipForMessage(string->str(), 64);
    } else {
      return fail(": unknown key '" + key +
                  "' (name, arg, box, swizzle, interleave, l2_promotion, "
                  "oob_fill)");
    }
  }
  if (map.spec.name.empty())
    map.spec.name = "tensor_map_" + std::to_string(index);
  return map;
}

llvm::Expected<LaunchConfig>
llmptx::parseLaunchBlock(llvm::StringRef text, const LaunchConfig &original) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (auto tooDeep = untrusted::findExcessiveJsonNesting(
          std::string_view(text.data(), text.size())))
    return fail("the block is not JSON: " + *tooDeep);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return fail("the block is not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return fail("expected an object {\"block\": [x, y, z], \"grid\": [...]}");
  for (const auto &entry : *object)
    if (entry.first != "block" && entry.first != "grid" &&
        entry.first != "dynamic_shared_bytes" && entry.first != "tensor_maps")
      return fail("unknown key '" + llvm::StringRef(entry.first) +
                  "' (only block, grid, dynamic_shared_bytes and "
                  "tensor_maps)");
  LaunchConfig launch = original;
  const llvm::json::Array *block = object->getArray("block");
  const llvm::json::Array *grid = object->getArray("grid");
  // Without tensor maps or shared memory a block states both; with them, a
  // launch left out is the original one.
  bool extrasOnly =
      (object->get("tensor_maps") || object->get("dynamic_shared_bytes")) &&
      !object->get("block") && !object->get("grid");
  if (!extrasOnly) {
    if (!block || block->size() != 3)
      return fail("block must be an array of three integers");
    if (!grid || grid->size() != 3)
      return fail("grid must be an array of three expressions");
    for (unsigned i = 0; i < 3; ++i) {
      std::optional<int64_t> value = (*block)[i].getAsInteger();
      if (!value)
        return fail("block[" + llvm::Twine(i) + "] must be an integer");
      launch.block[i] = *value;
      if (std::optional<int64_t> integer = (*grid)[i].getAsInteger())
        launch.grid[i] = std::to_string(*integer);
      else if (std::optional<llvm::StringRef> expression =
                   (*grid)[i].getAsString())
        launch.grid[i] = expression->trim().str();
      else
        return fail("grid[" + llvm::Twine(i) +
                    "] must be an expression (a string) or an integer");
    }
  }
  if (const llvm::json::Value *shared = object->get("dynamic_shared_bytes")) {
    std::optional<int64_t> bytes = shared->getAsInteger();
    if (!bytes)
      return fail("dynamic_shared_bytes must be an integer");
    launch.dynamicSharedBytes = *bytes;
  }
  if (const llvm::json::Value *maps = object->get("tensor_maps")) {
    const llvm::json::Array *array = maps->getAsArray();
    if (!array)
      return fail("tensor_maps must be an array of objects");
    launch.tensorMaps.clear();
    for (auto [index, value] : llvm::enumerate(*array)) {
      llvm::Expected<TensorMapRequest> map = parseTensorMap(value, index);
      if (!map)
        return map.takeError();
      launch.tensorMaps.push_back(std::move(*map));
    }
  }
  return launch;
}

bool llmptx::offersTensorMaps(llvm::StringRef chip) {
  unsigned sm = 0;
  return chip.consume_front("sm_") && chip.consume_back("a") &&
         !chip.getAsInteger(10, sm) && sm >= 90;
}

/// The largest dynamic shared memory a block may have on sm_90 (227 KiB).
static constexpr int64_t kMaxDynamicSharedBytes = 232448;

/// Row strides in bytes of an identity-layout memref at `shape`, outermost
/// first (the innermost is the element), or nothing when the harness does
/// not give its sizes.
static std::optional<std::vector<int64_t>>
identityByteStrides(const KernelDescription &kernel, unsigned arg,
                    const runtime::SizeBindings &shape, unsigned elementBytes) {
  const ArgumentInfo &info = kernel.args[arg];
  std::vector<int64_t> sizes = info.shape;
  if (kernel.harness && arg < kernel.harness->args.size()) {
    llvm::SmallVector<llvm::StringRef> dims;
    llvm::StringRef(kernel.harness->args[arg]).split(dims, ',');
    if (dims.size() == sizes.size())
      for (auto [i, dim] : llvm::enumerate(dims)) {
        if (sizes[i] >= 0)
          continue;
        runtime::ValueOrError<int64_t> value =
            runtime::evaluateExpression(dim.trim().str(), shape);
        if (!value)
          return std::nullopt;
        sizes[i] = *value;
      }
  }
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = elementBytes;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] < 0)
      return std::nullopt;
    strides[i] = stride;
    stride *= sizes[i];
  }
  return strides;
}

/// What keeps tensor map `index` of `launch` from being built for `kernel`
/// on every shape verification tests, one message per problem.
static void checkTensorMap(const TensorMapRequest &map, unsigned index,
                           const KernelDescription &kernel,
                           std::vector<std::string> &problems) {
  std::string at = llvm::formatv("tensor_maps[{0}]", index).str();
  if (map.arg >= kernel.args.size() || !kernel.args[map.arg].isMemref) {
    problems.push_back(at + ".arg: %arg" + std::to_string(map.arg) +
                       " is not a memref argument of the kernel");
    return;
  }
  const ArgumentInfo &arg = kernel.args[map.arg];
  std::optional<runtime::ElementType> element =
      runtime::parseElementType(arg.element);
  if (!element) {
    problems.push_back(at + ": %arg" + std::to_string(map.arg) +
                       " has no element type a tensor map takes");
    return;
  }
  if (auto problem =
          runtime::checkTensorMapSpec(map.spec, *element, arg.shape.size())) {
    problems.push_back(at + "." + *problem);
    return;
  }
  uint64_t stated = std::max<uint64_t>(
      arg.alignment, kernel.harness ? kernel.harness->align : 0);
  unsigned needed = runtime::tensorMapBaseAlignment(map.spec);
  if (stated < needed)
    problems.push_back(llvm::formatv(
        "{0}: a tensor map needs the base of %arg{1} {2}-byte aligned, and "
        "the module states {3}",
        at, map.arg, needed,
        stated ? std::to_string(stated) + " bytes"
               : std::string("only its element size")));
  if (arg.offset != 0)
    problems.push_back(at + ": %arg" + std::to_string(map.arg) +
                       " has a non-zero or dynamic offset, so its first "
                       "element is not known to be aligned");
  if (!arg.strides.empty() && arg.strides.back() != 1)
    problems.push_back(at + ": the innermost stride of %arg" +
                       std::to_string(map.arg) +
                       " is not 1; a tensor map needs it contiguous");
  if (!arg.strides.empty())
    return; // strided layouts: the runner checks each shape's strides
  for (const runtime::SizeBindings &shape : kernel.launch.shapes) {
    std::optional<std::vector<int64_t>> strides = identityByteStrides(
        kernel, map.arg, shape, runtime::elementByteSize(*element));
    if (!strides)
      return;
    for (size_t i = 0; i + 1 < strides->size(); ++i)
      if ((*strides)[i] % 16 != 0) {
        problems.push_back(llvm::formatv(
            "{0}: at ({1}) a step of dimension {2} of %arg{3} is {4} bytes, "
            "not a multiple of 16, which a tensor map needs (state the "
            "sizes' divisibility, or do without a tensor map)",
            at, runtime::formatSizes(shape, ", "), i, map.arg, (*strides)[i]));
        return;
      }
  }
}

std::vector<std::string>
llmptx::checkProposedLaunch(const LaunchConfig &launch,
                            const KernelDescription &kernel,
                            llvm::StringRef chip) {
  const LaunchFreedom &freedom = kernel.launch;
  std::vector<std::string> problems;
  if (launch.dynamicSharedBytes < 0 ||
      launch.dynamicSharedBytes > kMaxDynamicSharedBytes)
    problems.push_back(llvm::formatv("dynamic_shared_bytes = {0} is outside "
                                     "[0, {1}]",
                                     launch.dynamicSharedBytes,
                                     kMaxDynamicSharedBytes));
  if (!launch.tensorMaps.empty() && !offersTensorMaps(chip))
    problems.push_back("tensor_maps: tensor maps are offered for sm_90a and "
                       "later arch-specific chips; the target is " +
                       chip.str());
  else
    for (auto [index, map] : llvm::enumerate(launch.tensorMaps))
      checkTensorMap(map, index, kernel, problems);
  const int64_t blockLimits[3] = {1024, 1024, 64};
  int64_t threads = 1;
  for (unsigned i = 0; i < 3; ++i) {
    if (launch.block[i] < 1 || launch.block[i] > blockLimits[i])
      problems.push_back(llvm::formatv("block[{0}] = {1} is outside "
                                       "[1, {2}]",
                                       i, launch.block[i], blockLimits[i]));
    threads *= std::max<int64_t>(launch.block[i], 1);
  }
  if (threads > 1024)
    problems.push_back(
        llvm::formatv("a block of {0} threads exceeds 1024", threads));

  llvm::StringSet<> sizes;
  for (const SizeSource &source : freedom.sources)
    sizes.insert(source.size);
  std::string sizeList = freedom.sources.empty()
                             ? std::string("none: the grid must be constant")
                             : llvm::join(sizeNames(freedom), ", ");
  const int64_t gridLimits[3] = {2147483647, 65535, 65535};
  for (unsigned i = 0; i < 3; ++i) {
    runtime::ValueOrError<runtime::Expression> expression =
        runtime::Expression::parse(launch.grid[i]);
    if (!expression) {
      problems.push_back(llvm::formatv("grid[{0}] '{1}': {2}", i,
                                       launch.grid[i], expression.error()));
      continue;
    }
    bool namesOk = true;
    for (const std::string &name : expression->names())
      if (!sizes.contains(name)) {
        problems.push_back(llvm::formatv("grid[{0}] uses '{1}', which "
                                         "is not a size (sizes: {2})",
                                         i, name, sizeList));
        namesOk = false;
      }
    if (!namesOk)
      continue;
    for (const runtime::SizeBindings &shape : freedom.shapes) {
      runtime::ValueOrError<int64_t> value = expression->evaluate(shape);
      std::string at = runtime::formatSizes(shape, ", ");
      if (!value) {
        problems.push_back(
            llvm::formatv("grid[{0}] at ({1}): {2}", i, at, value.error()));
        break;
      }
      if (*value < 1 || *value > gridLimits[i]) {
        problems.push_back(llvm::formatv("grid[{0}] = {1} at ({2}) is "
                                         "outside [1, {3}]",
                                         i, *value, at, gridLimits[i]));
        break;
      }
    }
  }
  return problems;
}

/// The prompt's paragraph about tensor maps (sm_90a and later).
static std::string describeTensorMaps() {
  return "\n\nOn this chip the block may also carry \"dynamic_shared_bytes\" "
         "(up to 232448; the host sets the kernel's limit above 48 KiB) and "
         "\"tensor_maps\": TMA descriptors (CUtensorMap) that the host "
         "builds with cuTensorMapEncodeTiled over a memref argument and "
         "passes by value after the memref parameters, in order, each as "
         "`.param .align 64 .b8 NAME[128]` (in CUDA C++: `const "
         "__grid_constant__ TensorMap NAME` with `struct alignas(64) "
         "TensorMap { unsigned long long opaque[16]; };`). Each entry: "
         "{\"name\": \"tmA\", \"arg\": 0, \"box\": [128, 64], "
         "\"swizzle\": \"128B\", \"interleave\": \"none\", "
         "\"l2_promotion\": \"128B\", \"oob_fill\": \"none\"} where arg "
         "is the memref argument's index and box its tile, outermost "
         "dimension first (the map's global dimensions are the memref's "
         "sizes, its strides the memref's, its base the aligned pointer plus "
         "the offset). Limits: box entries 1..256, the innermost box a "
         "multiple of 16 bytes and no wider than the swizzle span (32B, "
         "64B, 128B), the memref's base stated 16-byte aligned and its row "
         "steps multiples of 16 bytes at every size.";
}

std::string llmptx::describeLaunchChoice(const KernelDescription &kernel,
                                         llvm::StringRef chip) {
  const LaunchFreedom &freedom = kernel.launch;
  if (!freedom.allowed)
    return {};
  std::string sizes =
      freedom.sources.empty()
          ? std::string("(there are none: the grid must be constant)")
          : llvm::join(sizeNames(freedom), ", ");
  return llvm::formatv(
             "The host code launches this kernel with {0} ({1} launch(es), "
             "all in this module), so you may choose another launch "
             "configuration: a block size (three integers) and a grid of "
             "three expressions of the sizes {2}, written with integers, "
             "size names, + - * / % (floor division), ceildiv(a, b), "
             "min(a, b), max(a, b) and parentheses. To do so, add a second "
             "fenced block tagged launch holding only JSON, e.g.\n"
             "```launch\n"
             "{{\"block\": [128, 1, 1], \"grid\": [\"{3}\", \"1\", "
             "\"1\"]}\n"
             "```\n"
             "Your kernel is then verified under your launch against the "
             "reference under the original one, and when it is selected the "
             "host launches are rewritten to yours. Without a launch block "
             "the original launch is used. .reqntid or .maxntid, if you "
             "write them, must agree with your block.",
             freedom.original.str(), freedom.launches, sizes,
             freedom.sources.empty()
                 ? std::string("1")
                 : "ceildiv(" + freedom.sources.front().size + ", 512)")
             .str() +
         (offersTensorMaps(chip) ? describeTensorMaps() : std::string());
}
