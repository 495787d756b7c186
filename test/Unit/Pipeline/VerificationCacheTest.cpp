//===- VerificationCacheTest.cpp - Verdicts a warm build reuses -*- C++ -*-===//

#include "llmptx/Pipeline/VerificationCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <atomic>
#include <fstream>
#include <thread>

using namespace llmptx;

namespace {

/// A folder removed at the end of the test.
struct Scratch {
  llvm::SmallString<128> path;
  Scratch() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("llmptx-vcache", path));
  }
  ~Scratch() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> joined(path);
    llvm::sys::path::append(joined, name);
    return joined.str().str();
  }
};

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

unsigned countLines(const std::string &path) {
  std::string text = readFile(path);
  return static_cast<unsigned>(std::count(text.begin(), text.end(), '\n'));
}

/// A toolkit whose ptxas records each call in `calls` and answers with
/// `reply` (a shell fragment run after recording).
ptx::CudaToolkit fakeToolkit(const Scratch &scratch, const std::string &reply) {
  ptx::CudaToolkit toolkit;
  toolkit.ptxasPath = scratch.file("ptxas");
  writeFile(toolkit.ptxasPath,
            "#!/bin/sh\necho call >> " + scratch.file("calls") + "\n" + reply);
  llvm::sys::fs::setPermissions(toolkit.ptxasPath, llvm::sys::fs::all_perms);
  return toolkit;
}

const char *kAssembles =
    "out=/dev/null\n"
    "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
    "echo cubin > $out\n"
    "echo \"ptxas info    : Compiling entry function 'k' for 'sm_90'\" >&2\n"
    "echo \"ptxas info    : Used 24 registers, used 1 barriers\" >&2\n";

TEST(VerificationCacheTest, CompileVerdictIsReusedWithoutTheAssembler) {
  Scratch scratch;
  ptx::CudaToolkit toolkit = fakeToolkit(scratch, kAssembles);
  VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
  ptx::CompileResult first = cache.compile("ptx text", "sm_90", toolkit);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_EQ(countLines(scratch.file("calls")), 1u);

  VerificationCache again(scratch.file("cache"), llm::CacheMode::ReadWrite);
  ptx::CompileResult second = again.compile("ptx text", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 1u);
  EXPECT_TRUE(second.ok);
  EXPECT_EQ(second.tool, "ptxas");
  EXPECT_TRUE(second.cubin.empty());
  ASSERT_EQ(second.resources.size(), 1u);
  EXPECT_EQ(second.resources[0].entry, "k");
  EXPECT_EQ(second.resources[0].registers, 24u);
  EXPECT_EQ(second.resources[0].barriers, 1u);
  EXPECT_EQ(again.counts().compileHits, 1u);

  // Another text, chip or option is another verdict.
  again.compile("other ptx", "sm_90", toolkit);
  again.compile("ptx text", "sm_80", toolkit);
  ptx::CompileOptions options;
  options.extraArgs = {"--maxrregcount=32"};
  again.compile("ptx text", "sm_90", toolkit, options);
  EXPECT_EQ(countLines(scratch.file("calls")), 4u);
  EXPECT_EQ(again.counts().compileMisses, 3u);
}

TEST(VerificationCacheTest, AnotherAssemblerAtTheSamePathIsAsked) {
  Scratch scratch;
  ptx::CudaToolkit toolkit = fakeToolkit(scratch, kAssembles);
  VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
  cache.compile("ptx text", "sm_90", toolkit);
  // A new toolkit installed over the old one: another size.
  fakeToolkit(scratch, std::string(kAssembles) + "# version 2\n");
  cache.compile("ptx text", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 2u);
}

TEST(VerificationCacheTest, ErrorsAreVerdictsButAToolFailureIsNot) {
  Scratch scratch;
  ptx::CudaToolkit failing = fakeToolkit(
      scratch,
      "echo \"ptxas /tmp/x.ptx, line 3; error   : Unknown symbol 'r'\" >&2\n"
      "exit 255\n");
  VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
  ptx::CompileResult first = cache.compile("bad ptx", "sm_90", failing);
  EXPECT_FALSE(first.ok);
  ptx::CompileResult second = cache.compile("bad ptx", "sm_90", failing);
  EXPECT_EQ(countLines(scratch.file("calls")), 1u);
  ASSERT_FALSE(second.diagnostics.empty());
  EXPECT_EQ(second.diagnostics[0].loc.line, 3u);
  EXPECT_EQ(second.diagnostics[0].message, first.diagnostics[0].message);

  // Killed by a signal: the assembler gave no verdict, so it is asked again.
  ptx::CudaToolkit crashing = fakeToolkit(scratch, "kill -9 $$\n");
  cache.compile("crashing ptx", "sm_90", crashing);
  cache.compile("crashing ptx", "sm_90", crashing);
  EXPECT_EQ(countLines(scratch.file("calls")), 3u);
}

