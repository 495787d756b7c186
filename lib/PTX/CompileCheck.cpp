//===- CompileCheck.cpp - Real PTX compile with ptxas/nvJitLink -*- C++ -*-===//
//
// nvJitLink is dlopen'ed (never linked), so the library builds and runs on
// machines without CUDA; its entry points are declared here with the
// signatures of nvJitLink.h (CUDA 12/13 keep the unversioned names as
// exported symbols). The PTX it assembles is untrusted (a model's answer),
// and nvJitLink has crashed and corrupted the heap on such input, so it runs
// in a forked child with a time and memory limit; ptxas runs as a
// subprocess with the same limits.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/Runtime/CudaToolkit.h"

#include "LimitedChild.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

using namespace llmptx::ptx;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Finding the toolkit
//===----------------------------------------------------------------------===//

static CudaToolkit
toCudaToolkit(const llmptx::runtime::CudaToolkitLocation &found) {
  CudaToolkit toolkit;
  toolkit.root = found.root;
  toolkit.ptxasPath = found.ptxas;
  toolkit.nvJitLinkPath = found.nvJitLink;
  toolkit.nvrtcPath = found.nvrtc;
  toolkit.includeFolders = found.includeFolders;
  return toolkit;
}

llvm::Expected<CudaToolkit>
llmptx::ptx::findCudaToolkit(StringRef cudaPathOption) {
  if (!cudaPathOption.empty()) {
    // An explicit choice never falls back silently to another toolkit.
    if (auto found =
            llmptx::runtime::probeCudaToolkitRoot(cudaPathOption.str()))
      return toCudaToolkit(*found);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no ptxas (bin/ptxas) or libnvJitLink (lib64/) under --cuda-path '" +
            cudaPathOption + "'");
  }
  if (auto found = llmptx::runtime::locateCudaToolkit())
    return toCudaToolkit(*found);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "no CUDA toolkit found: looked at --cuda-path, CUDA_HOME, CUDA_PATH, "
      "ptxas on PATH and /usr/local/cuda");
}

//===----------------------------------------------------------------------===//
// Parsing assembler output
//===----------------------------------------------------------------------===//

llvm::json::Value llmptx::ptx::toJson(const ResourceReport &r) {
  return llvm::json::Object{{"entry", r.entry},
                            {"registers", r.registers},
                            {"spillStores", r.spillStores},
                            {"spillLoads", r.spillLoads},
                            {"sharedBytes", r.sharedBytes},
                            {"localBytes", r.localBytes},
                            {"constantBytes", r.constantBytes},
                            {"barriers", r.barriers}};
}

/// Reads the number just before `unit` in `text` ("12 registers").
static bool numberBefore(StringRef text, StringRef unit, unsigned &out) {
  size_t pos = text.find(unit);
  if (pos == StringRef::npos)
    return false;
  StringRef head = text.take_front(pos).rtrim();
  size_t start = head.find_last_not_of("0123456789");
  StringRef digits =
      start == StringRef::npos ? head : head.drop_front(start + 1);
  return !digits.getAsInteger(10, out);
}

static StringRef quoted(StringRef text) {
  size_t open = text.find('\'');
  if (open == StringRef::npos)
    return {};
  size_t close = text.find('\'', open + 1);
  if (close == StringRef::npos)
    return {};
  return text.slice(open + 1, close);
}

