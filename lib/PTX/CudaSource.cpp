//===- CudaSource.cpp - CUDA C++ candidates compiled by NVRTC ---*- C++ -*-===//
//
// NVRTC is dlopen'ed (never linked), like nvJitLink, so the library builds
// and runs without it; its entry points are declared with nvrtc.h's
// signatures. The source is a model's answer: NVRTC runs in a limited child
// (LimitedChild.h), so a template that never finishes instantiating or an
// allocation storm ends the child with a diagnostic, not the compiler.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/CudaSource.h"

#include "LimitedChild.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"

#include <cstdlib>
#include <map>
#include <mutex>

using namespace llmptx::ptx;
using llvm::StringRef;

static constexpr StringRef kSourceName = "candidate.cu";

const std::vector<std::string> &llmptx::ptx::allowedCudaIncludes() {
  static const std::vector<std::string> allowed = {
      "cuda_fp16.h", "cuda_bf16.h", "mma.h", "cuda/barrier", "cuda/pipeline"};
  return allowed;
}

std::vector<Diagnostic> llmptx::ptx::checkCudaIncludes(StringRef source) {
  std::vector<Diagnostic> diags;
  llvm::SmallVector<StringRef> lines;
  source.split(lines, '\n');
  for (auto [index, line] : llvm::enumerate(lines)) {
    StringRef rest = line.ltrim();
    if (!rest.consume_front("#"))
      continue;
    rest = rest.ltrim();
    if (!rest.starts_with("include"))
      continue;
    size_t column = line.size() - line.ltrim().size() + 1;
    StringRef name = rest.drop_front(7).trim();
    bool bracketed = name.size() >= 2 &&
                     ((name.front() == '<' && name.back() == '>') ||
                      (name.front() == '"' && name.back() == '"'));
    StringRef header = bracketed ? name.drop_front().drop_back() : name;
    if (bracketed && llvm::is_contained(allowedCudaIncludes(), header.str()))
      continue;
    diags.push_back(makeDiagnostic(
        Severity::Error,
        SourceLocation{static_cast<unsigned>(index + 1),
                       static_cast<unsigned>(column)},
        "cuda-include",
        "'" + line.trim().str() + "' is not allowed: a candidate may include "
        "only " + llvm::join(allowedCudaIncludes(), ", "),
        "remove it and write what it gave you, or inline PTX with asm()"));
  }
  return diags;
}

std::vector<Diagnostic> llmptx::ptx::parseNvrtcLog(StringRef log) {
  std::vector<Diagnostic> diags;
  llvm::SmallVector<StringRef> lines;
  log.split(lines, '\n');
  std::string prefix = kSourceName.str() + "(";
  for (size_t index = 0; index < lines.size(); ++index) {
    StringRef line = lines[index].rtrim();
    if (!line.starts_with(prefix))
      continue;
    // candidate.cu(12): error: message
    StringRef rest = line.drop_front(prefix.size());
    unsigned lineNumber = 0;
    size_t close = rest.find("): ");
    if (close == StringRef::npos ||
        rest.take_front(close).getAsInteger(10, lineNumber))
      continue;
    rest = rest.drop_front(close + 3);
    auto [word, message] = rest.split(": ");
    // "error", "catastrophic error", "warning #3010-D", "remark".
    Severity severity = word.contains("error")        ? Severity::Error
                        : word.starts_with("warning") ? Severity::Warning
                                                      : Severity::Note;
    // The echoed source line (indented by two) and a caret below it.
    unsigned column = 1;
    if (index + 2 < lines.size()) {
      size_t caret = lines[index + 2].rtrim().find('^');
      if (caret != StringRef::npos &&
          lines[index + 2].trim() == "^" && caret >= 2)
        column = static_cast<unsigned>(caret - 2 + 1);
    }
    diags.push_back(makeDiagnostic(
        severity, SourceLocation{lineNumber, column},
        severity == Severity::Error ? "nvrtc-error" : "nvrtc-warning",
        message.trim().str()));
  }
  return diags;
}

