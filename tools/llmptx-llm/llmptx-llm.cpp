//===- llmptx-llm.cpp - Drive the LLM layer from the command line ---------===//
//
// Subcommands:
//   complete      ask a provider (through the cache) for completions
//   render        print the prompt rendered from a kernel spec
//   extract       print the PTX module found in a completion
//   batch-export  write requests as OpenAI batch JSONL
//   batch-import  store a batch results JSONL in the cache
//   cache         ls | verify | put | path
// Every message passes through redactSecrets; exit status 0 is success, 1 a
// failed call or check, 2 a usage or configuration error.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/Batch.h"
#include "llmptx/LLM/Cache.h"
#include "llmptx/LLM/Prompt.h"
#include "llmptx/LLM/Provider.h"
#include "llmptx/LLM/PtxExtraction.h"
#include "llmptx/LLM/Secrets.h"
#include "llmptx/LLM/Serialization.h"
#include "llmptx/Support/FileIO.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace llmptx::llm;

namespace {

cl::SubCommand completeCommand("complete",
                               "Ask the provider for completions (through "
                               "the cache) and print them");
cl::SubCommand renderCommand("render",
                             "Print the prompt rendered from a kernel spec");
cl::SubCommand extractCommand("extract",
                              "Print the PTX module found in a completion");
cl::SubCommand
    batchExportCommand("batch-export",
                       "Write requests as an OpenAI batch JSONL file");
cl::SubCommand batchImportCommand(
    "batch-import", "Store the answers of a batch results file in the cache");
cl::SubCommand cacheCommand("cache", "Inspect or fill the cache: ls, verify, "
                                     "put, path");

cl::OptionCategory providerCategory("Provider options");
cl::OptionCategory requestCategory("Request options");

// Provider.
cl::opt<std::string> providerKind("provider",
                                  cl::desc("openai|anthropic|exec|replay "
                                           "(default: $LLMPTX_PROVIDER)"),
                                  cl::sub(completeCommand),
                                  cl::cat(providerCategory));
cl::opt<std::string> model("model", cl::desc("Model (default: $LLMPTX_MODEL)"),
                           cl::sub(completeCommand),
                           cl::sub(batchExportCommand), cl::sub(cacheCommand),
                           cl::cat(providerCategory));
cl::opt<std::string> baseUrl("base-url",
                             cl::desc("Endpoint base URL (default: "
                                      "$LLMPTX_BASE_URL)"),
                             cl::sub(completeCommand),
                             cl::cat(providerCategory));
cl::opt<std::string> execCommand("exec-command",
                                 cl::desc("exec provider command (default: "
                                          "$LLMPTX_EXEC_COMMAND)"),
                                 cl::sub(completeCommand),
                                 cl::cat(providerCategory));
cl::opt<std::string> cacheModeOption("cache", cl::desc("readwrite|read|off"),
                                     cl::sub(completeCommand),
                                     cl::cat(providerCategory));
cl::opt<std::string> cacheDir("cache-dir",
                              cl::desc("Cache directory (default: "
                                       "$LLMPTX_CACHE_DIR, else the user "
                                       "cache directory)"),
                              cl::sub(completeCommand),
                              cl::sub(batchImportCommand),
                              cl::sub(cacheCommand), cl::cat(providerCategory));
cl::opt<double> timeoutS("timeout", cl::desc("Total timeout per attempt (s)"),
                         cl::sub(completeCommand), cl::cat(providerCategory));
cl::opt<double> connectTimeoutS("connect-timeout",
                                cl::desc("Connect timeout (s)"),
                                cl::sub(completeCommand),
                                cl::cat(providerCategory));
cl::opt<unsigned> retries("retries", cl::desc("Retries after the first try"),
                          cl::sub(completeCommand), cl::cat(providerCategory));
cl::opt<unsigned> retryBaseMs("retry-base-ms",
                              cl::desc("First backoff delay (ms)"),
                              cl::sub(completeCommand),
                              cl::cat(providerCategory));
cl::opt<unsigned> jobs("jobs", cl::desc("Requests in flight at once"),
                       cl::sub(completeCommand), cl::cat(providerCategory));
cl::opt<uint64_t> maxResponseBytes("max-response-bytes",
                                   cl::desc("Refuse larger replies"),
                                   cl::sub(completeCommand),
                                   cl::cat(providerCategory));
cl::opt<std::string> maxTokensField(
    "max-tokens-field",
    cl::desc("openai: name of the max tokens field (max_tokens or "
             "max_completion_tokens)"),
    cl::sub(completeCommand), cl::sub(batchExportCommand),
    cl::cat(providerCategory));
cl::opt<std::string> batchExportPath(
    "batch-export",
    cl::desc("replay: append every miss to this batch JSONL file"),
    cl::sub(completeCommand), cl::cat(providerCategory));
cl::opt<bool> verbose("v", cl::desc("Print retries and waits"),
                      cl::sub(completeCommand), cl::cat(providerCategory));

// Request.
cl::opt<std::string>
    messagesFile("messages",
                 cl::desc("JSON file: [{role, content}...] or {messages: ...}"),
                 cl::sub(completeCommand), cl::sub(batchExportCommand),
                 cl::sub(cacheCommand), cl::cat(requestCategory));
cl::opt<std::string> kernelSpecFile(
    "kernel-spec", cl::desc("JSON kernel spec to render a prompt from"),
    cl::sub(completeCommand), cl::sub(batchExportCommand),
    cl::sub(renderCommand), cl::sub(cacheCommand), cl::cat(requestCategory));
cl::opt<std::string> mode("mode",
                          cl::desc("translate|optimize (render also: "
                                   "repair|mismatch)"),
                          cl::init("translate"), cl::sub(completeCommand),
                          cl::sub(batchExportCommand), cl::sub(renderCommand),
                          cl::sub(cacheCommand), cl::cat(requestCategory));
cl::opt<std::string>
    measurementsFile("measurements", cl::desc("optimize: file with timings"),
                     cl::sub(completeCommand), cl::sub(batchExportCommand),
                     cl::sub(renderCommand), cl::sub(cacheCommand),
                     cl::cat(requestCategory));
cl::opt<std::string> requestsFile(
    "requests",
    cl::desc("complete/batch-export: JSONL of requests in the exec provider's "
             "form; batch-import: the exported batch file"),
    cl::sub(completeCommand), cl::sub(batchExportCommand),
    cl::sub(batchImportCommand), cl::cat(requestCategory));
cl::opt<double> temperature("temperature", cl::desc("Sampling temperature"),
                            cl::init(0.2), cl::sub(completeCommand),
                            cl::sub(batchExportCommand), cl::sub(cacheCommand),
                            cl::cat(requestCategory));
cl::opt<unsigned> maxTokens("max-tokens", cl::desc("Completion token limit"),
                            cl::init(16384), cl::sub(completeCommand),
                            cl::sub(batchExportCommand), cl::sub(cacheCommand),
                            cl::cat(requestCategory));
cl::opt<int64_t> seed("seed", cl::desc("Base seed; sample i uses seed + i"),
                      cl::sub(completeCommand), cl::sub(batchExportCommand),
                      cl::sub(cacheCommand), cl::cat(requestCategory));
cl::opt<unsigned> samples("samples", cl::desc("Samples per prompt"),
                          cl::init(1), cl::sub(completeCommand),
                          cl::sub(batchExportCommand),
                          cl::cat(requestCategory));
cl::opt<unsigned> sampleIndex("sample-index",
                              cl::desc("cache put: the sample index"),
                              cl::init(0), cl::sub(cacheCommand),
                              cl::cat(requestCategory));
cl::opt<std::string> templateVersion(
    "template-version",
    cl::desc("Template version of --messages (default 'manual')"),
    cl::sub(completeCommand), cl::sub(batchExportCommand),
    cl::sub(cacheCommand), cl::cat(requestCategory));
cl::opt<std::string> label("label", cl::desc("Label for logs and listings"),
                           cl::sub(completeCommand),
                           cl::sub(batchExportCommand), cl::sub(cacheCommand),
                           cl::cat(requestCategory));

// Output.
cl::opt<std::string>
    outputFile("o", cl::desc("Write the output here"), cl::value_desc("file"),
               cl::sub(completeCommand), cl::sub(batchExportCommand),
               cl::sub(renderCommand), cl::sub(extractCommand));
cl::opt<bool> jsonOutput("json",
                         cl::desc("Print completions as JSON lines with "
                                  "their metadata"),
                         cl::sub(completeCommand));
cl::opt<bool> extractOutput("extract-ptx",
                            cl::desc("Print the extracted PTX instead of the "
                                     "raw completion"),
                            cl::sub(completeCommand));
cl::opt<bool> appendOutput("append", cl::desc("Append to the batch file"),
                           cl::sub(batchExportCommand));

// render repair/mismatch.
cl::opt<std::string> answerFile("answer",
                                cl::desc("render repair|mismatch: the "
                                         "previous answer"),
                                cl::sub(renderCommand));
cl::opt<std::string> feedbackFile(
    "feedback",
    cl::desc("render repair: diagnostics, one per line; mismatch: the report"),
    cl::sub(renderCommand));

// extract / batch-import / cache.
cl::opt<std::string> extractInput(cl::Positional, cl::desc("<completion>"),
                                  cl::init("-"), cl::sub(extractCommand));
cl::opt<std::string> resultsFile("results",
                                 cl::desc("The provider's batch results JSONL"),
                                 cl::sub(batchImportCommand));
cl::opt<std::string> cacheAction(cl::Positional,
                                 cl::desc("<ls|verify|put|path>"),
                                 cl::sub(cacheCommand));
cl::opt<std::string> completionFile("completion",
                                    cl::desc("cache put: the completion text"),
                                    cl::sub(cacheCommand));
cl::opt<std::string>
    recordedProvider("recorded-provider",
                     cl::desc("cache put: provider kind recorded in the entry"),
                     cl::init("curated"), cl::sub(cacheCommand));

constexpr int ExitFailure = 1;
constexpr int ExitUsage = 2;

int usageError(const Twine &message) {
  WithColor::error(errs(), "llmptx-llm")
      << redactSecrets(message.str()) << "\n";
  return ExitUsage;
}

Expected<std::string> readText(StringRef path) {
  auto buffer = MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(
        buffer.getError(),
        path + ": cannot read: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

Error writeText(StringRef path, StringRef text) {
  if (containsSecret(text))
    return createStringError(path + " not written: it would contain an API "
                                    "key value");
  if (path.empty() || path == "-") {
    outs() << text;
    outs().flush();
    return Error::success();
  }
  if (auto problem = llmptx::untrusted::writeFileAtomically(path.str(), text))
    return createStringError(path + ": cannot write: " + *problem);
  return Error::success();
}

SamplingParams samplingFromOptions() {
  SamplingParams sampling;
  sampling.temperature = temperature;
  sampling.maxTokens = maxTokens;
  if (seed.getNumOccurrences())
    sampling.seed = seed;
  return sampling;
}

/// The prompt of --kernel-spec (translate or optimize).
Expected<Prompt> promptFromKernelSpec(KernelSpec &specOut) {
  auto text = readText(kernelSpecFile);
  if (!text)
    return text.takeError();
  auto spec = parseKernelSpecJson(*text, kernelSpecFile);
  if (!spec)
    return spec.takeError();
  specOut = *spec;
  if (mode == "translate")
    return renderTranslatePrompt(*spec);
  if (mode == "optimize") {
    std::string measurements;
    if (!measurementsFile.empty()) {
      auto read = readText(measurementsFile);
      if (!read)
        return read.takeError();
      measurements = std::move(*read);
    }
    return renderOptimizePrompt(*spec, measurements);
  }
  return createStringError("--mode must be translate or optimize here, not '" +
                           mode + "'");
}

/// Requests from --requests, --messages and --kernel-spec, in that order.
Expected<std::vector<CompletionRequest>> buildRequests() {
  std::vector<CompletionRequest> requests;
  if (!requestsFile.empty()) {
    auto text = readText(requestsFile);
    if (!text)
      return text.takeError();
    SmallVector<StringRef, 0> lines;
    StringRef(*text).split(lines, '\n');
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].trim().empty())
        continue;
      auto request = parseRequestJson(
          lines[i], formatv("{0}:{1}", requestsFile, i + 1).str());
      if (!request)
        return request.takeError();
      requests.push_back(std::move(*request));
    }
  }
  auto addSamples = [&](const std::vector<ChatMessage> &messages,
                        StringRef version, StringRef defaultLabel) {
    for (unsigned i = 0; i < samples; ++i) {
      CompletionRequest request;
      request.messages = messages;
      request.sampling = samplingFromOptions();
      request.model = model;
      request.sampleIndex = i;
      request.templateVersion = version.str();
      request.label = label.empty() ? defaultLabel.str() : label;
      requests.push_back(std::move(request));
    }
  };
  if (!messagesFile.empty()) {
    auto text = readText(messagesFile);
    if (!text)
      return text.takeError();
    auto messages = parseMessagesJson(*text, messagesFile);
    if (!messages)
      return messages.takeError();
    addSamples(*messages,
               templateVersion.empty() ? StringRef("manual")
                                       : StringRef(templateVersion),
               "");
  }
  if (!kernelSpecFile.empty()) {
    KernelSpec spec;
    auto prompt = promptFromKernelSpec(spec);
    if (!prompt)
      return prompt.takeError();
    addSamples(prompt->messages, prompt->templateVersion, spec.kernelName);
  }
  if (requests.empty())
    return createStringError("no request: give --messages, --kernel-spec or "
                             "--requests");
  return requests;
}

