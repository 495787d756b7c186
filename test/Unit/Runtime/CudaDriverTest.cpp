//===- CudaDriverTest.cpp - Behaviour without a usable driver -------------===//
//
// CI has no GPU: these tests load real libraries that are not a CUDA
// driver, which is exactly the situation the runner must report cleanly.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/CudaDriver.h"
#include "llmptx/Runtime/Runner.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace llmptx::runtime;

namespace {

TEST(CudaDriverTest, MissingLibraryIsAnError) {
  auto device = probeCudaDevice("/nonexistent/libcuda.so.1", 0);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().rfind(
                "cannot load the CUDA driver /nonexistent/libcuda.so.1: ", 0),
            0u)
      << device.error();
}

TEST(CudaDriverTest, LibraryWithoutTheEntryPointsIsAnError) {
  auto device = probeCudaDevice("libm.so.6", 0);
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().find("lacks entry points: cuInit"),
            std::string::npos)
      << device.error();
}

TEST(CudaDriverTest, LibraryPathPrecedence) {
  ::unsetenv("LLMPTX_LIBCUDA");
  EXPECT_EQ(cudaLibraryPath(), "libcuda.so.1");
  ::setenv("LLMPTX_LIBCUDA", "/opt/libcuda.so", 1);
  EXPECT_EQ(cudaLibraryPath(), "/opt/libcuda.so");
  EXPECT_EQ(cudaLibraryPath("/x.so"), "/x.so");
  ::unsetenv("LLMPTX_LIBCUDA");
}

TEST(CudaDriverTest, SanitizerLookup) {
  EXPECT_EQ(findComputeSanitizer("/nonexistent/compute-sanitizer"), "");
  EXPECT_EQ(findComputeSanitizer("/bin/sh"), "/bin/sh");
}

} // namespace
