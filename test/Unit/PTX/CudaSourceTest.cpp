//===- CudaSourceTest.cpp - CUDA C++ candidates and NVRTC's log -*- C++ -*-===//
//
// What needs no NVRTC: the include check, the log's diagnostics, the
// options a target gives, and NVRTC missing. Compiling is lit's
// (test/Target/llm-cuda.mlir, REQUIRES: nvrtc).
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/CudaSource.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

TEST(CudaSourceTest, OnlyTheOfferedHeaders) {
  std::vector<Diagnostic> diags = checkCudaIncludes(
      "#include <cuda_fp16.h>\n"
      "  # include <cuda/barrier>\n"
      "#include \"mma.h\"\n"
      "#include <cstdio>\n"
      "   #include_next <x>\n"
      "#include SOMETHING\n");
  ASSERT_EQ(diags.size(), 3u);
  EXPECT_EQ(diags[0].loc.line, 4u);
  EXPECT_EQ(diags[1].loc.line, 5u);
  EXPECT_EQ(diags[1].loc.column, 4u);
  EXPECT_NE(diags[2].message.find("'#include SOMETHING' is not allowed"),
            std::string::npos);
}

TEST(CudaSourceTest, NvrtcLogLinesAndCarets) {
  std::vector<Diagnostic> diags = parseNvrtcLog(
      "candidate.cu(4): error: identifier \"x\" is undefined\n"
      "      a[i] = x + 1;\n"
      "             ^\n"
      "\n"
      "candidate.cu(9): warning #177-D: variable \"y\" was declared\n"
      "2 errors detected in the compilation of \"candidate.cu\".\n");
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].severity, Severity::Error);
  EXPECT_EQ(diags[0].loc.line, 4u);
  EXPECT_EQ(diags[0].loc.column, 12u);
  EXPECT_EQ(diags[0].message, "identifier \"x\" is undefined");
  EXPECT_EQ(diags[1].severity, Severity::Warning);
  EXPECT_EQ(diags[1].loc.line, 9u);
}

TEST(CudaSourceTest, ArgumentsFollowTheTarget) {
  CudaToolkit toolkit;
  toolkit.includeFolders = {"/cuda/include"};
  CudaCompileOptions options;
  options.chip = "sm_90a";
  std::vector<std::string> plain = nvrtcArguments(options, toolkit);
  EXPECT_EQ(plain[0], "-arch=compute_90a");
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "--use_fast_math"), 0);
  EXPECT_EQ(plain.back(), "-I/cuda/include");
  options.fastMath = options.flushDenormals = true;
  std::vector<std::string> fast = nvrtcArguments(options, toolkit);
  EXPECT_EQ(std::count(fast.begin(), fast.end(), "--use_fast_math"), 1);
  EXPECT_EQ(std::count(fast.begin(), fast.end(), "-ftz=true"), 1);
}

TEST(CudaSourceTest, NoNvrtcIsADiagnostic) {
  CudaToolkit toolkit;
  toolkit.root = "/nowhere";
  CudaCompileResult result =
      compileCuda("__global__ void k() {}", toolkit, CudaCompileOptions());
  EXPECT_FALSE(result.ok);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_NE(result.diagnostics[0].message.find("no NVRTC (libnvrtc.so)"),
            std::string::npos);
}

} // namespace