std::string describe(const CompletionRequest &request) {
  std::string text = request.label.empty() ? "" : request.label + " ";
  return text + "sample " + utostr(request.sampleIndex);
}

/// Serializes --verbose lines from the requests in flight.
std::mutex logMutex;

/// The provider settings: the environment's, overridden by the options
/// given on the command line.
Expected<ProviderConfig> providerConfigFromOptions() {
  ProviderConfig config = ProviderConfig::fromEnvironment();
  if (providerKind.getNumOccurrences())
    config.kind = providerKind;
  if (model.getNumOccurrences())
    config.model = model;
  if (baseUrl.getNumOccurrences())
    config.baseUrl = baseUrl;
  if (execCommand.getNumOccurrences())
    config.execCommand = execCommand;
  if (cacheDir.getNumOccurrences())
    config.cacheDir = cacheDir;
  if (cacheModeOption.getNumOccurrences()) {
    auto parsed = parseCacheMode(cacheModeOption);
    if (!parsed)
      return createStringError("--cache: " + toString(parsed.takeError()));
    config.cacheMode = *parsed;
  }
  if (timeoutS.getNumOccurrences())
    config.totalTimeoutS = timeoutS;
  if (connectTimeoutS.getNumOccurrences())
    config.connectTimeoutS = connectTimeoutS;
  if (retries.getNumOccurrences())
    config.maxRetries = retries;
  if (retryBaseMs.getNumOccurrences())
    config.retryBaseMs = retryBaseMs;
  if (jobs.getNumOccurrences())
    config.maxInFlight = jobs;
  if (maxResponseBytes.getNumOccurrences())
    config.maxResponseBytes = maxResponseBytes;
  if (maxTokensField.getNumOccurrences())
    config.maxTokensField = maxTokensField;
  if (batchExportPath.getNumOccurrences())
    config.batchExportPath = batchExportPath;
  if (verbose)
    config.log = [](StringRef line) {
      std::lock_guard<std::mutex> lock(logMutex);
      errs() << "llmptx-llm: " << line << "\n";
    };
  return config;
}

