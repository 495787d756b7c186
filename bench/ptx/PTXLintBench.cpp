//===- PTXLintBench.cpp - Parse+lint time of a large PTX kernel -*- C++ -*-===//
//
// Measures what the repair loop pays per candidate: parsing and linting one
// PTX file, repeated, reporting the median and minimum wall time per run for
// parse alone, lint alone and both (lintPtx). Default input: the 2,946-line
// NVPTX kernel of the corpus (test/Inputs/ptx/nvptx/large_unrolled.ptx).
//
// usage: llmptx-ptx-bench [FILE] [--runs N] [--max-ms T]
// With --max-ms, exits 1 when the median parse+lint time exceeds T.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/Lint.h"
#include "llmptx/PTX/Parser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

using namespace llmptx::ptx;

#ifndef LLMPTX_PTX_BENCH_DEFAULT_INPUT
#define LLMPTX_PTX_BENCH_DEFAULT_INPUT ""
#endif

namespace {
struct Stats {
  double median, min;
};

template <typename Fn> Stats timeRuns(unsigned runs, Fn &&fn) {
  std::vector<double> ms;
  ms.reserve(runs);
  for (unsigned i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    auto end = std::chrono::steady_clock::now();
    ms.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}
} // namespace

int main(int argc, char **argv) {
  std::string file = LLMPTX_PTX_BENCH_DEFAULT_INPUT;
  unsigned runs = 200;
  double maxMs = 0;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--max-ms" && i + 1 < argc)
      maxMs = std::atof(argv[++i]);
    else
      file = arg.str();
  }
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (file.empty() || !buffer) {
    llvm::errs() << "llmptx-ptx-bench: cannot read '" << file << "'\n";
    return 2;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  unsigned lines = text.count('\n');

  ParseResult parsed = parsePtx(text);
  unsigned instructions = parsed.module.instructionCount();
  LintOptions opts;
  size_t diagCount = lintPtx(text, opts).size();

  Stats parse = timeRuns(runs, [&] {
    ParseResult r = parsePtx(text);
    if (r.module.functions.empty())
      std::abort();
  });
  Stats lintOnly = timeRuns(runs, [&] {
    if (lintModule(parsed.module, opts).size() > 1u << 30)
      std::abort();
  });
  Stats both = timeRuns(runs, [&] {
    if (lintPtx(text, opts).size() > 1u << 30)
      std::abort();
  });

  llvm::outs() << "input: " << file << "\n"
               << "lines: " << lines << ", instructions: " << instructions
               << ", diagnostics: " << diagCount << ", runs: " << runs << "\n";
  auto row = [&](const char *name, Stats s) {
    llvm::outs() << llvm::format("%-16s median %8.3f ms   min %8.3f ms\n", name,
                                 s.median, s.min);
  };
  row("parse", parse);
  row("lint", lintOnly);
  row("parse+lint", both);
  llvm::outs() << llvm::format("per 1000 lines:  %.3f ms (parse+lint median)\n",
                               both.median * 1000.0 / std::max(1u, lines));
  if (maxMs > 0 && both.median > maxMs) {
    llvm::outs() << "FAIL: median parse+lint " << both.median << " ms exceeds "
                 << maxMs << " ms\n";
    return 1;
  }
  return 0;
}
