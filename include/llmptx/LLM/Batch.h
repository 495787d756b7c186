//===- Batch.h - OpenAI batch JSONL export and result import ----*- C++ -*-===//
//
// A whole module can be generated offline through a batch API: export the
// requests as OpenAI batch JSONL, submit the file, then import the results
// file into the cache; a `replay` run answers from there. Each line's
// custom_id is "llmptx:<cache key>:<sample index>:<template version>", so the
// import can rebuild and check every cache key from the exported body.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_BATCH_H
#define LLMPTX_LLM_BATCH_H

#include "llmptx/LLM/Provider.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx::llm {

/// One batch JSONL line (no trailing newline) for \p request; its model must
/// be set.
std::string formatBatchLine(const CompletionRequest &request,
                            llvm::StringRef maxTokensField = "max_tokens");

/// Appends one line per request to \p path (created when missing). Safe to
/// call from several threads and processes at once.
llvm::Error appendBatchLines(llvm::StringRef path,
                             llvm::ArrayRef<CompletionRequest> requests,
                             llvm::StringRef maxTokensField = "max_tokens");

struct BatchImportResult {
  unsigned imported = 0;
  /// "<results file>:<line>: <problem>" for every line not imported.
  std::vector<std::string> errors;
};

/// Reads the exported \p requestsPath and the provider's \p resultsPath and
/// writes one cache entry per successful result into \p cacheDir.
llvm::Expected<BatchImportResult>
importBatchResults(llvm::StringRef requestsPath, llvm::StringRef resultsPath,
                   llvm::StringRef cacheDir);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_BATCH_H