/// Every request's completion, at most `jobs` in flight at once.
std::vector<Completion>
completeAll(Provider &provider, const std::vector<CompletionRequest> &requests,
            unsigned jobs) {
  std::vector<Completion> completions(requests.size());
  DefaultThreadPool pool(hardware_concurrency(std::max(1u, jobs)));
  for (size_t i = 0; i < requests.size(); ++i)
    pool.async([&, i] { completions[i] = provider.complete(requests[i]); });
  pool.wait();
  return completions;
}

/// Tells on stderr how one request went (its warnings, then ok or the
/// error).
void reportCompletion(const CompletionRequest &request,
                      const Completion &completion) {
  for (const std::string &warning : completion.warnings)
    WithColor::warning(errs(), "llmptx-llm")
        << describe(request) << ": " << redactSecrets(warning) << "\n";
  if (!completion.ok) {
    WithColor::error(errs(), "llmptx-llm")
        << describe(request) << ": " << redactSecrets(completion.error) << "\n";
    return;
  }
  errs() << "llmptx-llm: " << describe(request) << ": ok, "
         << (completion.cacheHit
                 ? "cache hit (" + completion.provider + ")"
                 : formatv("{0}, {1} attempt(s)", completion.provider,
                           completion.attempts)
                       .str())
         << ", model " << completion.model << "\n";
}