namespace {

using Program = void *;
using VersionFn = int (*)(int *, int *);
using CreateFn = int (*)(Program *, const char *, const char *, int,
                         const char *const *, const char *const *);
using CompileFn = int (*)(Program, int, const char *const *);
using SizeFn = int (*)(Program, size_t *);
using TextFn = int (*)(Program, char *);
using DestroyFn = int (*)(Program *);

struct NvrtcApi {
  VersionFn version = nullptr;
  CreateFn create = nullptr;
  CompileFn compile = nullptr;
  SizeFn ptxSize = nullptr, logSize = nullptr;
  TextFn ptx = nullptr, log = nullptr;
  DestroyFn destroy = nullptr;
  std::string versionText;

  bool load(const std::string &path, std::string &error) {
    llvm::sys::DynamicLibrary lib =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!lib.isValid())
      return false;
    auto get = [&](const char *name) { return lib.getAddressOfSymbol(name); };
    version = reinterpret_cast<VersionFn>(get("nvrtcVersion"));
    create = reinterpret_cast<CreateFn>(get("nvrtcCreateProgram"));
    compile = reinterpret_cast<CompileFn>(get("nvrtcCompileProgram"));
    ptxSize = reinterpret_cast<SizeFn>(get("nvrtcGetPTXSize"));
    ptx = reinterpret_cast<TextFn>(get("nvrtcGetPTX"));
    logSize = reinterpret_cast<SizeFn>(get("nvrtcGetProgramLogSize"));
    log = reinterpret_cast<TextFn>(get("nvrtcGetProgramLog"));
    destroy = reinterpret_cast<DestroyFn>(get("nvrtcDestroyProgram"));
    if (!version || !create || !compile || !ptxSize || !ptx || !logSize ||
        !log || !destroy) {
      error = "'" + path + "' lacks the NVRTC entry points";
      return false;
    }
    int major = 0, minor = 0;
    version(&major, &minor);
    versionText = "NVRTC " + std::to_string(major) + "." +
                  std::to_string(minor);
    return true;
  }
};

/// The API of the library at `path`, loaded once per process.
bool loadNvrtc(const std::string &path, NvrtcApi &api, std::string &error) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, NvrtcApi>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(path);
  if (it == loaded.end()) {
    NvrtcApi fresh;
    std::string problem;
    if (!fresh.load(path, problem) && problem.empty())
      problem = "cannot load " + path;
    it = loaded.emplace(path, std::make_pair(problem, fresh)).first;
  }
  error = it->second.first;
  api = it->second.second;
  return error.empty();
}

/// A text NVRTC returns through a size and a copy.
std::string readText(Program program, SizeFn sizeFn, TextFn textFn) {
  size_t size = 0;
  if (sizeFn(program, &size) != 0 || size == 0)
    return {};
  std::string text(size, '\0');
  if (textFn(program, text.data()) != 0)
    return {};
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  return text;
}

/// Runs NVRTC in this process: only ever called in the child. The message:
/// the compile status, the log, the PTX.
std::string runNvrtc(const NvrtcApi &api, const std::string &source,
                     const std::vector<std::string> &arguments) {
  std::vector<const char *> argv;
  for (const std::string &argument : arguments)
    argv.push_back(argument.c_str());
  Program program = nullptr;
  int status = api.create(&program, source.c_str(), kSourceName.data(), 0,
                          nullptr, nullptr);
  if (status != 0)
    return packFields({std::to_string(status), "nvrtcCreateProgram failed",
                       ""});
  status = api.compile(program, static_cast<int>(argv.size()), argv.data());
  std::string log = readText(program, api.logSize, api.log);
  std::string ptx =
      status == 0 ? readText(program, api.ptxSize, api.ptx) : std::string();
  api.destroy(&program);
  return packFields({std::to_string(status), log, ptx});
}

Diagnostic toolError(std::string message) {
  return makeDiagnostic(Severity::Error, {}, "compile-tool",
                        std::move(message));
}

} // namespace

