//===- llmptx-kernels.cpp - The LLM path on kernels described in JSON -----===//
//
//   llmptx-kernels SET.json --llm-lower="<options of llm-lower>" -o OUT.json
//
// Runs the stages of `--llm-lower` (prompts, provider and cache, lint, ABI,
// ptxas, repairs, verification by execution, optimization rounds, the
// selection policy) on kernels a front end outside MLIR's GPU dialect
// describes (lib/Target/KernelSet.h; llmptx-iree writes them). The options
// are parsed by the llm-lower pipeline's own option parser and turned into
// settings by `llmgen-attach-target`, so they mean exactly what they mean
// there. OUT.json holds the settings and one report record per kernel, with
// the selected PTX module under "ptx" when an LLM kernel is selected.
// Exit status: 0 done, 1 a kernel fell back under strict or OUT could not be
// written, 2 bad usage or input.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Target/KernelSet.h"
#include "../../lib/Target/KernelStages.h"
#include "../../lib/Target/RunReport.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"
#include "llmptx/LLM/Secrets.h"
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
Expected<TargetSettings> settingsFrom(StringRef options, StringRef name) {
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
  return TargetSettings::resolve(target);
}

void remark(const Twine &message) {
  WithColor::remark(errs(), "llmptx-kernels")
      << llm::redactSecrets(message.str()) << "\n";
}

/// The record of a kernel that never reached the stages.
json::Object referenceRecord(const KernelDescription &kernel, StringRef setName,
                             StringRef reason) {
  json::Object record = referenceKernelRecord(kernel.name, setName, reason);
  record["selected"] = kernel.referenceKind;
  return record;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmptx-kernels: the LLM path of llm-lower on kernels described in "
      "JSON\n");

  std::string text;
  if (auto problem = untrusted::readRegularFile(setPath, text))
    return usageError(setPath + ": cannot read: " + *problem);
  Expected<KernelSet> set = parseKernelSet(text, setPath);
  if (!set)
    return usageError(toString(set.takeError()));
  Expected<TargetSettings> settings = settingsFrom(lowerOptions, set->name);
  if (!settings)
    return usageError(toString(settings.takeError()));

  json::Array records;
  bool fellBack = false;
  std::string unavailable;
  if (settings->provider.empty())
    unavailable = "no provider configured (set provider= or LLMPTX_PROVIDER)";
  std::unique_ptr<KernelStages> stages;
  if (unavailable.empty() && !set->kernels.empty()) {
    stages = std::make_unique<KernelStages>(*settings, set->name,
                                            std::move(set->kernels),
                                            /*toolkitPath=*/"", remark);
    if (Error error = stages->connectProvider())
      unavailable = toString(std::move(error));
  }
  if (!unavailable.empty()) {
    remark("using the reference: " + unavailable);
    const std::vector<KernelDescription> &kernels =
        stages ? stages->kernels() : set->kernels;
    for (const KernelDescription &kernel : kernels)
      records.push_back(referenceRecord(kernel, set->name, unavailable));
    fellBack = !kernels.empty();
  } else if (stages) {
    stages->prepareChecks();
    stages->run();
    for (const KernelWork &item : stages->work()) {
      const std::string &name = item.description->name;
      json::Object record = kernelRecord(item, set->name);
      if (item.choice.selected) {
        record["ptx"] = item.choice.selected->ptx;
        remark("@" + name + ": selected the LLM kernel: " + item.choice.reason);
      } else {
        remark("@" + name + ": using the reference: " + item.choice.reason);
      }
      fellBack |= item.choice.fellBack;
      records.push_back(std::move(record));
    }
  }

  if (!settings->report.empty())
    if (std::string error = appendToReport(
            settings->report, settings->reportRecord(),
            json::Object{{"name", set->name}}, json::Array(records));
        !error.empty())
      WithColor::warning(errs(), "llmptx-kernels")
          << "report: " << error << "\n";
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
  if (fellBack && settings->strict) {
    WithColor::error(errs(), "llmptx-kernels")
        << "strict: a kernel falls back to the reference\n";
    return ExitFailure;
  }
  return 0;
}
