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
#include "llmptx/Support/UntrustedText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
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

llvm::Expected<LaunchConfig> llmptx::parseLaunchBlock(llvm::StringRef text) {
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
    if (entry.first != "block" && entry.first != "grid")
      return fail("unknown key '" + llvm::StringRef(entry.first) +
                  "' (only block and grid)");
  const llvm::json::Array *block = object->getArray("block");
  const llvm::json::Array *grid = object->getArray("grid");
  if (!block || block->size() != 3)
    return fail("block must be an array of three integers");
  if (!grid || grid->size() != 3)
    return fail("grid must be an array of three expressions");
  LaunchConfig launch;
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
  return launch;
}

std::vector<std::string>
llmptx::checkProposedLaunch(const LaunchConfig &launch,
                            const LaunchFreedom &freedom) {
  std::vector<std::string> problems;
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

std::string llmptx::describeLaunchChoice(const KernelDescription &kernel) {
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
      .str();
}
