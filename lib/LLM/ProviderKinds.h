//===- ProviderKinds.h - Constructors of the provider kinds -----*- C++ -*-===//

#ifndef LLMPTX_LIB_LLM_PROVIDERKINDS_H
#define LLMPTX_LIB_LLM_PROVIDERKINDS_H

#include "llmptx/LLM/Cache.h"
#include "llmptx/LLM/Provider.h"

#include <memory>

namespace llmptx::llm {

std::unique_ptr<Provider> createOpenAIProvider(const ProviderConfig &config);
std::unique_ptr<Provider> createAnthropicProvider(const ProviderConfig &config);
std::unique_ptr<Provider> createExecProvider(const ProviderConfig &config);
/// Answers from \p cacheDir only.
std::unique_ptr<Provider> createReplayProvider(const ProviderConfig &config,
                                               std::string cacheDir);
/// Puts \p inner behind the cache of \p cacheDir according to
/// config.cacheMode (Off still fills the key and the effective model).
std::unique_ptr<Provider>
createCachingProvider(const ProviderConfig &config, std::string cacheDir,
                      std::unique_ptr<Provider> inner);

/// The request with its model defaulted to the provider's.
CompletionRequest withEffectiveModel(const CompletionRequest &request,
                                     const ProviderConfig &config);

} // namespace llmptx::llm

#endif // LLMPTX_LIB_LLM_PROVIDERKINDS_H
