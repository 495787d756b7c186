//===- CandidateSearch.cpp - Ask, validate and repair LLM kernels -*- C++ -*-=//
//
// Every failure of an answer becomes diagnostics the model sees in the next
// round; only provider errors end a sample early, since repeating the same
// request cannot fix them.
//
//===----------------------------------------------------------------------===//

#include "CandidateSearch.h"

#include "llmptx/Pipeline/LaunchCheck.h"

#include "llmptx/LLM/PtxExtraction.h"
#include "llmptx/LLM/Secrets.h"
#include "llmptx/PTX/AbiContract.h"
#include "llmptx/PTX/Lint.h"
#include "llmptx/PTX/MechanicalFix.h"
#include "llmptx/PTX/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llmptx;

/// The file name diagnostics quote; the repair prompt shows the same name.
static constexpr llvm::StringLiteral kCandidateFile = "candidate.ptx";

static std::vector<std::string>
formatErrors(const std::vector<ptx::Diagnostic> &diagnostics) {
  std::vector<std::string> lines;
  for (const ptx::Diagnostic &diag : diagnostics)
    if (diag.severity == ptx::Severity::Error)
      lines.push_back(
          llvm::StringRef(ptx::formatDiagnostic(diag, kCandidateFile))
              .rtrim()
              .str());
  return lines;
}

Validation llmptx::validateCandidate(std::string &ptxText,
                                     const ptx::AbiContract &abi,
                                     const SearchSettings &settings,
                                     Candidate &candidate) {
  if (settings.level == CheckLevel::None)
    return {AttemptStatus::Extracted, {}};

  ptx::LintOptions lintOptions;
  lintOptions.chip = settings.chip;
  lintOptions.warnings = false;
  std::vector<ptx::Diagnostic> lint = ptx::lintPtx(ptxText, lintOptions);
  if (ptx::hasErrors(lint)) {
    // Unambiguous mistakes are fixed here, and recorded, rather than
    // spending a model round on them.
    if (std::optional<ptx::FixResult> fixed =
            ptx::applyMechanicalFixes(ptxText, lintOptions)) {
      ptxText = fixed->ptx;
      candidate.fixes = fixed->fixesApplied;
      lint = ptx::lintPtx(ptxText, lintOptions);
    }
  }
  if (ptx::hasErrors(lint))
    return {AttemptStatus::LintError, formatErrors(lint)};

  std::vector<ptx::Diagnostic> abiDiagnostics = ptx::checkAbi(ptxText, abi);
  if (ptx::hasErrors(abiDiagnostics))
    return {AttemptStatus::AbiError, formatErrors(abiDiagnostics)};

  if (settings.level == CheckLevel::Lint || !settings.toolkit) {
    candidate.level = CheckLevel::Lint;
    return {AttemptStatus::LintOk, {}};
  }

  ptx::CompileResult compiled = compileChecked(ptxText, settings);
  candidate.compiler = compiled.tool;
  if (!compiled.ok) {
    std::vector<std::string> lines = formatErrors(compiled.diagnostics);
    if (lines.empty())
      lines.push_back(llvm::formatv("{0}: error: {1} failed: {2}",
                                    kCandidateFile, compiled.tool, compiled.log)
                          .str());
    return {AttemptStatus::CompileError, std::move(lines)};
  }
  candidate.resources = compiled.resources;
  candidate.level = CheckLevel::Compile;
  return {AttemptStatus::Compiled, {}};
}

/// Problems of the entry's .reqntid/.maxntid with the block it will be
/// launched with (the driver would refuse the launch).
static std::vector<std::string>
checkThreadDirectives(llvm::StringRef ptxText, llvm::StringRef entry,
                      const std::array<int64_t, 3> &block) {
  std::vector<std::string> problems;
  ptx::ParseResult parsed = ptx::parsePtx(ptxText);
  const ptx::Function *function = parsed.module.findFunction(entry);
  if (!function)
    return problems;
  int64_t threads = block[0] * block[1] * block[2];
  for (const ptx::FunctionDirective &directive : function->directives) {
    std::array<int64_t, 3> values{1, 1, 1};
    for (auto [i, value] : llvm::enumerate(directive.values))
      if (i < 3)
        values[i] = static_cast<int64_t>(value);
    std::string where = llvm::formatv("{0}:{1}:{2}: error: ", kCandidateFile,
                                      directive.loc.line, directive.loc.column)
                            .str();
    std::string written = llvm::join(
        llvm::map_range(directive.values,
                        [](uint64_t v) { return std::to_string(v); }),
        ", ");
    std::string launched =
        llvm::formatv("({0}, {1}, {2})", block[0], block[1], block[2]).str();
    if (directive.name == ".reqntid" && values != block)
      problems.push_back(where + ".reqntid " + written +
                         " differs from the block the kernel is launched "
                         "with " +
                         launched);
    if (directive.name == ".maxntid" &&
        values[0] * values[1] * values[2] < threads)
      problems.push_back(where + ".maxntid " + written +
                         " allows fewer threads than the block the kernel "
                         "is launched with " +
                         launched);
  }
  return problems;
}

