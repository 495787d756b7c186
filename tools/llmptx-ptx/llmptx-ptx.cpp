//===- llmptx-ptx.cpp - Lint, compile-check, ABI-check and fix PTX -*- C++
//-*-===//
//
// The command-line face of the PTX toolkit:
//   llmptx-ptx lint  [--chip sm_XX] [--json] [--no-warnings] FILE...
//   llmptx-ptx check [--chip sm_XX] [--cuda-path DIR] [--backend B] [--json]
//                    FILE...
//   llmptx-ptx abi   [--json] CONTRACT.json FILE
//   llmptx-ptx abi   --signature CONTRACT.json
//   llmptx-ptx fix   [--chip sm_XX] [-o OUT | -i] [--json] FILE
//   llmptx-ptx fragments [--fragments DIR] [--bundle BUNDLE.json]
//                    [--chip sm_XX] [--json] FILE (PTX, or CUDA: FILE.cu)
// Exit status: 0 clean, 1 errors found (or nothing could be fixed), 2 bad
// usage or unreadable input.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/AbiContract.h"
#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/PTX/CudaSource.h"
#include "llmptx/PTX/Fragment.h"
#include "llmptx/PTX/Lint.h"
#include "llmptx/PTX/MechanicalFix.h"
#include "llmptx/PTX/Parser.h"
#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llmptx::ptx;
using llvm::StringRef;

namespace {

constexpr const char *Usage = R"(usage:
  llmptx-ptx lint  [--chip sm_XX] [--json] [--no-warnings] FILE...
  llmptx-ptx check [--chip sm_XX] [--cuda-path DIR] [--backend auto|nvjitlink|ptxas]
                   [--json] [--no-warnings] FILE...
  llmptx-ptx abi   [--json] CONTRACT.json FILE
  llmptx-ptx abi   --signature CONTRACT.json
  llmptx-ptx fix   [--chip sm_XX] [-o OUT | -i] [--json] FILE
  llmptx-ptx fragments [--fragments DIR] [--bundle BUNDLE.json] [--chip sm_XX]
                   [--json] FILE
  llmptx-ptx cuda  [--chip sm_XX] [--cuda-path DIR] [-o OUT] FILE

lint   parse and lint PTX; prints FILE:LINE:COL: error|warning|note: message
check  lint, then compile with nvJitLink (or ptxas) and print the resource report
abi    check a kernel entry against an ABI contract (JSON, see docs/ptx-toolkit.md)
fix    apply unambiguous mechanical fixes; writes the PTX to -o (default stdout),
       lists the fixes on stderr; -i rewrites FILE in place
fragments  find the proven fragments (fragments/, or DIR) FILE runs and check
       their chip, PTX ISA and, with the kernel's verification bundle, the
       facts they require (alignment, block size, whole warps); a FILE.cu is
       CUDA C++: its CUDA fragments are their lines verbatim, the chip is
       --chip's
cuda   compile a CUDA C++ candidate with NVRTC, as the pipeline does
       (allowed includes, -arch=compute_XX, limits), then lint the PTX;
       writes the PTX to -o (default stdout), diagnostics to stderr
FILE may be '-' for standard input. Exit status: 0 clean, 1 errors, 2 usage.
)";

struct Options {
  std::string command;
  std::string chip;
  std::string cudaPath;
  std::string output;
  std::string backend = "auto";
  std::string fragmentsDir;
  std::string bundle;
  bool json = false;
  bool warnings = true;
  bool inPlace = false;
  bool signature = false;
  std::vector<std::string> files;
};

int usageError(const llvm::Twine &message) {
  llvm::errs() << "llmptx-ptx: " << message << "\n" << Usage;
  return 2;
}

