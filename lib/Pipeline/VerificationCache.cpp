//===- VerificationCache.cpp - Verdicts a warm build reuses -----*- C++ -*-===//
//
// Every entry stores the material its key is the hash of, and the key is
// recomputed from it on every read, so a file renamed or copied by hand is
// never served for other input; its checksum covers the canonical (sorted,
// compact) dump of the entry without the checksum itself.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/VerificationCache.h"

#include "llmptx/LLM/Provider.h"
#include "llmptx/Support/FileIO.h"
#include "llmptx/Support/UtcTime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <cerrno>
#include <ctime>
#include <unistd.h>

using namespace llmptx;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

static constexpr llvm::StringLiteral kCompileFormat =
    "llmptx-compile-verdict-v1";
static constexpr llvm::StringLiteral kBundleFormat = "llmptx-bundle-result-v1";
static constexpr llvm::StringLiteral kRunnerFormat = "llmptx-runner-device-v1";

std::string VerificationCache::sha256Hex(llvm::StringRef data) {
  llvm::SHA256 sha;
  sha.update(data);
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}

/// The canonical text of `value`: compact, object keys sorted.
static std::string canonical(const Value &value) {
  return llvm::formatv("{0}", value).str();
}

static std::string keyOf(const Value &material) {
  return VerificationCache::sha256Hex(canonical(material));
}

std::string llmptx::assemblerIdentity(const ptx::CudaToolkit &toolkit,
                                      const ptx::CompileOptions &options) {
  // The choice ptx::compilePtx makes.
  bool nvJitLink = !toolkit.nvJitLinkPath.empty() &&
                   (options.backend == ptx::CompileBackend::NvJitLink ||
                    (options.backend == ptx::CompileBackend::Auto &&
                     toolkit.ptxasPath.empty()));
  const std::string &path =
      nvJitLink ? toolkit.nvJitLinkPath : toolkit.ptxasPath;
  llvm::sys::fs::file_status status;
  if (path.empty() || llvm::sys::fs::status(path, status))
    return {};
  return llvm::formatv(
             "{0}:{1}:{2}:{3}", nvJitLink ? "nvJitLink" : "ptxas", path,
             status.getSize(),
             status.getLastModificationTime().time_since_epoch().count())
      .str();
}

VerificationCache::VerificationCache(std::string dir, llm::CacheMode mode)
    : root(dir.empty() ? llm::defaultCacheDir() : std::move(dir)), mode(mode) {}

std::string VerificationCache::pathFor(llvm::StringRef kind,
                                       llvm::StringRef key) const {
  llvm::SmallString<256> path(root);
  llvm::sys::path::append(path, "verify-v1", kind, key.take_front(2),
                          key + ".json");
  return path.str().str();
}

void VerificationCache::warn(std::string warning) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!llvm::is_contained(warnings, warning))
    warnings.push_back(std::move(warning));
}

std::vector<std::string> VerificationCache::takeWarnings() {
  std::lock_guard<std::mutex> lock(mutex);
  return std::exchange(warnings, {});
}

VerificationCacheCounts VerificationCache::counts() const {
  return {compileHits.load(), compileMisses.load(), bundleHits.load(),
          bundleMisses.load()};
}

std::optional<Object> VerificationCache::readEntry(llvm::StringRef kind,
                                                   llvm::StringRef key,
                                                   llvm::StringRef format) {
  std::string path = pathFor(kind, key);
  std::string text;
  if (std::optional<std::string> problem =
          untrusted::readRegularFile(path, text)) {
    // Absent (or removed since): an ordinary miss.
    if (!llvm::sys::fs::exists(path))
      return std::nullopt;
    warn("ignored verification cache entry " + path +
         ": cannot read: " + *problem);
    return std::nullopt;
  }
  auto corrupt = [&](const llvm::Twine &why) -> std::optional<Object> {
    warn(("ignored corrupt verification cache entry " + path + ": " + why)
             .str());
    return std::nullopt;
  };
  llvm::Expected<Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return corrupt(llvm::toString(parsed.takeError()));
  Object *entry = parsed->getAsObject();
  if (!entry || entry->getString("format") != format)
    return corrupt("not an " + format + " entry");
  std::optional<llvm::StringRef> checksum = entry->getString("checksum");
  if (!checksum)
    return corrupt("no checksum");
  std::string stored = checksum->str();
  entry->erase("checksum");
  if ("sha256:" + sha256Hex(canonical(Value(Object(*entry)))) != stored)
    return corrupt("checksum mismatch (the entry was altered or damaged)");
  const Value *material = entry->get("material");
  if (!material || keyOf(*material) != key ||
      entry->getString("key") != std::optional<llvm::StringRef>(key))
    return corrupt("the stored key does not match the stored material");
  return std::move(*entry);
}

