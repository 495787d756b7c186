//===- llmptx-kernels.cpp - The LLM path on kernels described in JSON -----===//
//
//   llmptx-kernels SET.json --llm-lower="<options of llm-lower>" -o OUT.json
//
// Runs the pipeline's driver, as `--llm-lower` does (prompts, provider and
// cache, lint, ABI, ptxas, repairs, verification by execution, optimization
// rounds, the selection policy), on kernels a front end outside MLIR's GPU
// dialect describes (llmptx/Pipeline/KernelSet.h; llmptx-iree writes them). The
// options are parsed by the llm-lower pipeline's own option parser and turned
// into settings by `llmgen-attach-target`, so they mean exactly what they mean
// there. OUT.json holds the settings and one report record per kernel, with
// the selected PTX module under "ptx" when an LLM kernel is selected.
// Exit status: 0 done, 1 a kernel fell back under strict or OUT could not be
// written, 2 bad usage or input.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"
#include "llmptx/LLM/Secrets.h"
#include "llmptx/Pipeline/Driver.h"
#include "llmptx/Pipeline/KernelSet.h"
#include "llmptx/Support/FileIO.h"
#include "llmptx/Target/TargetSettings.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace llmptx;

namespace {

cl::opt<std::string> setPath(cl::Positional, cl::desc("<kernel set JSON>"),
                             cl::Required);
cl::opt<std::string>
    lowerOptions("llm-lower",
                 cl::desc("The options of llm-lower: \"provider=... "
                          "model=... verify=exec ...\""),
                 cl::init(""));
cl::opt<std::string> outputPath("o", cl::desc("Write the decisions here"),
                                cl::value_desc("file"), cl::Required);

constexpr int ExitFailure = 1;
constexpr int ExitUsage = 2;

int usageError(const Twine &message) {
  WithColor::error(errs(), "llmptx-kernels")
      << llm::redactSecrets(message.str()) << "\n";
  return ExitUsage;
}

/// The settings `options` ask for: llmgen-attach-target builds the
/// #llmgen.target of a stand-in gpu.module from them, and the settings are
/// resolved from that attribute (the environment filling what is unset), as
/// when --llm-lower serializes a module.
Expected<PipelineSettings> settingsFrom(StringRef options, StringRef name) {
  std::string problems;
  raw_string_ostream errors(problems);
  auto parsed = std::make_unique<llmgen::LLMLowerOptions>();
  if (mlir::failed(parsed->parseFromString(options, errors)))
    return createStringError("--llm-lower: " + problems);

  mlir::MLIRContext context;
  context.loadDialect<mlir::gpu::GPUDialect, llmgen::LLMGenDialect>();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::OpBuilder builder(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  auto gpuModule =
      mlir::gpu::GPUModuleOp::create(builder, builder.getUnknownLoc(), name);

  llmgen::LLMGenAttachTargetOptions attach;
#define LLMGEN_OPTION(Name, ...) attach.Name = parsed->Name;
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  attach.alternate = false;
  mlir::PassManager manager(&context);
  manager.addPass(llmgen::createLLMGenAttachTarget(attach));
  if (mlir::failed(manager.run(*module)))
    return createStringError("--llm-lower: " + diagnostics);
  auto target = cast<llmgen::TargetAttr>(gpuModule.getTargetsAttr()[0]);
  return pipelineSettingsOf(target);
}

/// The driver's messages on stderr, API keys redacted.
DriverHooks diagnostics() {
  auto sink = [](raw_ostream &(*kind)(raw_ostream &, StringRef, bool)) {
    return [kind](const Twine &message) {
      kind(errs(), "llmptx-kernels", false)
          << llm::redactSecrets(message.str()) << "\n";
    };
  };
  return DriverHooks{sink(WithColor::remark), sink(WithColor::warning),
                     sink(WithColor::error)};
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmptx-kernels: the LLM path of llm-lower on kernels described in "
      "JSON\n");

  // Nothing a run reads is written over by it.
  if (untrusted::isSameFile(setPath, outputPath))
    return usageError("-o " + outputPath + " is the kernel set itself; " +
                      "name another file");
  std::string text;
  if (auto problem = untrusted::readRegularFile(setPath, text))
    return usageError(setPath + ": cannot read: " + *problem);
  Expected<KernelSet> set = parseKernelSet(text, setPath);
  if (!set)
    return usageError(toString(set.takeError()));
  Expected<PipelineSettings> settings = settingsFrom(lowerOptions, set->name);
  if (!settings)
    return usageError(toString(settings.takeError()));
  if (untrusted::isSameFile(setPath, settings->report))
    return usageError("report=" + settings->report +
                      " is the kernel set itself; name another file");

  PipelineDriver driver(*settings, set->name, std::move(set->kernels),
                        diagnostics());
  driver.runStages();
  bool accepted = driver.settle();
  json::Array records = driver.kernelRecords(/*withPtx=*/true);
  driver.writeReport(records);
  json::Object output{{"name", set->name},
                      {"settings", settings->reportRecord()},
                      {"kernels", std::move(records)}};
  std::string json;
  raw_string_ostream os(json);
  os << formatv("{0:2}", json::Value(std::move(output))) << "\n";
  if (llm::containsSecret(json))
    return usageError(outputPath + " not written: it would contain an API "
                                   "key value");
  if (auto problem = untrusted::writeFileAtomically(outputPath, json)) {
    WithColor::error(errs(), "llmptx-kernels")
        << outputPath << ": cannot write: " << *problem << "\n";
    return ExitFailure;
  }
  return accepted ? 0 : ExitFailure;
}