void llmptx::ptx::parseAssemblerLog(StringRef log,
                                    std::vector<Diagnostic> &diags,
                                    std::vector<ResourceReport> &resources) {
  std::map<std::string, unsigned> reportIndex;
  auto reportFor = [&](StringRef name) -> ResourceReport & {
    auto [it, inserted] = reportIndex.try_emplace(name.str(), resources.size());
    if (inserted) {
      resources.emplace_back();
      resources.back().entry = name.str();
    }
    return resources[it->second];
  };
  std::string current; // function of the latest "Compiling"/"properties"
  llvm::SmallVector<StringRef, 32> lines;
  log.split(lines, '\n', -1, false);
  for (StringRef raw : lines) {
    StringRef line = raw.trim();
    if (line.empty())
      continue;
    // "ptxas f.ptx, line 12; error   : message" (nvJitLink logs the same
    // messages, prefixed "ptxas application ptx input").
    size_t linePos = line.find(", line ");
    size_t semi =
        linePos == StringRef::npos ? StringRef::npos : line.find(';', linePos);
    StringRef severityAndMessage = line;
    SourceLocation loc;
    if (semi != StringRef::npos) {
      StringRef number = line.slice(linePos + 7, semi).trim();
      number.getAsInteger(10, loc.line);
      severityAndMessage = line.drop_front(semi + 1).trim();
    } else if (line.starts_with("ptxas ")) {
      severityAndMessage = line.drop_front(6).trim();
    }
    size_t colon = severityAndMessage.find(':');
    StringRef word = colon == StringRef::npos
                         ? StringRef()
                         : severityAndMessage.take_front(colon).trim();
    StringRef message = colon == StringRef::npos
                            ? StringRef()
                            : severityAndMessage.drop_front(colon + 1).trim();
    if (word == "error" || word == "fatal" || word == "warning") {
      if (message == "Ptx assembly aborted due to errors" && hasErrors(diags))
        continue;
      Diagnostic d = makeDiagnostic(
          word == "warning" ? Severity::Warning : Severity::Error, loc,
          word == "warning" ? "ptxas-warning" : "ptxas-error", message.str());
      diags.push_back(std::move(d));
      continue;
    }
    if (word == "info") {
      if (message.starts_with("Compiling entry function") ||
          message.starts_with("Function properties for")) {
        StringRef name = quoted(message);
        if (name.empty())
          name = message.rsplit(' ').second;
        current = name.str();
        reportFor(current);
        continue;
      }
      if (message.starts_with("Used ") && !current.empty()) {
        ResourceReport &r = reportFor(current);
        numberBefore(message, " registers", r.registers);
        numberBefore(message, " barriers", r.barriers);
        numberBefore(message, " bytes smem", r.sharedBytes);
        // Constant banks: "380 bytes cmem[0], 8 bytes cmem[2]".
        StringRef rest = message;
        unsigned total = 0;
        while (true) {
          size_t pos = rest.find(" bytes cmem[");
          if (pos == StringRef::npos)
            break;
          unsigned n = 0;
          numberBefore(rest, " bytes cmem[", n);
          total += n;
          rest = rest.drop_front(pos + 12);
        }
        r.constantBytes = total;
      }
      continue;
    }
    // "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
    if (line.contains("bytes stack frame") && !current.empty()) {
      ResourceReport &r = reportFor(current);
      numberBefore(line, " bytes stack frame", r.localBytes);
      numberBefore(line, " bytes spill stores", r.spillStores);
      numberBefore(line, " bytes spill loads", r.spillLoads);
    }
  }
}

//===----------------------------------------------------------------------===//
// nvJitLink
//===----------------------------------------------------------------------===//

namespace {
using NvHandle = void *;
using CreateFn = int (*)(NvHandle *, uint32_t, const char **);
using DestroyFn = int (*)(NvHandle *);
using AddDataFn = int (*)(NvHandle, int, const void *, size_t, const char *);
using CompleteFn = int (*)(NvHandle);
using SizeFn = int (*)(NvHandle, size_t *);
using BytesFn = int (*)(NvHandle, void *);
using LogFn = int (*)(NvHandle, char *);
constexpr int NvInputPtx = 2; // NVJITLINK_INPUT_PTX

struct NvJitLinkApi {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  AddDataFn addData = nullptr;
  CompleteFn complete = nullptr;
  SizeFn cubinSize = nullptr, errorLogSize = nullptr, infoLogSize = nullptr;
  BytesFn cubin = nullptr;
  LogFn errorLog = nullptr, infoLog = nullptr;