void VerificationCache::writeEntry(llvm::StringRef kind, llvm::StringRef key,
                                   llvm::StringRef format, Object entry) {
  if (!writes())
    return;
  entry["format"] = format;
  entry["key"] = key.str();
  entry["created"] = utcTimestamp();
  entry["checksum"] = "sha256:" + sha256Hex(canonical(Value(Object(entry))));
  std::string path = pathFor(kind, key);
  llvm::StringRef folder = llvm::sys::path::parent_path(path);
  if (std::error_code ec = llvm::sys::fs::create_directories(folder)) {
    warn("verification cache: cannot create " + folder.str() + ": " +
         ec.message());
    return;
  }
  // Readers and writers on other machines see the old entry or the new
  // one, never half of either.
  if (std::optional<std::string> problem = untrusted::writeFileAtomically(
          path, llvm::formatv("{0:1}\n", Value(std::move(entry))).str(),
          untrusted::SpecialFiles::Replace))
    warn("verification cache: cannot write " + path + ": " + *problem);
}

//===----------------------------------------------------------------------===//
// Compile verdicts
//===----------------------------------------------------------------------===//

static Value diagnosticsJson(const std::vector<ptx::Diagnostic> &diags) {
  return ptx::toJson(diags);
}

static std::optional<ptx::Diagnostic> diagnosticFrom(const Value &value) {
  const Object *object = value.getAsObject();
  if (!object)
    return std::nullopt;
  ptx::Diagnostic diag;
  llvm::StringRef severity = object->getString("severity").value_or("");
  if (severity == "error")
    diag.severity = ptx::Severity::Error;
  else if (severity == "warning")
    diag.severity = ptx::Severity::Warning;
  else if (severity == "note")
    diag.severity = ptx::Severity::Note;
  else
    return std::nullopt;
  diag.loc.line = object->getInteger("line").value_or(0);
  diag.loc.column = object->getInteger("column").value_or(0);
  diag.message = object->getString("message").value_or("").str();
  diag.hint = object->getString("hint").value_or("").str();
  diag.code = object->getString("code").value_or("").str();
  if (const Array *notes = object->getArray("notes"))
    for (const Value &note : *notes)
      if (std::optional<ptx::Diagnostic> parsed = diagnosticFrom(note))
        diag.notes.push_back(std::move(*parsed));
  return diag;
}

static std::optional<ptx::ResourceReport> resourcesFrom(const Value &value) {
  const Object *object = value.getAsObject();
  if (!object)
    return std::nullopt;
  ptx::ResourceReport report;
  report.entry = object->getString("entry").value_or("").str();
  auto number = [&](llvm::StringRef key) {
    return static_cast<unsigned>(object->getInteger(key).value_or(0));
  };
  report.registers = number("registers");
  report.spillStores = number("spillStores");
  report.spillLoads = number("spillLoads");
  report.sharedBytes = number("sharedBytes");
  report.localBytes = number("localBytes");
  report.constantBytes = number("constantBytes");
  report.barriers = number("barriers");
  return report;
}

/// Whether the assembler gave a verdict on the PTX itself, not on its own
/// run (a missing tool, a crash, a timeout: "compile-tool").
static bool isVerdict(const ptx::CompileResult &result) {
  return result.ok ||
         llvm::none_of(result.diagnostics, [](const ptx::Diagnostic &diag) {
           return diag.code == "compile-tool";
         });
}

