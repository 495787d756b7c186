//===- PTXTestInputs.h - Corpus access for the PTX unit tests ---*- C++ -*-===//

#ifndef LLMPTX_TEST_UNIT_PTX_PTXTESTINPUTS_H
#define LLMPTX_TEST_UNIT_PTX_PTXTESTINPUTS_H

#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <string>

namespace llmptx::ptx::test {

/// The source root: LLMPTX_SRC_ROOT (set by lit) or the configure-time one.
inline std::string sourceRoot() {
  if (const char *env = std::getenv("LLMPTX_SRC_ROOT"))
    return env;
  return LLMPTX_TEST_SOURCE_ROOT;
}

/// Text of test/Inputs/ptx/<relative>; empty when missing.
inline std::string readCorpus(const std::string &relative) {
  auto buffer = llvm::MemoryBuffer::getFile(sourceRoot() + "/test/Inputs/ptx/" +
                                            relative);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

} // namespace llmptx::ptx::test

#endif // LLMPTX_TEST_UNIT_PTX_PTXTESTINPUTS_H