/// The ABI a candidate is held to: the reference's, then one 128-byte,
/// 64-byte-aligned parameter per tensor map its launch block asks for (a
/// block that does not parse is refused later, by adoptLaunch).
static ptx::AbiContract
contractWithTensorMaps(const KernelDescription &kernel,
                       const std::optional<std::string> &launchBlock) {
  ptx::AbiContract contract = kernel.abi;
  if (!launchBlock || !kernel.launch.allowed)
    return contract;
  llvm::Expected<LaunchConfig> launch =
      parseLaunchBlock(*launchBlock, kernel.launch.original);
  if (!launch) {
    llvm::consumeError(launch.takeError());
    return contract;
  }
  for (const TensorMapRequest &map : launch->tensorMaps) {
    ptx::AbiParam param;
    param.ptxType = ".b8";
    param.sizeBytes = runtime::kTensorMapBytes;
    param.alignBytes = runtime::kTensorMapParamAlign;
    param.role = ptx::AbiRole::TensorMap;
    param.argIndex = map.arg;
    contract.params.push_back(param);
  }
  return contract;
}

/// Every block the kernel is known to be launched with when its launch is
/// fixed: its known_block_size, the harness's block and the host's constant
/// launch (a kernel set's fixed launch is both), each once.
static std::vector<std::array<int64_t, 3>>
fixedBlocks(const KernelDescription &kernel) {
  std::vector<std::array<int64_t, 3>> blocks;
  auto add = [&](const std::array<int64_t, 3> &block) {
    if (block[0] > 0 && block[1] > 0 && block[2] > 0 &&
        !llvm::is_contained(blocks, block))
      blocks.push_back(block);
  };
  add(kernel.blockSize);
  if (kernel.harness)
    add(kernel.harness->block);
  if (kernel.hostLaunch)
    add(kernel.hostLaunch->block);
  return blocks;
}

/// Takes the launch configuration an answer chose, when the kernel's launch
/// is free and the configuration is valid; otherwise the diagnostics say
/// why.
static std::vector<std::string> adoptLaunch(llvm::StringRef text,
                                            const KernelDescription &kernel,
                                            llvm::StringRef chip,
                                            Candidate &candidate) {
  const LaunchFreedom &freedom = kernel.launch;
  std::vector<std::string> problems;
  if (!freedom.allowed) {
    problems.push_back("launch: error: the launch of this kernel is fixed (" +
                       freedom.reason +
                       "); remove the launch block and write the kernel for "
                       "the launch given");
  } else if (llvm::Expected<LaunchConfig> launch =
                 parseLaunchBlock(text, freedom.original)) {
    for (const std::string &problem :
         checkProposedLaunch(*launch, kernel, chip))
      problems.push_back("launch: error: " + problem);
    if (problems.empty() && *launch != freedom.original)
      candidate.launch = *launch;
  } else {
    problems.push_back("launch: error: " + llvm::toString(launch.takeError()));
  }
  return problems;
}

/// The source file NVRTC's diagnostics quote; the repair prompt names it.
static constexpr llvm::StringLiteral kCudaFile = "candidate.cu";

/// NVRTC's PTX of a CUDA C++ answer, or (when it does not compile: an
/// include outside the allowed set, a compile error, NVRTC missing, killed
/// by its limits) the diagnostics at the source's lines.
static std::optional<Validation>
compileCudaAnswer(llvm::StringRef source, const SearchSettings &settings,
                  std::string &ptxText, Candidate &candidate) {
  candidate.language = llm::SourceLanguage::CUDA;
  candidate.cudaSource = source.str();
  ptx::CudaCompileResult compiled = ptx::compileCuda(
      source, settings.toolkit ? *settings.toolkit : ptx::CudaToolkit(),
      settings.cuda);
  candidate.cudaCompiler = compiled.compiler;
  for (const std::string &argument : compiled.arguments)
    candidate.cudaCompiler += " " + argument;
  if (compiled.ok) {
    ptxText = std::move(compiled.ptx);
    return std::nullopt;
  }
  Validation failed{AttemptStatus::CompileError, {}};
  for (const ptx::Diagnostic &diag : compiled.diagnostics)
    if (diag.severity == ptx::Severity::Error)
      failed.diagnostics.push_back(
          llvm::StringRef(ptx::formatDiagnostic(diag, kCudaFile))
              .rtrim()
              .str());
  return failed;
}

