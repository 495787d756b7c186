//===- TargetSettings.cpp - Resolved settings of #llmgen.target -*- C++ -*-===//
//
// Fills the settings the attribute leaves empty from the environment, so the
// same module behaves the same under `llmptx-opt` and a stock `mlir-opt`.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/TargetSettings.h"

#include <cstdlib>

using namespace llmptx;

static std::string orEnvironment(llvm::StringRef value, const char *variable) {
  if (!value.empty())
    return value.str();
  if (const char *fromEnv = std::getenv(variable))
    return fromEnv;
  return {};
}

TargetSettings TargetSettings::resolve(llmgen::TargetAttr target) {
  TargetSettings settings;
  settings.chip = target.getChip().str();
  settings.provider = orEnvironment(target.getProvider(), "LLMPTX_PROVIDER");
  settings.model = orEnvironment(target.getModel(), "LLMPTX_MODEL");
  settings.baseUrl = orEnvironment(target.getBaseUrl(), "LLMPTX_BASE_URL");
  settings.execCommand =
      orEnvironment(target.getExecCommand(), "LLMPTX_EXEC_COMMAND");
  settings.samples = target.getSamples();
  settings.repairs = target.getRepairs();
  settings.mode = target.getMode();
  settings.rounds = target.getRounds() >= 0
                        ? target.getRounds()
                        : (settings.mode == llmgen::Mode::Optimize ? 2 : 0);
  settings.verification = target.getVerification();
  settings.select = target.getSelect();
  settings.strict = target.getStrict();
  settings.cache = target.getCache();
  settings.cacheDir = orEnvironment(target.getCacheDir(), "LLMPTX_CACHE_DIR");
  settings.runner = orEnvironment(target.getRunner(), "LLMPTX_RUNNER");
  settings.report = target.getReport().str();
  settings.emitBundles = target.getEmitBundles().str();
  settings.jobs = target.getJobs();
  settings.slot = target.getSlot();
  return settings;
}