  bool load(const std::string &path, std::string &error) {
    llvm::sys::DynamicLibrary lib =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!lib.isValid())
      return false;
    auto get = [&](const char *name) { return lib.getAddressOfSymbol(name); };
    create = reinterpret_cast<CreateFn>(get("nvJitLinkCreate"));
    destroy = reinterpret_cast<DestroyFn>(get("nvJitLinkDestroy"));
    addData = reinterpret_cast<AddDataFn>(get("nvJitLinkAddData"));
    complete = reinterpret_cast<CompleteFn>(get("nvJitLinkComplete"));
    cubinSize = reinterpret_cast<SizeFn>(get("nvJitLinkGetLinkedCubinSize"));
    cubin = reinterpret_cast<BytesFn>(get("nvJitLinkGetLinkedCubin"));
    errorLogSize = reinterpret_cast<SizeFn>(get("nvJitLinkGetErrorLogSize"));
    errorLog = reinterpret_cast<LogFn>(get("nvJitLinkGetErrorLog"));
    infoLogSize = reinterpret_cast<SizeFn>(get("nvJitLinkGetInfoLogSize"));
    infoLog = reinterpret_cast<LogFn>(get("nvJitLinkGetInfoLog"));
    if (!create || !destroy || !addData || !complete || !cubinSize || !cubin ||
        !errorLogSize || !errorLog || !infoLogSize || !infoLog) {
      error = "'" + path + "' lacks the nvJitLink entry points";
      return false;
    }
    return true;
  }
};

std::string readLog(NvHandle handle, SizeFn sizeFn, LogFn logFn) {
  size_t size = 0;
  if (sizeFn(handle, &size) != 0 || size == 0)
    return {};
  std::string log(size, '\0');
  if (logFn(handle, log.data()) != 0)
    return {};
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  return log;
}

Diagnostic toolError(std::string message) {
  return makeDiagnostic(Severity::Error, {}, "compile-tool",
                        std::move(message));
}

/// What one nvJitLink run produced.
struct NvJitLinkOutput {
  int status = 0; ///< of nvJitLinkCreate/AddData/Complete, 0 = success
  bool created = true;
  std::string info, errors, cubin;
};

/// Runs nvJitLink in this process: only ever called in the child.
NvJitLinkOutput runNvJitLink(const NvJitLinkApi &api,
                             const std::vector<std::string> &args,
                             const std::string &ptx) {
  NvJitLinkOutput output;
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());
  NvHandle handle = nullptr;
  output.status = api.create(&handle, argv.size(), argv.data());
  if (output.status != 0) {
    output.created = false;
    return output;
  }
  // nvJitLink wants the PTX NUL-terminated.
  output.status =
      api.addData(handle, NvInputPtx, ptx.c_str(), ptx.size() + 1, "input.ptx");
  if (output.status == 0)
    output.status = api.complete(handle);
  output.info = readLog(handle, api.infoLogSize, api.infoLog);
  output.errors = readLog(handle, api.errorLogSize, api.errorLog);
  size_t size = 0;
  if (output.status == 0 && api.cubinSize(handle, &size) == 0 && size) {
    output.cubin.resize(size);
    if (api.cubin(handle, output.cubin.data()) != 0)
      output.cubin.clear();
  }
  api.destroy(&handle);
  return output;
}

/// The child's message: status, created, then the three logs/bytes.
std::string packOutput(const NvJitLinkOutput &output) {
  return packFields({std::to_string(output.status),
                     output.created ? "1" : "0", output.info, output.errors,
                     output.cubin});
}

bool unpackOutput(StringRef message, NvJitLinkOutput &output) {
  std::vector<std::string> fields;
  if (!unpackFields(message, 5, fields) ||
      StringRef(fields[0]).getAsInteger(10, output.status))
    return false;
  output.created = fields[1] == "1";
  output.info = std::move(fields[2]);
  output.errors = std::move(fields[3]);
  output.cubin = std::move(fields[4]);
  return true;
}