/// Parses argv; returns -1 on success, else the exit status to return.
int parseArgs(int argc, char **argv, Options &opts) {
  if (argc < 2)
    return usageError("missing subcommand");
  opts.command = argv[1];
  if (opts.command == "--help" || opts.command == "-h" ||
      opts.command == "help") {
    llvm::outs() << Usage;
    return 0;
  }
  if (opts.command != "lint" && opts.command != "check" &&
      opts.command != "abi" && opts.command != "fix" &&
      opts.command != "fragments" && opts.command != "cuda")
    return usageError("unknown subcommand '" + opts.command + "'");
  for (int i = 2; i < argc; ++i) {
    StringRef arg = argv[i];
    auto value = [&](std::string &out) -> bool {
      if (arg.contains('=')) {
        out = arg.split('=').second.str();
        return true;
      }
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    StringRef name = arg.split('=').first;
    if (name == "--chip") {
      if (!value(opts.chip))
        return usageError("--chip needs a value such as sm_90");
    } else if (name == "--cuda-path") {
      if (!value(opts.cudaPath))
        return usageError("--cuda-path needs a directory");
    } else if (name == "--backend") {
      if (!value(opts.backend) ||
          (opts.backend != "auto" && opts.backend != "nvjitlink" &&
           opts.backend != "ptxas"))
        return usageError("--backend must be auto, nvjitlink or ptxas");
    } else if (name == "--fragments") {
      if (!value(opts.fragmentsDir))
        return usageError("--fragments needs a directory");
    } else if (name == "--bundle") {
      if (!value(opts.bundle))
        return usageError("--bundle needs a verification bundle");
    } else if (arg == "-o") {
      if (!value(opts.output))
        return usageError("-o needs a file name");
    } else if (arg == "-i") {
      opts.inPlace = true;
    } else if (arg == "--json") {
      opts.json = true;
    } else if (arg == "--no-warnings") {
      opts.warnings = false;
    } else if (arg == "--signature") {
      opts.signature = true;
    } else if (arg == "--help" || arg == "-h") {
      llvm::outs() << Usage;
      return 0;
    } else if (arg.starts_with("-") && arg != "-") {
      return usageError("unknown option '" + arg + "'");
    } else {
      opts.files.push_back(arg.str());
    }
  }
  if (opts.files.empty())
    return usageError("no input file");
  return -1;
}

/// Reads FILE, or stdin for "-": a file only when it is a regular one of
/// bounded size, so a FIFO or /dev/zero is an error, not a hang.
bool readFile(const std::string &path, std::string &out) {
  if (path != "-") {
    if (auto problem = llmptx::untrusted::readRegularFile(path, out)) {
      llvm::errs() << "llmptx-ptx: cannot read '" << path << "': " << *problem
                   << "\n";
      return false;
    }
    return true;
  }
  auto buffer = llvm::MemoryBuffer::getSTDIN();
  if (!buffer) {
    llvm::errs() << "llmptx-ptx: cannot read stdin: "
                 << buffer.getError().message() << "\n";
    return false;
  }
  out = (*buffer)->getBuffer().str();
  return true;
}

void printDiagnostics(const std::vector<Diagnostic> &diags,
                      StringRef fileName) {
  for (const Diagnostic &d : diags)
    llvm::outs() << formatDiagnostic(d, fileName);
}

void printJson(llvm::json::Value value) {
  llvm::outs() << llvm::formatv("{0:2}", value) << "\n";
}

std::string resourceLine(const ResourceReport &r) {
  return "entry '" + r.entry + "': " + std::to_string(r.registers) +
         " registers, " + std::to_string(r.spillStores) +
         " bytes spill stores, " + std::to_string(r.spillLoads) +
         " bytes spill loads, " + std::to_string(r.sharedBytes) +
         " bytes shared, " + std::to_string(r.localBytes) + " bytes stack, " +
         std::to_string(r.constantBytes) + " bytes constant, " +
         std::to_string(r.barriers) + " barriers";
}

LintOptions lintOptions(const Options &opts) {
  LintOptions lint;
  lint.chip = opts.chip;
  lint.warnings = opts.warnings;
  return lint;
}

int runLint(const Options &opts) {
  bool anyError = false;
  llvm::json::Array files;
  for (const std::string &file : opts.files) {
    std::string text;
    if (!readFile(file, text))
      return 2;
    std::vector<Diagnostic> diags = lintPtx(text, lintOptions(opts));
    anyError |= hasErrors(diags);
    if (opts.json) {
      files.push_back(llvm::json::Object{
          {"file", file},
          {"errors", countSeverity(diags, Severity::Error)},
          {"warnings", countSeverity(diags, Severity::Warning)},
          {"diagnostics", toJson(diags)}});
      continue;
    }
    printDiagnostics(diags, file);
  }
  if (opts.json)
    printJson(llvm::json::Object{{"files", std::move(files)}});
  return anyError ? 1 : 0;
}

int runCheck(const Options &opts) {
  llvm::Expected<CudaToolkit> toolkit = findCudaToolkit(opts.cudaPath);
  if (!toolkit) {
    llvm::errs() << "llmptx-ptx: " << llvm::toString(toolkit.takeError())
                 << "\n";
    return 2;
  }
  CompileOptions compileOpts;
  compileOpts.backend = opts.backend == "ptxas" ? CompileBackend::Ptxas
                        : opts.backend == "nvjitlink"
                            ? CompileBackend::NvJitLink
                            : CompileBackend::Auto;
  bool anyError = false;
  llvm::json::Array files;
  for (const std::string &file : opts.files) {
    std::string text;
    if (!readFile(file, text))
      return 2;
    ParseResult parsed = parsePtx(text);
    std::string chip =
        opts.chip.empty() ? parsed.module.chip().str() : opts.chip;
    std::vector<Diagnostic> lint = lintPtx(text, lintOptions(opts));
    CompileResult compiled;
    if (chip.empty()) {
      compiled.diagnostics.push_back(makeDiagnostic(
          Severity::Error, {}, "compile-tool",
          "no chip: the file has no .target sm_XX and --chip was not given"));
    } else {
      compiled = compilePtx(text, chip, *toolkit, compileOpts);
    }
    anyError |= hasErrors(lint) || !compiled.ok;
    if (opts.json) {
      llvm::json::Array resources;
      for (const ResourceReport &r : compiled.resources)
        resources.push_back(toJson(r));
      files.push_back(llvm::json::Object{
          {"file", file},
          {"chip", chip},
          {"errors", countSeverity(lint, Severity::Error)},
          {"warnings", countSeverity(lint, Severity::Warning)},
          {"diagnostics", toJson(lint)},
          {"compile",
           llvm::json::Object{{"tool", compiled.tool},
                              {"ok", compiled.ok},
                              {"cubinBytes", compiled.cubin.size()},
                              {"diagnostics", toJson(compiled.diagnostics)},
                              {"resources", std::move(resources)}}}});
      continue;
    }
    printDiagnostics(lint, file);
    printDiagnostics(compiled.diagnostics, file);
    llvm::outs() << file << ": compile with "
                 << (compiled.tool.empty() ? "(none)" : compiled.tool)
                 << " for " << chip << ": " << (compiled.ok ? "ok" : "failed")
                 << "\n";
    for (const ResourceReport &r : compiled.resources)
      llvm::outs() << file << ": " << resourceLine(r) << "\n";
  }
  if (opts.json)
    printJson(llvm::json::Object{{"files", std::move(files)}});
  return anyError ? 1 : 0;
}

int runAbi(const Options &opts) {
  std::string contractText;
  if (!readFile(opts.files[0], contractText))
    return 2;
  llvm::Expected<AbiContract> contract = AbiContract::fromJson(contractText);
  if (!contract) {
    llvm::errs() << opts.files[0]
                 << ": error: " << llvm::toString(contract.takeError()) << "\n";
    return 2;
  }
  if (opts.signature) {
    llvm::outs() << contract->ptxSignature() << "\n";
    return 0;
  }
  if (opts.files.size() != 2)
    return usageError("abi takes CONTRACT.json and one PTX file");
  std::string text;
  if (!readFile(opts.files[1], text))
    return 2;
  std::vector<Diagnostic> diags = checkAbi(text, *contract);
  if (opts.json)
    printJson(
        llvm::json::Object{{"file", opts.files[1]},
                           {"contract", opts.files[0]},
                           {"entry", contract->entryName},
                           {"errors", countSeverity(diags, Severity::Error)},
                           {"diagnostics", toJson(diags)}});
  else
    printDiagnostics(diags, opts.files[1]);
  return hasErrors(diags) ? 1 : 0;
}

int runFix(const Options &opts) {
  if (opts.files.size() != 1)
    return usageError("fix takes exactly one PTX file");
  if (opts.inPlace && !opts.output.empty())
    return usageError("-i and -o exclude each other");
  const std::string &file = opts.files[0];
  if (opts.inPlace && file == "-")
    return usageError("-i needs a file, not standard input");
  std::string text;
  if (!readFile(file, text))
    return 2;
  LintOptions lint = lintOptions(opts);
  std::vector<Diagnostic> before = lintPtx(text, lint);
  std::optional<FixResult> fixed = applyMechanicalFixes(text, lint);
  std::string outputPath = opts.inPlace ? file : opts.output;
  if (opts.json) {
    llvm::json::Array fixes;
    if (fixed)
      for (const std::string &f : fixed->fixesApplied)
        fixes.push_back(f);
    llvm::json::Object result{{"file", file},
                              {"fixed", fixed.has_value()},
                              {"fixes", std::move(fixes)},
                              {"diagnosticsBefore", toJson(before)}};
    if (fixed && outputPath.empty())
      result["ptx"] = fixed->ptx;
    printJson(std::move(result));
  }
  if (!fixed) {
    if (!opts.json) {
      if (!hasErrors(before)) {
        llvm::errs() << file << ": no errors; nothing to fix\n";
      } else {
        llvm::errs() << file << ": no unambiguous mechanical fix for:\n";
        for (const Diagnostic &d : before)
          if (d.severity == Severity::Error)
            llvm::errs() << formatDiagnostic(d, file);
      }
    }
    return hasErrors(before) ? 1 : 0;
  }
  if (!opts.json)
    for (const std::string &f : fixed->fixesApplied)
      llvm::errs() << file << ": fix applied: " << f << "\n";
  if (outputPath.empty()) {
    if (!opts.json)
      llvm::outs() << fixed->ptx;
    return 0;
  }
  // A new file renamed into place: when the write fails (a full disk) the
  // input of `fix -i` is left as it was.
  if (auto problem =
          llmptx::untrusted::writeFileAtomically(outputPath, fixed->ptx)) {
    llvm::errs() << "llmptx-ptx: cannot write '" << outputPath
                 << "': " << *problem << "\n";
    return 2;
  }
  return 0;
}

/// The facts of a verification bundle that fragment requirements speak of:
/// the threads per block (when the block is numbers) of the launch its
/// first candidate runs with (the candidate's own launch block, else the
/// bundle's) and the smallest alignment the runner gives its buffers.
llvm::Expected<KernelLaunchFacts> bundleFacts(const std::string &path) {
  std::string text;
  if (!readFile(path, text))
    return llvm::createStringError("cannot read the bundle");
  llmptx::runtime::ValueOrError<llmptx::runtime::VerificationBundle> bundle =
      llmptx::runtime::parseBundleJson(text);
  if (!bundle)
    return llvm::createStringError(bundle.error());
  KernelLaunchFacts facts;
  uint64_t threads = 1;
  bool numbers = true;
  const llmptx::runtime::LaunchSpec &launch =
      !bundle->candidates.empty() && bundle->candidates.front().launch
          ? *bundle->candidates.front().launch
          : bundle->launch;
  for (const std::string &extent : launch.block) {
    uint64_t value = 0;
    numbers &= !StringRef(extent).getAsInteger(10, value) && value > 0;
    threads *= value;
  }
  if (numbers)
    facts.blockThreads = threads;
  for (size_t index = 0; index < bundle->buffers.size(); ++index) {
    uint64_t alignment = bundle->bufferAlignment(index);
    facts.bufferAlignment =
        std::min(facts.bufferAlignment.value_or(alignment), alignment);
  }
  return facts;
}

int runFragments(const Options &opts) {
  if (opts.files.size() != 1)
    return usageError("fragments takes exactly one PTX or CUDA file");
  std::string directory = opts.fragmentsDir.empty()
                              ? defaultFragmentsDirectory()
                              : opts.fragmentsDir;
  llvm::Expected<std::vector<Fragment>> fragments = loadFragments(directory);
  if (!fragments) {
    llvm::errs() << "llmptx-ptx: " << llvm::toString(fragments.takeError())
                 << "\n";
    return 2;
  }
  std::optional<KernelLaunchFacts> facts;
  if (!opts.bundle.empty()) {
    llvm::Expected<KernelLaunchFacts> read = bundleFacts(opts.bundle);
    if (!read) {
      llvm::errs() << opts.bundle
                   << ": error: " << llvm::toString(read.takeError()) << "\n";
      return 2;
    }
    facts = *read;
  }
  const std::string &file = opts.files[0];
  std::string text;
  if (!readFile(file, text))
    return 2;
  std::vector<Diagnostic> diags, uses;
  if (llvm::sys::path::extension(file) == ".cu") {
    // CUDA C++: no PTX to parse, and the chip is the caller's to say.
    uses = checkCudaFragmentUses(text, *fragments, opts.chip,
                                 facts ? &*facts : nullptr);
  } else {
    ParseResult parsed = parsePtx(text);
    diags = parsed.diagnostics;
    uses =
        checkFragmentUses(parsed.module, *fragments, facts ? &*facts : nullptr);
  }
  diags.insert(diags.end(), uses.begin(), uses.end());
  if (opts.json)
    printJson(llvm::json::Object{
        {"file", file},
        {"uses", llvm::count_if(uses,
                                [](const Diagnostic &d) {
                                  return d.code == "fragment-use";
                                })},
        {"errors", countSeverity(diags, Severity::Error)},
        {"diagnostics", toJson(diags)}});
  else
    printDiagnostics(diags, file);
  return hasErrors(diags) ? 1 : 0;
}

int runCuda(const Options &opts) {
  if (opts.files.size() != 1)
    return usageError("cuda takes one FILE");
  llvm::Expected<CudaToolkit> toolkit = findCudaToolkit(opts.cudaPath);
  if (!toolkit) {
    llvm::errs() << "llmptx-ptx: " << llvm::toString(toolkit.takeError())
                 << "\n";
    return 2;
  }
  std::string source;
  if (!readFile(opts.files[0], source))
    return 2;
  CudaCompileOptions options;
  if (!opts.chip.empty())
    options.chip = opts.chip;
  CudaCompileResult compiled = compileCuda(source, *toolkit, options);
  for (const Diagnostic &d : compiled.diagnostics)
    llvm::errs() << formatDiagnostic(d, opts.files[0]);
  if (!compiled.ok)
    return 1;
  llvm::errs() << opts.files[0] << ": " << compiled.compiler << " "
               << llvm::join(compiled.arguments, " ") << ": ok\n";
  std::vector<Diagnostic> lint = lintPtx(compiled.ptx, lintOptions(opts));
  printDiagnostics(lint, "nvrtc.ptx");
  if (opts.output.empty() || opts.output == "-") {
    llvm::outs() << compiled.ptx;
  } else if (auto problem = llmptx::untrusted::writeFileAtomically(
                 opts.output, compiled.ptx)) {
    llvm::errs() << "llmptx-ptx: cannot write " << opts.output << ": "
                 << *problem << "\n";
    return 2;
  }
  return hasErrors(lint) ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  Options opts;
  int status = parseArgs(argc, argv, opts);
  if (status >= 0)
    return status;
  if (opts.command == "lint")
    return runLint(opts);
  if (opts.command == "check")
    return runCheck(opts);
  if (opts.command == "abi")
    return runAbi(opts);
  if (opts.command == "fragments")
    return runFragments(opts);
  if (opts.command == "cuda")
    return runCuda(opts);
  return runFix(opts);
}