CudaCompileOptions CudaCompileOptions::fromEnvironment() {
  CudaCompileOptions options;
  auto positive = [](const char *variable, unsigned &value) {
    const char *text = std::getenv(variable);
    unsigned parsed = 0;
    if (text && !StringRef(text).getAsInteger(10, parsed) && parsed > 0)
      value = parsed;
  };
  positive("LLMPTX_NVRTC_TIMEOUT_S", options.timeoutSeconds);
  positive("LLMPTX_NVRTC_MEMORY_MB", options.memoryLimitMB);
  return options;
}

/// NVRTC's line info names the source by the absolute path it was compiled
/// in; the PTX keeps only the file name.
static std::string withPortableFileNames(StringRef ptx) {
  std::string out;
  out.reserve(ptx.size());
  llvm::SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (auto [index, line] : llvm::enumerate(lines)) {
    StringRef trimmed = line.trim();
    size_t quote = trimmed.find('"');
    if (trimmed.starts_with(".file") && quote != StringRef::npos &&
        trimmed.ends_with("/" + kSourceName.str() + "\""))
      out += (line.take_front(line.size() - line.ltrim().size()) +
              trimmed.take_front(quote) + "\"" + kSourceName + "\"")
                 .str();
    else
      out += line.str();
    if (index + 1 < lines.size())
      out += "\n";
  }
  return out;
}

std::vector<std::string>
llmptx::ptx::nvrtcArguments(const CudaCompileOptions &options,
                            const CudaToolkit &toolkit) {
  StringRef chip = options.chip;
  chip.consume_front("sm_");
  std::vector<std::string> arguments = {"-arch=compute_" + chip.str(),
                                        "-default-device", "-std=c++17",
                                        "-lineinfo"};
  if (options.fastMath)
    arguments.push_back("--use_fast_math");
  if (options.flushDenormals)
    arguments.push_back("-ftz=true");
  for (const std::string &folder : toolkit.includeFolders)
    arguments.push_back("-I" + folder);
  return arguments;
}

CudaCompileResult llmptx::ptx::compileCuda(StringRef source,
                                           const CudaToolkit &toolkit,
                                           const CudaCompileOptions &options) {
  CudaCompileResult result;
  result.arguments = nvrtcArguments(options, toolkit);
  result.diagnostics = checkCudaIncludes(source);
  if (!result.diagnostics.empty())
    return result;
  if (toolkit.nvrtcPath.empty()) {
    result.diagnostics.push_back(toolError(
        "no NVRTC (libnvrtc.so) in the CUDA toolkit" +
        (toolkit.root.empty() ? std::string()
                              : " at " + toolkit.root + " (lib64/)")));
    return result;
  }
  NvrtcApi api;
  std::string loadError;
  if (!loadNvrtc(toolkit.nvrtcPath, api, loadError)) {
    result.diagnostics.push_back(toolError(loadError));
    return result;
  }
  result.compiler = api.versionText;
  std::string text = source.str();
  ChildRun run = runInLimitedChild(
      [&] { return runNvrtc(api, text, result.arguments); },
      options.timeoutSeconds, options.memoryLimitMB);
  std::vector<std::string> fields;
  std::string failure =
      run.failure("NVRTC", options.timeoutSeconds, options.memoryLimitMB);
  int status = 0;
  if (failure.empty() && (!unpackFields(run.message, 3, fields) ||
                          StringRef(fields[0]).getAsInteger(10, status)))
    failure = "NVRTC's child process ended without a whole result";
  if (!failure.empty()) {
    result.diagnostics.push_back(toolError(std::move(failure)));
    return result;
  }
  result.log = std::move(fields[1]);
  result.diagnostics = parseNvrtcLog(result.log);
  if (status != 0) {
    if (!hasErrors(result.diagnostics))
      result.diagnostics.push_back(toolError(
          "NVRTC failed (code " + std::to_string(status) + ")" +
          (result.log.empty() ? std::string() : ": " + result.log)));
    return result;
  }
  if (fields[2].size() > options.maxPtxBytes) {
    result.diagnostics.push_back(toolError(
        "NVRTC produced " + std::to_string(fields[2].size()) +
        " bytes of PTX, more than the " + std::to_string(options.maxPtxBytes) +
        " accepted"));
    return result;
  }
  result.ptx = withPortableFileNames(fields[2]);
  result.ok = !result.ptx.empty();
  return result;
}