/// The checks of one answer: extraction (and NVRTC for CUDA C++), lint,
/// ABI, compile, then its launch (a block of its own, and thread directives
/// against the block it will be launched with, caught here before any GPU
/// run).
static Validation checkAnswer(const KernelDescription &kernel,
                              const llm::ExtractedAnswer &extracted,
                              llm::SourceLanguage language,
                              const SearchSettings &settings,
                              std::string &ptxText, Candidate &candidate) {
  bool cuda = language == llm::SourceLanguage::CUDA;
  if (!extracted.found)
    return {AttemptStatus::NoPtx,
            {llvm::formatv("{0}: error: the answer holds no {1} ({2}); answer "
                           "with one fenced ```{3} block holding the whole {4}",
                           cuda ? kCudaFile : kCandidateFile,
                           cuda ? "CUDA kernel" : "PTX", extracted.note,
                           cuda ? "cuda" : "ptx",
                           cuda ? "translation unit" : "module")
                 .str()}};
  if (!cuda)
    ptxText = extracted.code;
  else if (std::optional<Validation> failed =
               compileCudaAnswer(extracted.code, settings, ptxText, candidate))
    return *failed;
  Validation validation = validateCandidate(
      ptxText, contractWithTensorMaps(kernel, extracted.launch), settings,
      candidate);
  if (!validation.diagnostics.empty())
    return validation;
  std::vector<std::string> problems;
  if (extracted.launch)
    problems = adoptLaunch(*extracted.launch, kernel, settings.chip, candidate);
  if (problems.empty() && kernel.launch.allowed)
    problems =
        checkThreadDirectives(ptxText, kernel.name,
                              candidate.launch ? candidate.launch->block
                                               : kernel.launch.original.block);
  else if (problems.empty())
    for (const std::array<int64_t, 3> &block : fixedBlocks(kernel))
      for (std::string &problem :
           checkThreadDirectives(ptxText, kernel.name, block))
        problems.push_back(std::move(problem));
  if (!problems.empty())
    return {AttemptStatus::LaunchError, std::move(problems)};
  return validation;
}

/// Sends `prompt` to the model as sample `sample`'s round `round`; the
/// attempt records the call, the completion is the answer.
static std::pair<Attempt, llm::Completion>
askModel(const KernelDescription &kernel, const llm::Prompt &prompt,
         unsigned round, unsigned sample, const SampleOutcome &outcome,
         llm::Provider &provider, const SearchSettings &settings) {
  llm::CompletionRequest request;
  request.messages = prompt.messages;
  request.sampling = settings.sampling;
  request.model = settings.model;
  request.sampleIndex = sample;
  request.templateVersion = prompt.templateVersion;
  request.label = kernel.name;
  request.optimizationRound = outcome.optimizationRound;
  llm::Completion completion = provider.complete(request);

  Attempt attempt;
  attempt.optimizationRound = outcome.optimizationRound;
  attempt.sample = sample;
  attempt.round = round;
  attempt.promptHash = prompt.hash();
  attempt.language = prompt.language;
  for (const llm::ChatMessage &message : prompt.messages)
    attempt.promptBytes += message.content.size();
  attempt.model = !completion.model.empty() ? completion.model
                  : !settings.model.empty() ? settings.model
                                            : provider.kind().str();
  attempt.promptTokens = completion.promptTokens;
  attempt.completionTokens = completion.completionTokens;
  attempt.latencyMs = completion.latencyMs;
  attempt.cacheHit = completion.cacheHit;
  for (const std::string &warning : completion.warnings)
    attempt.warnings.push_back(llm::redactSecrets(warning));
  return {std::move(attempt), std::move(completion)};
}

/// "@vadd sample 1 round 0: compiled" on the progress line, when asked for.
static void reportProgress(const SearchSettings &settings,
                           const KernelDescription &kernel,
                           const Attempt &attempt, llvm::StringRef what) {
  if (!settings.progress)
    return;
  std::string round =
      attempt.optimizationRound
          ? llvm::formatv("optimization round {0} ", attempt.optimizationRound)
                .str()
          : std::string();
  settings.progress(llvm::formatv("@{0} {1}sample {2} round {3}: {4}",
                                  kernel.name, round, attempt.sample,
                                  attempt.round, what)
                        .str());
}