/// Runs nvJitLink in a limited child (LimitedChild.h). A crash, a deadlock
/// or a memory storm in nvJitLink ends the child, and becomes a
/// "compile-tool" diagnostic here.
void compileInChild(const NvJitLinkApi &api,
                    const std::vector<std::string> &args, StringRef ptx,
                    const CompileOptions &options, CompileResult &result,
                    NvJitLinkOutput &output) {
  std::string text = ptx.str();
  ChildRun run = runInLimitedChild(
      [&] { return packOutput(runNvJitLink(api, args, text)); },
      options.timeoutSeconds, options.memoryLimitMB);
  std::string failure = run.failure("nvJitLink", options.timeoutSeconds,
                                    options.memoryLimitMB);
  if (failure.empty() && !unpackOutput(run.message, output))
    failure = "nvJitLink's child process ended without a whole result";
  if (!failure.empty())
    result.diagnostics.push_back(toolError(std::move(failure)));
}

bool compileWithNvJitLink(StringRef ptx, StringRef chip,
                          const CudaToolkit &toolkit,
                          const CompileOptions &options,
                          CompileResult &result) {
  static std::mutex loadMutex;
  static std::map<std::string, std::pair<bool, NvJitLinkApi>> loaded;
  NvJitLinkApi api;
  std::string loadError;
  {
    std::lock_guard<std::mutex> lock(loadMutex);
    auto it = loaded.find(toolkit.nvJitLinkPath);
    if (it == loaded.end()) {
      NvJitLinkApi fresh;
      bool ok = fresh.load(toolkit.nvJitLinkPath, loadError);
      it = loaded.emplace(toolkit.nvJitLinkPath, std::make_pair(ok, fresh))
               .first;
    }
    if (!it->second.first) {
      result.log = loadError;
      return false;
    }
    api = it->second.second;
  }
  result.tool = "nvJitLink";
  std::vector<std::string> args = {"-arch=" + chip.str(),
                                   "-O" + std::to_string(options.optLevel),
                                   "-verbose"};
  for (const std::string &extra : options.extraArgs)
    args.push_back("-Xptxas=" + extra);
  NvJitLinkOutput output;
  compileInChild(api, args, ptx, options, result, output);
  if (hasErrors(result.diagnostics))
    return true;
  if (!output.created) {
    result.diagnostics.push_back(toolError("nvJitLinkCreate failed (code " +
                                           std::to_string(output.status) +
                                           ") for -arch=" + chip.str()));
    return true;
  }
  result.log = output.info + output.errors;
  parseAssemblerLog(output.errors, result.diagnostics, result.resources);
  std::vector<Diagnostic> infoDiags;
  parseAssemblerLog(output.info, infoDiags, result.resources);
  for (Diagnostic &d : infoDiags)
    if (d.severity == Severity::Warning)
      result.diagnostics.push_back(std::move(d));
  if (output.status == 0) {
    result.cubin = std::move(output.cubin);
    result.ok = !result.cubin.empty();
  } else if (!hasErrors(result.diagnostics)) {
    result.diagnostics.push_back(toolError(
        "nvJitLink failed (code " + std::to_string(output.status) + ")" +
        (output.errors.empty() ? std::string() : ": " + output.errors)));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// ptxas
//===----------------------------------------------------------------------===//

/// Temporary file removed on scope exit.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

void compileWithPtxas(StringRef ptx, StringRef chip, const CudaToolkit &toolkit,
                      const CompileOptions &options, CompileResult &result) {
  result.tool = "ptxas";
  if (toolkit.ptxasPath.empty()) {
    result.diagnostics.push_back(
        toolError("no ptxas in the CUDA toolkit that was found"));
    return;
  }
  TempFile input, output, log;
  if (llvm::sys::fs::createTemporaryFile("llmptx", "ptx", input.path) ||
      llvm::sys::fs::createTemporaryFile("llmptx", "cubin", output.path) ||
      llvm::sys::fs::createTemporaryFile("llmptx", "log", log.path)) {
    result.diagnostics.push_back(
        toolError("cannot create temporary files for ptxas"));
    return;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec) {
      result.diagnostics.push_back(
          toolError("cannot write " + std::string(input.path)));
      return;
    }
    os << ptx;
  }
  std::vector<std::string> args = {toolkit.ptxasPath,
                                   "-arch=" + chip.str(),
                                   "-O" + std::to_string(options.optLevel),
                                   "-v",
                                   "-o",
                                   std::string(output.path)};
  for (const std::string &extra : options.extraArgs)
    args.push_back(extra);
  args.push_back(std::string(input.path));
  std::vector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(log.path),
                                          StringRef(log.path)};
  std::string execError;
  bool failed = false;
  int rc = llvm::sys::ExecuteAndWait(
      toolkit.ptxasPath, argv, std::nullopt, redirects, options.timeoutSeconds,
      options.memoryLimitMB, &execError, &failed);
  if (auto buffer = llvm::MemoryBuffer::getFile(log.path))
    result.log = (*buffer)->getBuffer().str();
  if (failed || rc < 0) {
    result.diagnostics.push_back(
        toolError("ptxas did not run to completion: " +
                  (execError.empty() ? std::string("exit ") + std::to_string(rc)
                                     : execError)));
    return;
  }
  parseAssemblerLog(result.log, result.diagnostics, result.resources);
  if (rc == 0) {
    if (auto buffer = llvm::MemoryBuffer::getFile(output.path,
                                                  /*IsText=*/false))
      result.cubin = (*buffer)->getBuffer().str();
    result.ok = !result.cubin.empty();
  } else if (!hasErrors(result.diagnostics)) {
    result.diagnostics.push_back(toolError("ptxas exited with status " +
                                           std::to_string(rc) + ": " +
                                           StringRef(result.log).trim().str()));
  }
}

