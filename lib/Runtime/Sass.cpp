//===- Sass.cpp - Instruction statistics of a kernel's SASS ----------------===//
//
// nvdisasm prints one instruction per line, "/*0a70*/  @!P0 LDG.E.128 R4,
// desc[UR4][R2.64] ;", inside a `.section .text.<entry>` per kernel; the
// counts are read from that listing, so they are what the chip executes
// (after ptxas's scheduling and unrolling), not what the PTX says.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/Sass.h"

#include "llmptx/Runtime/ChildProcess.h"
#include "llmptx/Runtime/CudaToolkit.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace llmptx::runtime;

namespace {

/// The opcode counted for one mnemonic: the part before the first '.',
/// with the access width of a load, store or atomic when above 32 bits.
std::string countedOpcode(std::string_view mnemonic) {
  size_t dot = mnemonic.find('.');
  std::string base(mnemonic.substr(0, dot));
  bool memory = base.rfind("LD", 0) == 0 || base.rfind("ST", 0) == 0 ||
                base.rfind("ATOM", 0) == 0 || base == "RED";
  if (!memory || dot == std::string_view::npos)
    return base;
  for (std::string_view width : {".128", ".64"}) {
    size_t at = mnemonic.find(width);
    if (at != std::string_view::npos &&
        (at + width.size() == mnemonic.size() ||
         mnemonic[at + width.size()] == '.'))
      return base + std::string(width);
  }
  return base;
}

/// The mnemonic of an instruction line ("" when the line holds none).
std::string_view mnemonicOf(std::string_view line) {
  size_t open = line.find("/*");
  if (open == std::string_view::npos)
    return {};
  size_t close = line.find("*/", open + 2);
  if (close == std::string_view::npos)
    return {};
  // The address: hex digits only (encodings are printed in other comments).
  std::string_view address = line.substr(open + 2, close - open - 2);
  if (address.empty() ||
      !std::all_of(address.begin(), address.end(),
                   [](char c) { return std::isxdigit(uint8_t(c)); }))
    return {};
  size_t i = close + 2;
  auto skipSpace = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
  };
  auto word = [&] {
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' &&
           line[i] != ';')
      ++i;
    return line.substr(start, i - start);
  };
  skipSpace();
  std::string_view token = word();
  if (!token.empty() && token[0] == '@') { // a guard predicate
    skipSpace();
    token = word();
  }
  if (token.empty() || !std::isupper(uint8_t(token[0])))
    return {};
  return token;
}

} // namespace

SassStatistics
llmptx::runtime::parseNvdisasmListing(std::string_view listing,
                                      const std::string &entry) {
  bool sectioned = listing.find(".section") != std::string_view::npos;
  bool inEntry = !sectioned;
  std::map<std::string, unsigned> counts;
  SassStatistics statistics;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string_view::npos)
      end = listing.size();
    std::string_view line = listing.substr(start, end - start);
    start = end + 1;
    size_t section = line.find(".section");
    if (section != std::string_view::npos) {
      std::string_view rest = line.substr(section + 8);
      size_t name = rest.find_first_not_of(" \t");
      rest = name == std::string_view::npos ? std::string_view()
                                            : rest.substr(name);
      rest = rest.substr(0, rest.find_first_of(", \t"));
      inEntry = rest == ".text." + entry;
      continue;
    }
    if (!inEntry)
      continue;
    std::string_view mnemonic = mnemonicOf(line);
    if (mnemonic.empty() || mnemonic == "NOP")
      continue;
    ++statistics.instructions;
    ++counts[countedOpcode(mnemonic)];
  }
  statistics.opcodes.assign(counts.begin(), counts.end());
  std::stable_sort(statistics.opcodes.begin(), statistics.opcodes.end(),
                   [](const auto &a, const auto &b) {
                     return a.second > b.second;
                   });
  return statistics;
}

std::optional<SassTools> llmptx::runtime::findSassTools() {
  SassTools tools{findCudaTool("ptxas"), findCudaTool("nvdisasm")};
  if (tools.ptxas.empty() || tools.nvdisasm.empty())
    return std::nullopt;
  return tools;
}

/// Runs `argv` to its end; its output, or why it failed.
static ValueOrError<std::string> runTool(const std::vector<std::string> &argv,
                                         double timeoutSeconds) {
  ValueOrError<ChildProcess> child =
      ChildProcess::spawn(argv, /*messageFd=*/0);
  if (!child)
    return Failure{"cannot start " + argv[0] + ": " + child.error()};
  ChildExit exit = child->wait(timeoutSeconds);
  if (exit.kind != ChildExit::Kind::Exited || exit.code != 0) {
    std::string output = child->output();
    if (output.size() > 400)
      output = output.substr(0, 400) + "...";
    return Failure{argv[0] + " " + exit.describe() +
                   (output.empty() ? std::string() : ": " + output)};
  }
  return child->output();
}

ValueOrError<SassStatistics> llmptx::runtime::measureSass(
    const SassTools &tools, const std::string &ptx, const std::string &entry,
    const std::string &chip, const std::string &workDir) {
  std::string ptxPath = workDir + "/" + entry + ".ptx";
  std::string cubinPath = workDir + "/" + entry + ".cubin";
  {
    std::ofstream out(ptxPath, std::ios::binary);
    out << ptx;
    if (!out)
      return Failure{"cannot write " + ptxPath};
  }
  ValueOrError<std::string> assembled = runTool(
      {tools.ptxas, "-arch=" + chip, "-o", cubinPath, ptxPath}, 120);
  if (!assembled)
    return Failure{assembled.error()};
  ValueOrError<std::string> listing =
      runTool({tools.nvdisasm, "-c", cubinPath}, 60);
  ::unlink(ptxPath.c_str());
  ::unlink(cubinPath.c_str());
  if (!listing)
    return Failure{listing.error()};
  SassStatistics statistics = parseNvdisasmListing(*listing, entry);
  if (statistics.instructions == 0)
    return Failure{"nvdisasm listed no instruction of " + entry};
  return statistics;
}