/// Asks, validates and repairs from `prompt` at `firstRound` on, until a
/// candidate passes or the rounds run out.
static void runRounds(const KernelDescription &kernel, llm::Prompt prompt,
                      unsigned firstRound, unsigned sample,
                      llm::Provider &provider, const SearchSettings &settings,
                      SampleOutcome &outcome) {
  for (unsigned round = firstRound; round <= settings.repairs; ++round) {
    auto [attempt, completion] =
        askModel(kernel, prompt, round, sample, outcome, provider, settings);
    outcome.nextRound = round + 1;
    if (!completion.ok) {
      attempt.status = AttemptStatus::ProviderError;
      attempt.note = llm::redactSecrets(completion.error);
      reportProgress(settings, kernel, attempt,
                     "model call failed: " + attempt.note);
      outcome.attempts.push_back(std::move(attempt));
      outcome.providerFailed = true;
      return;
    }

    llm::ExtractedAnswer extracted =
        prompt.language == llm::SourceLanguage::CUDA
            ? llm::extractCuda(completion.text)
            : llm::extractPtx(completion.text);
    attempt.note = extracted.note;
    Candidate candidate;
    std::string ptxText;
    Validation validation = checkAnswer(kernel, extracted, prompt.language,
                                        settings, ptxText, candidate);
    attempt.status = validation.status;
    attempt.fixes = candidate.fixes;
    attempt.diagnostics = validation.diagnostics;
    reportProgress(settings, kernel, attempt,
                   validation.diagnostics.empty()
                       ? attemptStatusName(attempt.status).str()
                       : llvm::formatv("{0} ({1} error(s))",
                                       attemptStatusName(attempt.status),
                                       validation.diagnostics.size())
                             .str());
    outcome.attempts.push_back(attempt);
    outcome.lastPrompt = prompt;
    outcome.lastAnswer = completion.text;

    if (validation.diagnostics.empty()) {
      candidate.optimizationRound = outcome.optimizationRound;
      candidate.sample = sample;
      candidate.round = round;
      candidate.ptx = std::move(ptxText);
      candidate.model = attempt.model;
      candidate.promptHash = attempt.promptHash;
      outcome.candidate = std::move(candidate);
      return;
    }
    prompt = llm::renderRepairPrompt(prompt, completion.text,
                                     validation.diagnostics);
  }
}

llm::SourceLanguage llmptx::sampleLanguage(const SearchSettings &settings,
                                           unsigned sample) {
  switch (settings.language) {
  case Language::PTX:
    return llm::SourceLanguage::PTX;
  case Language::CUDA:
    return llm::SourceLanguage::CUDA;
  case Language::Auto:
    return sample % 2 ? llm::SourceLanguage::CUDA : llm::SourceLanguage::PTX;
  }
  return llm::SourceLanguage::PTX;
}

SampleOutcome llmptx::searchSample(const KernelDescription &kernel,
                                   const llm::KernelSpec &spec, unsigned sample,
                                   llm::Provider &provider,
                                   const SearchSettings &settings) {
  SampleOutcome outcome;
  llm::SourceLanguage language = sampleLanguage(settings, sample);
  llm::Prompt prompt =
      settings.optimize
          ? llm::renderOptimizePrompt(spec, /*measurements=*/{}, language)
          : llm::renderTranslatePrompt(spec, language);
  runRounds(kernel, std::move(prompt), 0, sample, provider, settings, outcome);
  return outcome;
}

SampleOutcome llmptx::improveSample(const KernelDescription &kernel,
                                    llm::Prompt prompt,
                                    unsigned optimizationRound, unsigned sample,
                                    llm::Provider &provider,
                                    const SearchSettings &settings) {
  SampleOutcome outcome;
  outcome.optimizationRound = optimizationRound;
  runRounds(kernel, std::move(prompt), 0, sample, provider, settings, outcome);
  return outcome;
}

void llmptx::continueSample(const KernelDescription &kernel,
                            SampleOutcome &outcome, llvm::StringRef feedback,
                            unsigned sample, llm::Provider &provider,
                            const SearchSettings &settings) {
  if (outcome.providerFailed || outcome.nextRound > settings.repairs ||
      outcome.lastPrompt.messages.empty())
    return;
  llm::Prompt prompt = llm::renderMismatchPrompt(outcome.lastPrompt,
                                                 outcome.lastAnswer, feedback);
  if (outcome.candidate) {
    outcome.rejected.push_back(std::move(*outcome.candidate));
    outcome.candidate.reset();
  }
  runRounds(kernel, std::move(prompt), outcome.nextRound, sample, provider,
            settings, outcome);
}

ptx::CompileResult llmptx::compileChecked(llvm::StringRef ptxText,
                                          const SearchSettings &settings) {
  if (settings.cache)
    return settings.cache->compile(ptxText, settings.chip, *settings.toolkit);
  return ptx::compilePtx(ptxText, settings.chip, *settings.toolkit);
}

std::string llmptx::resourcesText(const std::vector<ptx::ResourceReport> &all,
                                  llvm::StringRef entry) {
  for (const ptx::ResourceReport &report : all)
    if (report.entry == entry)
      return llvm::formatv("registers {0}, spill stores {1}, spill loads {2}, "
                           "shared {3} B, stack {4} B, constant {5} B, "
                           "barriers {6}",
                           report.registers, report.spillStores,
                           report.spillLoads, report.sharedBytes,
                           report.localBytes, report.constantBytes,
                           report.barriers)
          .str();
  return {};
}