ptx::CompileResult
VerificationCache::compile(llvm::StringRef ptxText, llvm::StringRef chip,
                           const ptx::CudaToolkit &toolkit,
                           const ptx::CompileOptions &options) {
  std::string assembler = assemblerIdentity(toolkit, options);
  if (!reads() || assembler.empty())
    return ptx::compilePtx(ptxText, chip, toolkit, options);
  Array extraArgs;
  for (const std::string &arg : options.extraArgs)
    extraArgs.push_back(arg);
  Value material = Object{{"ptx_sha256", sha256Hex(ptxText)},
                          {"chip", chip.str()},
                          {"assembler", assembler},
                          {"opt_level", options.optLevel},
                          {"extra_args", std::move(extraArgs)}};
  std::string key = keyOf(material);
  if (std::optional<Object> entry = readEntry("compile", key, kCompileFormat)) {
    ptx::CompileResult result;
    result.ok = entry->getBoolean("ok").value_or(false);
    result.tool = entry->getString("tool").value_or("").str();
    result.log = entry->getString("log").value_or("").str();
    if (const Array *diags = entry->getArray("diagnostics"))
      for (const Value &diag : *diags)
        if (std::optional<ptx::Diagnostic> parsed = diagnosticFrom(diag))
          result.diagnostics.push_back(std::move(*parsed));
    if (const Array *resources = entry->getArray("resources"))
      for (const Value &report : *resources)
        if (std::optional<ptx::ResourceReport> parsed = resourcesFrom(report))
          result.resources.push_back(std::move(*parsed));
    ++compileHits;
    return result;
  }
  ++compileMisses;
  ptx::CompileResult result = ptx::compilePtx(ptxText, chip, toolkit, options);
  if (writes() && isVerdict(result)) {
    Array resources;
    for (const ptx::ResourceReport &report : result.resources)
      resources.push_back(ptx::toJson(report));
    writeEntry("compile", key, kCompileFormat,
               Object{{"material", std::move(material)},
                      {"ok", result.ok},
                      {"tool", result.tool},
                      {"log", result.log},
                      {"diagnostics", diagnosticsJson(result.diagnostics)},
                      {"resources", std::move(resources)}});
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Runner devices and bundle results
//===----------------------------------------------------------------------===//

/// The runner command as this host runs it: a runner reached through ssh
/// from one machine may reach another GPU from the next.
static Value runnerMaterial(llvm::StringRef runner) {
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) != 0)
    host[0] = 0;
  return Object{
      {"host", std::string(host)},
      {"runner", runner.empty() ? std::string("(local)") : runner.str()}};
}

static std::optional<VerificationDevice> deviceFrom(const Value *record) {
  const Object *object = record ? record->getAsObject() : nullptr;
  if (!object)
    return std::nullopt;
  std::optional<llvm::StringRef> name = object->getString("name");
  std::optional<int64_t> driver = object->getInteger("driver_version");
  if (!name || name->empty() || !driver)
    return std::nullopt;
  return VerificationDevice{name->str(), static_cast<int>(*driver), *record};
}

std::vector<VerificationDevice>
VerificationCache::runnerDevices(llvm::StringRef runner) {
  if (!reads())
    return {};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto known = devices.find(runner.str());
    if (known != devices.end())
      return known->second;
  }
  std::vector<VerificationDevice> found;
  if (std::optional<Object> entry =
          readEntry("runners", keyOf(runnerMaterial(runner)), kRunnerFormat))
    if (const Array *records = entry->getArray("devices"))
      for (const Value &record : *records)
        if (std::optional<VerificationDevice> device = deviceFrom(&record))
          found.push_back(std::move(*device));
  std::lock_guard<std::mutex> lock(mutex);
  devices[runner.str()] = found;
  return found;
}

/// How the runner times, as far as it changes what a result says: a
/// result of another method is not this bundle's result. "allocator":
/// timed with every pointer 256-byte aligned (docs/verification.md,
/// "Timing sits where a program's buffers sit"); the results before it,
/// timed at the stated alignment, were keyed without a method.
static constexpr llvm::StringLiteral kTimingMethod = "allocator";

static Value bundleMaterial(llvm::StringRef bundleJson,
                            const VerificationDevice &device) {
  return Object{{"bundle_sha256", VerificationCache::sha256Hex(bundleJson)},
                {"gpu", device.name},
                {"driver_version", device.driverVersion},
                {"timing", kTimingMethod}};
}