TEST(VerificationCacheTest, ReadModeWritesNothingAndOffReadsNothing) {
  Scratch scratch;
  ptx::CudaToolkit toolkit = fakeToolkit(scratch, kAssembles);
  VerificationCache read(scratch.file("cache"), llm::CacheMode::Read);
  read.compile("ptx text", "sm_90", toolkit);
  read.compile("ptx text", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 2u);
  EXPECT_FALSE(llvm::sys::fs::exists(scratch.file("cache")));

  VerificationCache write(scratch.file("cache"), llm::CacheMode::ReadWrite);
  write.compile("ptx text", "sm_90", toolkit);
  VerificationCache off(scratch.file("cache"), llm::CacheMode::Off);
  off.compile("ptx text", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 4u);
  read.compile("ptx text", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 4u);
}

/// A results file as llmptx-runner writes it, for bundles at `paths`; the
/// second bundle is a bundle error.
std::string resultsFor(const std::string &ok, const std::string &failed,
                       llvm::StringRef placementGpu = "") {
  std::string placement =
      placementGpu.empty()
          ? std::string()
          : llvm::formatv(R"(, "placement": {{"hostname": "gpu-4",
              "device": {{"name": "{0}", "driver_version": 12080}})",
                          placementGpu)
                .str();
  return llvm::formatv(R"({{"format": "llmptx-results", "version": 1,
    "device": {{"name": "NVIDIA H200", "driver_version": 13000, "sm": 90},
    "sanitizer": {{"ran": false, "note": "not asked"},
    "bundles": [
      {{"bundle": "{0}", "kernel": "vadd", "wall_seconds": 1.5,
       "candidates": [{{"name": "s0r0", "verdict": "pass", "shapes": []}]{2}},
      {{"bundle": "{1}", "kernel": "saxpy", "error": "the reference faulted",
       "candidates": []}]})",
                       ok, failed, placement)
      .str();
}

TEST(VerificationCacheTest, BundleResultsAreKeptPerBundleAndDevice) {
  Scratch scratch;
  VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
  EXPECT_TRUE(cache.runnerDevices("my-runner").empty());
  std::map<std::string, std::string> bundles = {
      {"/tmp/a/m.vadd.bundle.json", "{\"kernel\": \"vadd\"}"},
      {"/tmp/a/m.saxpy.bundle.json", "{\"kernel\": \"saxpy\"}"}};
  cache.storeResults(
      "my-runner",
      resultsFor("/tmp/a/m.vadd.bundle.json", "/tmp/a/m.saxpy.bundle.json"),
      bundles);

  VerificationCache warm(scratch.file("cache"), llm::CacheMode::ReadWrite);
  std::vector<VerificationDevice> reached = warm.runnerDevices("my-runner");
  ASSERT_EQ(reached.size(), 1u);
  const VerificationDevice *device = &reached.front();
  EXPECT_EQ(device->name, "NVIDIA H200");
  EXPECT_EQ(device->driverVersion, 13000);
  EXPECT_TRUE(warm.runnerDevices("another-runner").empty());

  std::optional<std::string> hit = warm.lookupBundle(
      "{\"kernel\": \"vadd\"}", reached, "/tmp/b/m.vadd.bundle.json");
  ASSERT_TRUE(hit);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(*hit);
  ASSERT_TRUE(bool(parsed));
  const llvm::json::Object *results = parsed->getAsObject();
  const llvm::json::Object *record =
      results->getArray("bundles")->front().getAsObject();
  EXPECT_EQ(record->getString("bundle"), "/tmp/b/m.vadd.bundle.json");
  EXPECT_EQ(record->getString("kernel"), "vadd");
  EXPECT_EQ(results->getObject("device")->getString("name"), "NVIDIA H200");
  EXPECT_TRUE(results->getObject("sanitizer"));

  // One byte of the bundle, the GPU or the driver: a miss.
  EXPECT_FALSE(warm.lookupBundle("{\"kernel\": \"vadd\" }", reached, "x"));
  VerificationDevice other = *device;
  other.driverVersion = 12080;
  EXPECT_FALSE(warm.lookupBundle("{\"kernel\": \"vadd\"}", other, "x"));
  EXPECT_FALSE(warm.lookupBundle("{\"kernel\": \"vadd\"}", {}, "x"));
  // A bundle error is never kept.
  EXPECT_FALSE(warm.lookupBundle("{\"kernel\": \"saxpy\"}", reached, "x"));
  EXPECT_EQ(warm.counts().bundleHits, 1u);
  EXPECT_EQ(warm.counts().bundleMisses, 4u);
}

TEST(VerificationCacheTest, APlacementNamesTheGpuOfItsBundle) {
  Scratch scratch;
  VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
  cache.storeResults("ray", resultsFor("a.json", "b.json", "NVIDIA H100"),
                     {{"a.json", "bundle a"}});
  VerificationDevice h100{"NVIDIA H100", 12080};
  VerificationDevice h200{"NVIDIA H200", 13000};
  EXPECT_TRUE(cache.lookupBundle("bundle a", h100, "a.json"));
  EXPECT_FALSE(cache.lookupBundle("bundle a", h200, "a.json"));
  // The runner reached both: a warm build finds the bundle whichever GPU
  // of the cluster ran it.
  VerificationCache warm(scratch.file("cache"), llm::CacheMode::ReadWrite);
  std::vector<VerificationDevice> reached = warm.runnerDevices("ray");
  ASSERT_EQ(reached.size(), 2u);
  EXPECT_EQ(reached[0].name, "NVIDIA H200");
  EXPECT_EQ(reached[1].name, "NVIDIA H100");
  EXPECT_TRUE(warm.lookupBundle("bundle a", reached, "a.json"));
}

/// Every entry file under `root`.
std::vector<std::string> entryFiles(const std::string &root) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end;
       !ec && it != end; it.increment(ec))
    if (!llvm::sys::fs::is_directory(it->path()))
      files.push_back(it->path());
  return files;
}

