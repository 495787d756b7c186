//===- LLMBench.cpp - Cache-hit latency and per-request overhead ----------===//
//
// Measures what the LLM layer costs on top of the model itself, against the
// loopback mock server (llmptx.testing.mock_llm_server) so that the network
// and the model are as fast as they can be:
//   - a bare libcurl POST of the same body (the floor),
//   - the openai provider with the cache off (floor + JSON + retries logic),
//   - a cache miss that writes an entry (readwrite),
//   - a cache hit through the openai provider and through replay,
//   - the exec provider running `cat >/dev/null; printf ...` and a bare
//     /bin/sh spawn of the same command.
// Per-request overhead = provider median - bare POST median.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Cache.h"
#include "llmptx/LLM/Prompt.h"
#include "llmptx/LLM/Provider.h"
#include "llmptx/LLM/Serialization.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <functional>
#include <thread>
#include <time.h>

using namespace llvm;
using namespace llmptx::llm;

namespace {

cl::opt<unsigned> iterations("n", cl::desc("Iterations per measurement"),
                             cl::init(200));
cl::opt<std::string>
    python("python",
           cl::desc("Python interpreter with the llmptx package (default: "
                    "the build's environment)"),
           cl::init(LLMPTX_VENV_PYTHON));

using Clock = std::chrono::steady_clock;

struct Stats {
  double median, p90, mean;
  /// Median CPU time of the calling thread: the layer's own work, without
  /// the time spent waiting for the server or a child process.
  double cpuMedian;
};

double threadCpuMicros() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

Stats summarize(std::vector<double> micros, std::vector<double> cpu) {
  std::sort(micros.begin(), micros.end());
  double sum = 0;
  for (double value : micros)
    sum += value;
  return {micros[micros.size() / 2], micros[micros.size() * 9 / 10],
          sum / micros.size(), median(std::move(cpu))};
}

struct Timed {
  std::vector<double> wall, cpu;
  void run(const std::function<void(unsigned)> &body, unsigned i) {
    double cpuStart = threadCpuMicros();
    auto start = Clock::now();
    body(i);
    wall.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - start)
            .count());
    cpu.push_back(threadCpuMicros() - cpuStart);
  }
  Stats stats() const { return summarize(wall, cpu); }
};

Stats measure(unsigned count, const std::function<void(unsigned)> &body) {
  // Warm-up: first connections, page cache, lazy symbol binding.
  for (unsigned i = 0; i < std::min(count, 5u); ++i)
    body(count + i);
  Timed timed;
  for (unsigned i = 0; i < count; ++i)
    timed.run(body, i);
  return timed.stats();
}

struct Paired {
  Stats first, second;
  /// Medians of the per-pair differences second - first.
  double wallDelta, cpuDelta;
};

/// Times \p first and \p second alternately, so that drift in the machine's
/// load hits both the same way, and reports the median of the differences.
Paired measurePair(unsigned count, const std::function<void(unsigned)> &first,
                   const std::function<void(unsigned)> &second) {
  for (unsigned i = 0; i < std::min(count, 5u); ++i) {
    first(count + i);
    second(count + i);
  }
  Timed a, b;
  for (unsigned i = 0; i < count; ++i) {
    a.run(first, i);
    b.run(second, i);
  }
  std::vector<double> wall, cpu;
  for (unsigned i = 0; i < count; ++i) {
    wall.push_back(b.wall[i] - a.wall[i]);
    cpu.push_back(b.cpu[i] - a.cpu[i]);
  }
  return {a.stats(), b.stats(), median(std::move(wall)),
          median(std::move(cpu))};
}

void printRow(StringRef name, const Stats &stats) {
  outs() << formatv("{0,-40} {1,9:f1} {2,9:f1} {3,9:f1} {4,9:f1}\n", name,
                    stats.median, stats.p90, stats.mean, stats.cpuMedian);
}

size_t discard(char *, size_t size, size_t count, void *) {
  return size * count;
}

void barePost(const std::string &url, const std::string &body) {
  CURL *curl = curl_easy_init();
  struct curl_slist *headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "127.0.0.1");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
}

