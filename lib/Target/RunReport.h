//===- RunReport.h - The JSON report of an llm-lower run --------*- C++ -*-===//
//
// Every module serialized in a process adds its kernels to the report file
// named by `report=`; the file is rewritten (atomically) after each module,
// so it is complete whenever the compiler stops.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_RUNREPORT_H
#define LLMPTX_LIB_TARGET_RUNREPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace llmptx {

/// Adds `kernels` (an array of kernel records) and the module record to the
/// report at `path` and writes it. Secrets are redacted from the text
/// written. Returns an error message, empty on success.
std::string appendToReport(llvm::StringRef path, llvm::json::Object settings,
                           llvm::json::Object moduleRecord,
                           llvm::json::Array kernels);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_RUNREPORT_H
