//===- CudaToolkit.cpp - Where the CUDA toolkit is found ------------------===//

#include "llmptx/Runtime/CudaToolkit.h"

#include <cstdlib>
#include <initializer_list>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace llmptx::runtime;

namespace {

bool isDirectory(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

bool isExecutableFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

/// The value of an environment variable; empty when unset.
std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// The folders of PATH, in order; empty entries are skipped.
std::vector<std::string> pathFolders() {
  std::vector<std::string> folders;
  std::string list = environment("PATH");
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos)
      end = list.size();
    if (end > start)
      folders.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return folders;
}

/// `name` in the first folder of PATH that has it executable; empty when
/// none does.
std::string findOnPath(const std::string &name) {
  for (const std::string &folder : pathFolders())
    if (isExecutableFile(folder + "/" + name))
      return folder + "/" + name;
  return {};
}

/// The folder that holds `path` ("/a/b/ptxas" -> "/a/b"); empty when the
/// path names no folder.
std::string parentFolder(std::string path) {
  while (path.size() > 1 && path.back() == '/')
    path.pop_back();
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {};
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// The first of `names` in the library folders of `root`.
std::string findLibrary(const std::string &root,
                        std::initializer_list<const char *> names) {
  static const char *const folders[] = {
      "lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"};
  for (const char *folder : folders)
    for (const char *name : names) {
      std::string path = root + "/" + folder + "/" + name;
      if (exists(path))
        return path;
    }
  return {};
}

/// The folders NVRTC needs for the toolkit's own headers (cuda_fp16.h,
/// mma.h; cuda/barrier and cuda/pipeline under cccl/ since CUDA 13).
std::vector<std::string> headerFolders(const std::string &root) {
  std::vector<std::string> folders;
  for (const char *folder :
       {"include", "include/cccl", "targets/x86_64-linux/include",
        "targets/sbsa-linux/include"}) {
    std::string path = root + "/" + folder;
    if (isDirectory(path))
      folders.push_back(path);
  }
  return folders;
}

/// The toolkit roots of the search order, the explicit one first, before
/// PATH is consulted (step 4 depends on what PATH holds).
std::vector<std::string> rootsBeforePath(const std::string &explicitRoot) {
  return {explicitRoot, environment("CUDA_HOME"), environment("CUDA_PATH")};
}

} // namespace

std::optional<CudaToolkitLocation>
llmptx::runtime::probeCudaToolkitRoot(const std::string &root) {
  if (root.empty() || !isDirectory(root))
    return std::nullopt;
  CudaToolkitLocation location;
  location.root = root;
  std::string ptxas = root + "/bin/ptxas";
  if (isExecutableFile(ptxas))
    location.ptxas = ptxas;
  location.nvJitLink = findLibrary(
      root, {"libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"});
  location.nvrtc =
      findLibrary(root, {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"});
  if (!location.nvrtc.empty())
    location.includeFolders = headerFolders(root);
  if (location.ptxas.empty() && location.nvJitLink.empty())
    return std::nullopt;
  return location;
}

std::optional<CudaToolkitLocation>
llmptx::runtime::locateCudaToolkit(const std::string &explicitRoot) {
  for (const std::string &root : rootsBeforePath(explicitRoot))
    if (auto location = probeCudaToolkitRoot(root))
      return location;
  std::string ptxasOnPath = findOnPath("ptxas");
  if (!ptxasOnPath.empty())
    if (auto location =
            probeCudaToolkitRoot(parentFolder(parentFolder(ptxasOnPath))))
      if (!location->ptxas.empty())
        return location;
  if (auto location = probeCudaToolkitRoot(kDefaultCudaToolkitRoot))
    return location;
  if (ptxasOnPath.empty())
    return std::nullopt;
  CudaToolkitLocation lonePtxas;
  lonePtxas.ptxas = ptxasOnPath;
  return lonePtxas;
}

std::string llmptx::runtime::findCudaTool(const std::string &relativePath,
                                          const std::string &explicitRoot) {
  for (const std::string &root : rootsBeforePath(explicitRoot))
    if (!root.empty() && isExecutableFile(root + "/bin/" + relativePath))
      return root + "/bin/" + relativePath;
  if (relativePath.find('/') == std::string::npos) {
    std::string onPath = findOnPath(relativePath);
    if (!onPath.empty())
      return onPath;
  }
  std::string underDefault =
      std::string(kDefaultCudaToolkitRoot) + "/bin/" + relativePath;
  return isExecutableFile(underDefault) ? underDefault : std::string();
}

std::string
llmptx::runtime::findComputeSanitizer(const std::string &explicitPath) {
  if (!explicitPath.empty())
    return isExecutableFile(explicitPath) ? explicitPath : std::string();
  std::string found = findCudaTool("compute-sanitizer");
  if (found.empty())
    found = findCudaTool("../compute-sanitizer/compute-sanitizer");
  return found;
}