/// What --output gets for one successful completion: its text, or the PTX
/// extracted from it with --extract (false when none was found). Several
/// completions are each headed by the request they answer.
bool appendCompletionText(const CompletionRequest &request,
                          const Completion &completion, bool several,
                          std::string &output) {
  if (several)
    output += "==> " + describe(request) + " <==\n";
  if (extractOutput) {
    ExtractedAnswer extracted = extractPtx(completion.text);
    errs() << "llmptx-llm: " << describe(request)
           << ": extract: " << extracted.note << "\n";
    output += extracted.code;
    return extracted.found;
  }
  output += completion.text;
  if (several && !StringRef(output).ends_with("\n"))
    output += "\n";
  return true;
}

int runComplete() {
  Expected<ProviderConfig> config = providerConfigFromOptions();
  if (!config)
    return usageError(toString(config.takeError()));
  auto requests = buildRequests();
  if (!requests)
    return usageError(toString(requests.takeError()));
  auto provider = createProvider(*config);
  if (!provider)
    return usageError(toString(provider.takeError()));

  std::vector<Completion> completions =
      completeAll(**provider, *requests, config->maxInFlight);
  std::string output;
  bool allOk = true;
  for (size_t i = 0; i < completions.size(); ++i) {
    const Completion &completion = completions[i];
    const CompletionRequest &request = (*requests)[i];
    reportCompletion(request, completion);
    allOk = allOk && completion.ok;
    if (jsonOutput)
      output += completionToJson(completion, request.sampleIndex) + "\n";
    else if (completion.ok &&
             !appendCompletionText(request, completion, completions.size() > 1,
                                   output))
      allOk = false;
  }
  if (Error error = writeText(outputFile, output))
    return usageError(toString(std::move(error)));
  return allOk ? 0 : ExitFailure;
}