TEST(VerificationCacheTest, AlteredOrMovedEntriesAreWarningsNeverAnswers) {
  Scratch scratch;
  ptx::CudaToolkit toolkit = fakeToolkit(scratch, kAssembles);
  VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
  cache.compile("first", "sm_90", toolkit);
  cache.compile("second", "sm_90", toolkit);
  std::vector<std::string> files = entryFiles(scratch.file("cache"));
  ASSERT_EQ(files.size(), 2u);

  // The verdict of one text put where the other's belongs.
  std::string moved = readFile(files[0]);
  writeFile(files[1], moved);
  // And an edit of the other.
  std::string text = readFile(files[0]);
  size_t at = text.find("\"registers\": 24");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "\"registers\": 12");
  writeFile(files[0], text);

  VerificationCache warm(scratch.file("cache"), llm::CacheMode::ReadWrite);
  ptx::CompileResult first = warm.compile("first", "sm_90", toolkit);
  ptx::CompileResult second = warm.compile("second", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 4u);
  ASSERT_EQ(first.resources.size(), 1u);
  EXPECT_EQ(first.resources[0].registers, 24u);
  std::vector<std::string> warnings = warm.takeWarnings();
  ASSERT_EQ(warnings.size(), 2u);
  std::string both = warnings[0] + "\n" + warnings[1];
  EXPECT_NE(both.find("checksum mismatch"), std::string::npos) << both;
  EXPECT_NE(both.find("the stored key does not match"), std::string::npos)
      << both;
  // The fresh verdicts replaced them.
  VerificationCache repaired(scratch.file("cache"), llm::CacheMode::ReadWrite);
  repaired.compile("first", "sm_90", toolkit);
  repaired.compile("second", "sm_90", toolkit);
  EXPECT_EQ(countLines(scratch.file("calls")), 4u);
  EXPECT_TRUE(repaired.takeWarnings().empty());
}

TEST(VerificationCacheTest, ManyWritersPublishOnlyWholeEntries) {
  Scratch scratch;
  std::map<std::string, std::string> bundles = {{"a.json", "bundle a"}};
  std::string results = resultsFor("a.json", "b.json");
  VerificationCache seed(scratch.file("cache"), llm::CacheMode::ReadWrite);
  seed.storeResults("runner", results, bundles);
  std::atomic<unsigned> hits{0};
  std::vector<std::thread> threads;
  for (int writer = 0; writer < 4; ++writer)
    threads.emplace_back([&] {
      VerificationCache cache(scratch.file("cache"), llm::CacheMode::ReadWrite);
      for (int i = 0; i < 20; ++i)
        cache.storeResults("runner", results, bundles);
      EXPECT_TRUE(cache.takeWarnings().empty());
    });
  for (int reader = 0; reader < 4; ++reader)
    threads.emplace_back([&] {
      for (int i = 0; i < 40; ++i) {
        VerificationCache cache(scratch.file("cache"),
                                llm::CacheMode::ReadWrite);
        std::vector<VerificationDevice> reached = cache.runnerDevices("runner");
        if (!reached.empty() &&
            cache.lookupBundle("bundle a", reached, "a.json"))
          ++hits;
        EXPECT_TRUE(cache.takeWarnings().empty());
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(hits.load(), 160u);
  // One bundle entry and one runner entry; no temporary file left.
  EXPECT_EQ(entryFiles(scratch.file("cache")).size(), 2u);
}

} // namespace
