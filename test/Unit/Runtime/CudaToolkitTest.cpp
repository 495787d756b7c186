//===- CudaToolkitTest.cpp - The order of the CUDA toolkit search ---------===//
//
// Each test builds fake toolkits (folders with an executable bin/ptxas, a
// shell script) in a temporary folder and points CUDA_HOME, CUDA_PATH and
// PATH at them; the environment is restored after each test. The last step
// of the search, /usr/local/cuda, is real: tests that reach it accept what
// probing it says.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/CudaToolkit.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

using namespace llmptx::runtime;
namespace fs = std::filesystem;

namespace {

/// Saves an environment variable and puts it back when destroyed.
class SavedVariable {
public:
  explicit SavedVariable(const char *name) : name(name) {
    if (const char *value = std::getenv(name))
      saved = value;
  }
  ~SavedVariable() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

class CudaToolkitTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "llmptx-toolkit-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    scratch = pattern;
    ::unsetenv("CUDA_HOME");
    ::unsetenv("CUDA_PATH");
    ::setenv("PATH", "", 1);
  }
  void TearDown() override { fs::remove_all(scratch); }

  /// An executable shell script at `relative` below the scratch folder.
  std::string executable(const std::string &relative) {
    fs::path path = scratch / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "#!/bin/sh\nexit 0\n";
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }

  /// A toolkit root named `name` with an executable bin/ptxas.
  std::string toolkit(const std::string &name) {
    executable(name + "/bin/ptxas");
    return (scratch / name).string();
  }

  /// What the search returns when it reaches /usr/local/cuda.
  static std::optional<std::string> defaultRoot() {
    auto found = probeCudaToolkitRoot(kDefaultCudaToolkitRoot);
    return found ? std::optional<std::string>(found->root) : std::nullopt;
  }

  SavedVariable home{"CUDA_HOME"}, path{"CUDA_PATH"}, search{"PATH"};
  fs::path scratch;
};

std::optional<std::string> rootFound(const std::string &explicitRoot = {}) {
  auto found = locateCudaToolkit(explicitRoot);
  return found ? std::optional<std::string>(found->root) : std::nullopt;
}

} // namespace

TEST_F(CudaToolkitTest, ARootNeedsAnExecutablePtxasOrNvJitLink) {
  std::string withPtxas = toolkit("a");
  auto found = probeCudaToolkitRoot(withPtxas);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->root, withPtxas);
  EXPECT_EQ(found->ptxas, withPtxas + "/bin/ptxas");
  EXPECT_EQ(found->nvJitLink, "");

  fs::create_directories(scratch / "b/lib64");
  std::ofstream(scratch / "b/lib64/libnvJitLink.so.13") << "";
  found = probeCudaToolkitRoot((scratch / "b").string());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->ptxas, "");
  EXPECT_EQ(found->nvJitLink,
            (scratch / "b/lib64/libnvJitLink.so.13").string());

  std::string notExecutable = executable("c/bin/ptxas");
  fs::permissions(notExecutable, fs::perms::owner_read);
  EXPECT_FALSE(probeCudaToolkitRoot((scratch / "c").string()));
  EXPECT_FALSE(probeCudaToolkitRoot((scratch / "nowhere").string()));
  EXPECT_FALSE(probeCudaToolkitRoot(""));
}

TEST_F(CudaToolkitTest, SearchesExplicitHomePathPtxasOnPathInThatOrder) {
  std::string explicitRoot = toolkit("explicit");
  ::setenv("CUDA_HOME", toolkit("home").c_str(), 1);
  ::setenv("CUDA_PATH", toolkit("path").c_str(), 1);
  ::setenv("PATH", (toolkit("onpath") + "/bin").c_str(), 1);

  EXPECT_EQ(rootFound(explicitRoot), explicitRoot);
  EXPECT_EQ(rootFound(), (scratch / "home").string());
  ::unsetenv("CUDA_HOME");
  EXPECT_EQ(rootFound(), (scratch / "path").string());
  ::unsetenv("CUDA_PATH");
  EXPECT_EQ(rootFound(), (scratch / "onpath").string());
  ::setenv("PATH", "", 1);
  EXPECT_EQ(rootFound(), defaultRoot());
}

TEST_F(CudaToolkitTest, PassesOverPlacesWithoutAToolkit) {
  fs::create_directories(scratch / "empty/bin");
  std::string empty = (scratch / "empty").string();
  ::setenv("CUDA_HOME", empty.c_str(), 1);
  ::setenv("CUDA_PATH", "", 1);
  ::setenv("PATH", (empty + "/bin:" + toolkit("onpath") + "/bin").c_str(), 1);
  EXPECT_EQ(rootFound(empty), (scratch / "onpath").string());
}

TEST_F(CudaToolkitTest, APtxasOutsideAToolkitIsTheLastResort) {
  std::string ptxas = executable("tools/ptxas");
  ::setenv("PATH", (scratch / "tools").c_str(), 1);
  auto found = locateCudaToolkit();
  ASSERT_TRUE(found);
  if (std::optional<std::string> root = defaultRoot()) {
    EXPECT_EQ(found->root, *root);
  } else {
    EXPECT_EQ(found->root, "");
    EXPECT_EQ(found->ptxas, ptxas);
  }
}

TEST_F(CudaToolkitTest, FindsAToolByTheSameOrder) {
  std::string explicitRoot = toolkit("explicit");
  executable("explicit/bin/nvdisasm");
  ::setenv("CUDA_HOME", toolkit("home").c_str(), 1);
  executable("home/bin/nvdisasm");
  ::setenv("CUDA_PATH", toolkit("path").c_str(), 1);
  executable("path/bin/nvdisasm");
  std::string onPath = executable("tools/nvdisasm");
  ::setenv("PATH", (scratch / "tools").c_str(), 1);

  EXPECT_EQ(findCudaTool("nvdisasm", explicitRoot),
            explicitRoot + "/bin/nvdisasm");
  EXPECT_EQ(findCudaTool("nvdisasm"), (scratch / "home/bin/nvdisasm").string());
  ::unsetenv("CUDA_HOME");
  EXPECT_EQ(findCudaTool("nvdisasm"), (scratch / "path/bin/nvdisasm").string());
  ::unsetenv("CUDA_PATH");
  EXPECT_EQ(findCudaTool("nvdisasm"), onPath);
  EXPECT_EQ(findCudaTool("llmptx-no-such-tool"), "");
}

TEST_F(CudaToolkitTest, AToolPathIsLookedForBelowBinNotOnPath) {
  std::string sanitizer =
      executable("home/compute-sanitizer/compute-sanitizer");
  fs::create_directories(scratch / "home/bin");
  // Where PATH would lead if a path were looked up on it.
  executable("tools/compute-sanitizer/compute-sanitizer");
  fs::create_directories(scratch / "tools/bin");
  ::setenv("PATH", (scratch / "tools/bin").c_str(), 1);
  const std::string relative = "../compute-sanitizer/compute-sanitizer";
  std::string viaDefault =
      std::string(kDefaultCudaToolkitRoot) + "/bin/" + relative;
  EXPECT_EQ(findCudaTool(relative),
            fs::exists(viaDefault) ? viaDefault : std::string());
  ::setenv("CUDA_HOME", (scratch / "home").c_str(), 1);
  EXPECT_EQ(findCudaTool(relative),
            (scratch / "home/bin").string() + "/" + relative);
  EXPECT_TRUE(fs::equivalent(findCudaTool(relative), sanitizer));
}