std::optional<std::string>
VerificationCache::lookupBundle(llvm::StringRef bundleJson,
                                llvm::ArrayRef<VerificationDevice> devices,
                                llvm::StringRef bundlePath) {
  if (!reads())
    return std::nullopt;
  std::optional<Object> entry;
  for (const VerificationDevice &device : devices)
    if ((entry = readEntry("exec", keyOf(bundleMaterial(bundleJson, device)),
                           kBundleFormat)))
      break;
  Object *results = entry ? entry->getObject("results") : nullptr;
  Array *bundles = results ? results->getArray("bundles") : nullptr;
  Object *record = bundles && bundles->size() == 1
                       ? bundles->front().getAsObject()
                       : nullptr;
  if (!record) {
    ++bundleMisses;
    return std::nullopt;
  }
  ++bundleHits;
  (*record)["bundle"] = bundlePath.str();
  return canonical(Value(std::move(*results)));
}

/// "sha256 of the reference PTX" and "name: sha256 of its PTX" of each
/// candidate, for whoever reads the entry (the bundle's hash covers them).
static Object bundleContents(llvm::StringRef bundleJson) {
  Object contents;
  llvm::Expected<Value> bundle = llvm::json::parse(bundleJson);
  if (!bundle) {
    llvm::consumeError(bundle.takeError());
    return contents;
  }
  const Object *object = bundle->getAsObject();
  if (!object)
    return contents;
  if (const Object *reference = object->getObject("reference"))
    contents["reference_ptx_sha256"] =
        VerificationCache::sha256Hex(reference->getString("ptx").value_or(""));
  Array candidates;
  if (const Array *list = object->getArray("candidates"))
    for (const Value &candidate : *list)
      if (const Object *fields = candidate.getAsObject())
        candidates.push_back(
            Object{{"name", fields->getString("name").value_or("").str()},
                   {"ptx_sha256", VerificationCache::sha256Hex(
                                      fields->getString("ptx").value_or(""))}});
  contents["candidates"] = std::move(candidates);
  return contents;
}

void VerificationCache::storeResults(
    llvm::StringRef runner, llvm::StringRef resultsJson,
    const std::map<std::string, std::string> &bundles) {
  if (!writes())
    return;
  llvm::Expected<Value> parsed = llvm::json::parse(resultsJson);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  Object *results = parsed->getAsObject();
  const Array *records = results ? results->getArray("bundles") : nullptr;
  if (!records)
    return;
  std::optional<VerificationDevice> runnerReached =
      deviceFrom(results->get("device"));
  // Every GPU the call ran on, the results' first.
  std::vector<VerificationDevice> reached;
  auto note = [&](const std::optional<VerificationDevice> &device) {
    if (device && llvm::none_of(reached, [&](const VerificationDevice &seen) {
          return seen.name == device->name &&
                 seen.driverVersion == device->driverVersion;
        }))
      reached.push_back(*device);
  };
  note(runnerReached);
  for (const Value &value : *records) {
    const Object *record = value.getAsObject();
    if (!record)
      continue;
    // A bundle that did not run to its end (a lost node, the reference
    // faulting) is asked again next time.
    if (!record->getString("error").value_or("").empty())
      continue;
    auto bundle = bundles.find(record->getString("bundle").value_or("").str());
    if (bundle == bundles.end())
      continue;
    const Object *placement = record->getObject("placement");
    std::optional<VerificationDevice> device =
        placement ? deviceFrom(placement->get("device")) : std::nullopt;
    if (!device)
      device = runnerReached;
    if (!device)
      continue;
    note(device);
    Object single;
    for (const auto &[field, member] : *results)
      if (field != "bundles" && field != "device")
        single[field] = member;
    single["device"] = device->record;
    single["bundles"] = Array{Value(Object(*record))};
    Object entry = bundleContents(bundle->second);
    entry["material"] = bundleMaterial(bundle->second, *device);
    entry["results"] = std::move(single);
    writeEntry("exec", keyOf(bundleMaterial(bundle->second, *device)),
               kBundleFormat, std::move(entry));
  }
  if (reached.empty())
    return;
  Array deviceRecords;
  for (const VerificationDevice &device : reached)
    deviceRecords.push_back(device.record);
  Value material = runnerMaterial(runner);
  std::string key = keyOf(material);
  writeEntry("runners", key, kRunnerFormat,
             Object{{"material", std::move(material)},
                    {"devices", std::move(deviceRecords)}});
  std::lock_guard<std::mutex> lock(mutex);
  devices[runner.str()] = std::move(reached);
}
