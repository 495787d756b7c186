//===- RunReport.h - The JSON report of an llm-lower run --------*- C++ -*-===//
//
// Every module serialized in a process adds its kernels to the report file
// named by `report=`; the file is rewritten (atomically) after each module,
// so it is complete whenever the compiler stops.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_RUNREPORT_H
#define LLMPTX_PIPELINE_RUNREPORT_H

#include "llmptx/Pipeline/KernelWork.h"

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

/// The report's record of one kernel: the choice and its reason, every
/// attempt, every candidate with what execution found, the rounds and
/// whether the launch was free.
llvm::json::Object kernelRecord(const KernelWork &work,
                                llvm::StringRef moduleName);

/// The record of a kernel of a module that asked no model.
llvm::json::Object referenceKernelRecord(llvm::StringRef name,
                                         llvm::StringRef moduleName,
                                         llvm::StringRef reason);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_RUNREPORT_H