KernelSpec sampleSpec() {
  KernelSpec spec;
  spec.kernelName = "vecadd";
  spec.chip = "sm_90";
  spec.ptxIsa = "8.5";
  spec.mlirText =
      "gpu.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: "
      "memref<?xf32>, %n: index) kernel {\n"
      "  %bid = gpu.block_id x\n  %bdim = gpu.block_dim x\n"
      "  %tid = gpu.thread_id x\n  %t = arith.muli %bid, %bdim : index\n"
      "  %i = arith.addi %t, %tid : index\n"
      "  %in = arith.cmpi ult, %i, %n : index\n"
      "  scf.if %in {\n    %x = memref.load %a[%i] : memref<?xf32>\n"
      "    %y = memref.load %b[%i] : memref<?xf32>\n"
      "    %s = arith.addf %x, %y : f32\n"
      "    memref.store %s, %c[%i] : memref<?xf32>\n  }\n  gpu.return\n}\n";
  spec.ptxSignature = ".visible .entry vecadd(\n  .param .u64 vecadd_param_0, "
                      "...\n)";
  spec.launchFacts = "block (256, 1, 1); grid ceil(n / 256)";
  return spec;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "Benchmark of the llmptx LLM layer\n");
  SmallString<128> work;
  if (std::error_code ec =
          sys::fs::createUniqueDirectory("llmptx-llm-bench", work)) {
    errs() << "cannot create a work directory: " << ec.message() << "\n";
    return 1;
  }
  auto file = [&](StringRef name) {
    SmallString<256> path(work);
    sys::path::append(path, name);
    return std::string(path);
  };

  // A reply of realistic size: a ~3 KiB PTX module.
  std::string ptx = "```ptx\n.version 8.5\n.target sm_90\n.address_size 64\n";
  while (ptx.size() < 3000)
    ptx += "\tadd.s32 \t%r1, %r2, %r3;   // filler line of a kernel body\n";
  ptx += "```\n";
  {
    std::error_code ec;
    raw_fd_ostream script(file("script.json"), ec);
    llvm::json::Object reply{{"completion", ptx}, {"model", "mock-bench"}};
    llvm::json::Object scriptObject{
        {"responses", llvm::json::Array{llvm::json::Value(std::move(reply))}}};
    script << llvm::json::Value(std::move(scriptObject)) << "\n";
  }
  auto pythonPath = sys::findProgramByName(python);
  if (!pythonPath) {
    errs() << "cannot find " << python << "\n";
    return 1;
  }
  std::string scriptPath = file("script.json"), portPath = file("port");
  StringRef serverArgs[] = {
      *pythonPath,   "-m",     "llmptx.testing.mock_llm_server",
      "--script",    scriptPath, "--port-file", portPath, "--idle-timeout",
      "60"};
  std::string error;
  // The server's "port N" line would land in the table.
  std::optional<StringRef> serverRedirects[] = {StringRef(""), StringRef(""),
                                                std::nullopt};
  sys::ProcessInfo server = sys::ExecuteNoWait(*pythonPath, serverArgs,
                                               std::nullopt,
                                               serverRedirects, 0, &error);
  if (server.Pid <= 0) {
    errs() << "cannot start the mock server: " << error << "\n";
    return 1;
  }
  std::string port;
  for (int i = 0; i < 200 && port.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (auto buffer = MemoryBuffer::getFile(portPath))
      port = (*buffer)->getBuffer().trim().str();
  }
  if (port.empty()) {
    errs() << "the mock server did not start\n";
    ::kill(server.Pid, SIGTERM);
    return 1;
  }
  std::string baseUrl = "http://127.0.0.1:" + port + "/v1";

  Prompt prompt = renderTranslatePrompt(sampleSpec());
  auto requestFor = [&](unsigned i) {
    CompletionRequest request;
    request.messages = prompt.messages;
    // A distinct prompt per iteration, so misses stay misses.
    request.messages.back().content += "\n// iteration " + utostr(i);
    request.templateVersion = prompt.templateVersion;
    request.model = "mock-bench";
    request.label = "vecadd";
    return request;
  };
  size_t promptBytes = 0;
  for (const ChatMessage &message : prompt.messages)
    promptBytes += message.content.size();

  ProviderConfig config;
  config.kind = "openai";
  config.model = "mock-bench";
  config.baseUrl = baseUrl;
  config.cacheDir = file("cache");
  unsigned n = iterations;

  outs() << formatv("llmptx LLM layer benchmark: {0} iterations each, prompt "
                    "{1} bytes, reply {2} bytes, mock server on {3}\n",
                    n, promptBytes, ptx.size(), baseUrl);
  outs() << formatv("{0,-40} {1,9} {2,9} {3,9} {4,9}\n", "measurement (us)",
                    "median", "p90", "mean", "cpu");

  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::string body = requestToJson(requestFor(0));
  config.cacheMode = CacheMode::Off;
  auto uncached = createProvider(config);
  if (!uncached) {
    errs() << toString(uncached.takeError()) << "\n";
    return 1;
  }
  bool allOk = true;
  Paired http = measurePair(
      n, [&](unsigned) { barePost(baseUrl + "/chat/completions", body); },
      [&](unsigned i) { allOk &= (*uncached)->complete(requestFor(i)).ok; });
  printRow("bare libcurl POST (floor)", http.first);
  printRow("openai provider, cache off", http.second);

  config.cacheMode = CacheMode::ReadWrite;
  auto cached = createProvider(config);
  if (!cached) {
    errs() << toString(cached.takeError()) << "\n";
    return 1;
  }
  Stats miss = measure(
      n, [&](unsigned i) { allOk &= (*cached)->complete(requestFor(i)).ok; });
  printRow("openai provider, cache miss + write", miss);
  Stats hit = measure(n, [&](unsigned i) {
    Completion completion = (*cached)->complete(requestFor(i));
    allOk &= completion.ok && completion.cacheHit;
  });
  printRow("openai provider, cache hit", hit);

  ProviderConfig replayConfig = config;
  replayConfig.kind = "replay";
  auto replay = createProvider(replayConfig);
  if (!replay) {
    errs() << toString(replay.takeError()) << "\n";
    return 1;
  }
  Stats replayHit = measure(n, [&](unsigned i) {
    allOk &= (*replay)->complete(requestFor(i)).cacheHit;
  });
  printRow("replay provider, cache hit", replayHit);

  std::string command = "cat >/dev/null; printf 'ptx'";
  ProviderConfig execConfig = config;
  execConfig.kind = "exec";
  execConfig.execCommand = command;
  execConfig.cacheMode = CacheMode::Off;
  auto exec = createProvider(execConfig);
  if (!exec) {
    errs() << toString(exec.takeError()) << "\n";
    return 1;
  }
  unsigned execCount = std::max(1u, n / 4);
  Paired spawn = measurePair(
      execCount,
      [&](unsigned) {
        StringRef args[] = {"/bin/sh", "-c", command};
        std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""),
                                                StringRef("")};
        sys::ExecuteAndWait("/bin/sh", args, std::nullopt, redirects);
      },
      [&](unsigned i) { allOk &= (*exec)->complete(requestFor(i)).ok; });
  printRow("bare /bin/sh spawn (floor)", spawn.first);
  printRow("exec provider, cache off", spawn.second);

  outs() << formatv("per-request overhead of the layer (median of paired "
                    "differences): openai {0:f1} us CPU, {1:f1} us wall over a "
                    "bare POST; exec {2:f1} us CPU, {3:f1} us wall over a bare "
                    "spawn\n",
                    http.cpuDelta, http.wallDelta, spawn.cpuDelta,
                    spawn.wallDelta);
  outs() << formatv("cache-hit latency (median): {0:f1} us (openai), {1:f1} "
                    "us (replay)\n",
                    hit.median, replayHit.median);

  ::kill(server.Pid, SIGTERM);
  sys::Wait(server, std::nullopt);
  sys::fs::remove_directories(work);
  if (!allOk) {
    errs() << "error: some calls failed or missed the cache\n";
    return 1;
  }
  return 0;
}