int runRender() {
  if (kernelSpecFile.empty())
    return usageError("render needs --kernel-spec");
  std::string requested = mode;
  bool continues = requested == "repair" || requested == "mismatch";
  if (continues)
    mode = "translate";
  KernelSpec spec;
  auto prompt = promptFromKernelSpec(spec);
  if (!prompt)
    return usageError(toString(prompt.takeError()));
  Prompt rendered = *prompt;
  if (continues) {
    if (answerFile.empty() || feedbackFile.empty())
      return usageError("render --mode " + requested +
                        " needs --answer and --feedback");
    auto answer = readText(answerFile);
    if (!answer)
      return usageError(toString(answer.takeError()));
    auto feedback = readText(feedbackFile);
    if (!feedback)
      return usageError(toString(feedback.takeError()));
    if (requested == "repair") {
      SmallVector<StringRef, 8> lines;
      StringRef(*feedback).split(lines, '\n', -1, /*KeepEmpty=*/false);
      std::vector<std::string> diagnostics(lines.begin(), lines.end());
      rendered = renderRepairPrompt(*prompt, *answer, diagnostics);
    } else {
      rendered = renderMismatchPrompt(*prompt, *answer, *feedback);
    }
  }
  std::string text = "// template: " + rendered.templateVersion +
                     "\n// hash: " + rendered.hash() + "\n" +
                     messagesToJson(rendered.messages);
  if (Error error = writeText(outputFile, text))
    return usageError(toString(std::move(error)));
  return 0;
}

int runExtract() {
  auto text = readText(extractInput);
  if (!text)
    return usageError(toString(text.takeError()));
  ExtractedAnswer extracted = extractPtx(*text);
  if (!extracted.found) {
    WithColor::error(errs(), "llmptx-llm")
        << extractInput << ": no PTX module found: " << extracted.note << "\n";
    return ExitFailure;
  }
  WithColor::note(errs(), "llmptx-llm") << extracted.note << "\n";
  if (Error error = writeText(outputFile, extracted.code))
    return usageError(toString(std::move(error)));
  return 0;
}

std::string resolvedCacheDir() {
  if (!cacheDir.empty())
    return cacheDir;
  ProviderConfig config = ProviderConfig::fromEnvironment();
  return config.cacheDir.empty() ? defaultCacheDir() : config.cacheDir;
}

int runBatchExport() {
  if (outputFile.empty())
    return usageError("batch-export needs -o FILE");
  ProviderConfig config = ProviderConfig::fromEnvironment();
  std::string effectiveModel = model.empty() ? config.model : model;
  auto requests = buildRequests();
  if (!requests)
    return usageError(toString(requests.takeError()));
  for (CompletionRequest &request : *requests)
    if (request.model.empty())
      request.model = effectiveModel;
  if (!appendOutput)
    if (std::error_code ec = sys::fs::remove(outputFile))
      return usageError(outputFile + ": cannot replace: " + ec.message());
  if (Error error =
          appendBatchLines(outputFile, *requests,
                           maxTokensField.empty() ? StringRef("max_tokens")
                                                  : StringRef(maxTokensField)))
    return usageError(toString(std::move(error)));
  errs() << "llmptx-llm: wrote " << requests->size() << " request(s) to "
         << outputFile << "\n";
  return 0;
}