/// ptxas reports lines only; point at the line's first non-blank column so
/// every diagnostic has the FILE:LINE:COL form.
void addColumns(StringRef ptx, std::vector<Diagnostic> &diags) {
  llvm::SmallVector<StringRef, 0> lines;
  ptx.split(lines, '\n');
  for (Diagnostic &d : diags)
    if (d.loc.line && d.loc.line <= lines.size() && !d.loc.column) {
      size_t col = lines[d.loc.line - 1].find_first_not_of(" \t");
      d.loc.column = col == StringRef::npos ? 1 : col + 1;
    }
}

} // namespace

CompileResult llmptx::ptx::compilePtx(StringRef ptxText, StringRef chip,
                                      const CudaToolkit &toolkit,
                                      const CompileOptions &options) {
  CompileResult result;
  if (chip.empty()) {
    result.diagnostics.push_back(
        toolError("no chip given for the compile check (e.g. sm_90)"));
    return result;
  }
  // Auto takes ptxas when there is one: nvJitLink has crashed on answers
  // ptxas assembles (CUDA 13.0 on a wgmma.mma_async with constant
  // descriptors, and on a 100k-character .func name), and although it runs
  // in a child process here, ptxas is the assembler the driver's JIT
  // matches and reports on most plainly.
  bool tryNvJitLink =
      !toolkit.nvJitLinkPath.empty() &&
      (options.backend == CompileBackend::NvJitLink ||
       (options.backend == CompileBackend::Auto && toolkit.ptxasPath.empty()));
  if (tryNvJitLink &&
      compileWithNvJitLink(ptxText, chip, toolkit, options, result)) {
    addColumns(ptxText, result.diagnostics);
    sortDiagnostics(result.diagnostics);
    return result;
  }
  if (options.backend == CompileBackend::NvJitLink) {
    result.tool = "nvJitLink";
    result.diagnostics.push_back(toolError(
        toolkit.nvJitLinkPath.empty()
            ? std::string("no libnvJitLink in the CUDA toolkit that was found")
            : "cannot load " + toolkit.nvJitLinkPath + ": " + result.log));
    return result;
  }
  result = CompileResult();
  compileWithPtxas(ptxText, chip, toolkit, options, result);
  addColumns(ptxText, result.diagnostics);
  sortDiagnostics(result.diagnostics);
  return result;
}
