//===- VerificationCache.h - Verdicts a warm build reuses -------*- C++ -*-===//
//
// What a build already checked, kept in the cache folder next to the
// answers, so a warm build runs neither ptxas nor the runner again:
//
//   compile verdicts  ptxas/nvJitLink on one PTX text, keyed by the text's
//                     hash, the chip, the assembler (path, size, mtime) and
//                     its options; the verdict, diagnostics, resources
//   bundle results    the runner's record of one verification bundle, keyed
//                     by the bundle's hash (it embeds the reference PTX,
//                     every candidate's PTX, launches, shapes, inputs,
//                     tolerances), the GPU's name and the driver version
//   runner devices    the GPU a runner command reached last (from this
//                     host), which names the GPU a warm build looks up
//
// under <cache-dir>/verify-v1/. The discipline is the answer cache's: one
// file per entry, written to a unique temporary file and renamed into
// place, no locks (a lost node leaves nothing held), a checksum checked on
// every read and the key recomputed from the entry, so many writers on
// several machines (an NFS-style mount) only ever publish whole entries. A
// corrupt entry is a warning and a miss. `cache=off` reads and writes
// nothing, `cache=read` only reads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_VERIFICATIONCACHE_H
#define LLMPTX_PIPELINE_VERIFICATIONCACHE_H

#include "llmptx/LLM/CacheMode.h"
#include "llmptx/PTX/CompileCheck.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {

/// The GPU a result was measured on, as far as it keys the cache.
struct VerificationDevice {
  std::string name;      ///< "NVIDIA H200"
  int driverVersion = 0; ///< cuDriverGetVersion: 13000 for CUDA 13.0
  /// The runner's whole device record (peaks, clocks), given back with a
  /// cached result.
  llvm::json::Value record = nullptr;
};

/// How many lookups each kind of entry answered; the report lists them.
struct VerificationCacheCounts {
  unsigned compileHits = 0, compileMisses = 0;
  unsigned bundleHits = 0, bundleMisses = 0;
};

class VerificationCache {
public:
  /// The cache under `dir` (empty: the answer cache's default folder).
  VerificationCache(std::string dir, llm::CacheMode mode);

  bool reads() const { return mode != llm::CacheMode::Off; }
  bool writes() const { return mode == llm::CacheMode::ReadWrite; }

  /// ptx::compilePtx through the cache. A verdict is stored only when the
  /// assembler ran to its end (a timeout, a crash or a missing tool is
  /// asked again next time). A result from the cache has no cubin: callers
  /// that need the binary call ptx::compilePtx.
  ptx::CompileResult compile(llvm::StringRef ptxText, llvm::StringRef chip,
                             const ptx::CudaToolkit &toolkit,
                             const ptx::CompileOptions &options = {});

  /// The GPUs `runner` (the runner command; empty: the local
  /// llmptx-runner) reported in its last results on this host: the
  /// results' device first, then those the bundles' placements name (a
  /// cluster of several kinds of GPU). Empty when it never ran here.
  std::vector<VerificationDevice> runnerDevices(llvm::StringRef runner);

  /// The runner's record of the bundle whose file content is `bundleJson`,
  /// measured on the first of `devices` that has one, as a results document
  /// holding that one bundle (its "bundle" field set to `bundlePath`);
  /// nothing on a miss (always without devices).
  std::optional<std::string>
  lookupBundle(llvm::StringRef bundleJson,
               llvm::ArrayRef<VerificationDevice> devices,
               llvm::StringRef bundlePath);

  /// Stores the record of every bundle of `resultsJson` that ran to its
  /// end (no bundle error), under the content of its bundle file
  /// (`bundles`: path given to the runner -> content), on the device its
  /// placement names or else the results' device; and those devices as the
  /// ones `runner` reaches. Problems become warnings.
  void storeResults(llvm::StringRef runner, llvm::StringRef resultsJson,
                    const std::map<std::string, std::string> &bundles);

  /// Corrupt entries ignored and entries that could not be written, each
  /// once.
  std::vector<std::string> takeWarnings();

  VerificationCacheCounts counts() const;

  /// The hex SHA-256 of `data`.
  static std::string sha256Hex(llvm::StringRef data);

private:
  std::optional<llvm::json::Object>
  readEntry(llvm::StringRef kind, llvm::StringRef key, llvm::StringRef format);
  void writeEntry(llvm::StringRef kind, llvm::StringRef key,
                  llvm::StringRef format, llvm::json::Object entry);
  std::string pathFor(llvm::StringRef kind, llvm::StringRef key) const;
  void warn(std::string warning);

  std::string root;
  llm::CacheMode mode;
  std::atomic<unsigned> compileHits{0}, compileMisses{0};
  std::atomic<unsigned> bundleHits{0}, bundleMisses{0};
  std::mutex mutex;
  std::vector<std::string> warnings;
  /// Runner devices already read, by runner command.
  std::map<std::string, std::vector<VerificationDevice>> devices;
};

/// "ptxas:/usr/local/cuda/bin/ptxas:31457280:1718000000" for the assembler
/// compilePtx would run with `options`: a new toolkit at the same path
/// changes its size or modification time (ccache's "mtime" check), so no
/// assembler has to run to learn its version.
std::string assemblerIdentity(const ptx::CudaToolkit &toolkit,
                              const ptx::CompileOptions &options);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_VERIFICATIONCACHE_H