int runBatchImport() {
  if (requestsFile.empty() || resultsFile.empty())
    return usageError("batch-import needs --requests (the exported file) and "
                      "--results (the provider's output file)");
  std::string dir = resolvedCacheDir();
  auto result = importBatchResults(requestsFile, resultsFile, dir);
  if (!result)
    return usageError(toString(result.takeError()));
  for (const std::string &problem : result->errors)
    WithColor::error(errs(), "llmptx-llm") << problem << "\n";
  outs() << "imported " << result->imported << " result(s) into " << dir << "; "
         << result->errors.size() << " failed\n";
  return result->errors.empty() ? 0 : ExitFailure;
}

int runCache() {
  std::string dir = resolvedCacheDir();
  CompletionCache cache(dir);
  if (cacheAction == "path") {
    outs() << dir << "\n";
    return 0;
  }
  if (cacheAction == "ls" || cacheAction == "verify") {
    CompletionCache::Scan scan = cache.scan();
    if (!scan.problem.empty()) {
      WithColor::error(errs(), "llmptx-llm") << scan.problem << "\n";
      return ExitFailure;
    }
    if (cacheAction == "ls")
      for (const CacheEntry &entry : scan.entries)
        outs() << formatv("{0} {1,-9} {2,-20} s{3} {4,-28} {5,-16} {6} "
                          "{7:f1}ms {8}+{9}tok\n",
                          StringRef(entry.key).take_front(16), entry.provider,
                          entry.request.model, entry.request.sampleIndex,
                          entry.request.templateVersion,
                          entry.request.label.empty() ? "-"
                                                      : entry.request.label,
                          entry.created, entry.latencyMs, entry.promptTokens,
                          entry.completionTokens);
    for (const auto &[path, problem] : scan.corrupt)
      WithColor::error(errs(), "llmptx-llm") << path << ": " << problem << "\n";
    if (cacheAction == "verify")
      outs() << scan.entries.size() << " entries ok, " << scan.corrupt.size()
             << " corrupt in " << dir << "\n";
    return scan.corrupt.empty() ? 0 : ExitFailure;
  }
  if (cacheAction == "put") {
    if (model.empty())
      return usageError("cache put needs --model (e.g. --model curated)");
    if (completionFile.empty())
      return usageError("cache put needs --completion FILE");
    if (messagesFile.empty() == kernelSpecFile.empty())
      return usageError("cache put needs exactly one of --messages and "
                        "--kernel-spec");
    auto completion = readText(completionFile);
    if (!completion)
      return usageError(toString(completion.takeError()));
    CacheEntry entry;
    entry.request.model = model;
    entry.request.sampling = samplingFromOptions();
    entry.request.sampleIndex = sampleIndex;
    entry.request.label = label;
    if (!messagesFile.empty()) {
      auto text = readText(messagesFile);
      if (!text)
        return usageError(toString(text.takeError()));
      auto messages = parseMessagesJson(*text, messagesFile);
      if (!messages)
        return usageError(toString(messages.takeError()));
      entry.request.messages = std::move(*messages);
      entry.request.templateVersion = templateVersion.empty()
                                          ? std::string("manual")
                                          : std::string(templateVersion);
    } else {
      KernelSpec spec;
      auto prompt = promptFromKernelSpec(spec);
      if (!prompt)
        return usageError(toString(prompt.takeError()));
      entry.request.messages = prompt->messages;
      entry.request.templateVersion = prompt->templateVersion;
      if (entry.request.label.empty())
        entry.request.label = spec.kernelName;
    }
    entry.completion = *completion;
    entry.provider = recordedProvider;
    entry.respondedModel = model;
    std::string key = computeCacheKey(entry.request);
    if (Error error = cache.store(std::move(entry)))
      return usageError(toString(std::move(error)));
    outs() << key << "\n";
    return 0;
  }
  return usageError("cache needs an action: ls, verify, put or path");
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&providerCategory, &requestCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmptx-llm: prompts, providers and the completion cache of llmptx\n");
  if (completeCommand)
    return runComplete();
  if (renderCommand)
    return runRender();
  if (extractCommand)
    return runExtract();
  if (batchExportCommand)
    return runBatchExport();
  if (batchImportCommand)
    return runBatchImport();
  if (cacheCommand)
    return runCache();
  return usageError("give a subcommand: complete, render, extract, "
                    "batch-export, batch-import or cache (see --help)");
}
