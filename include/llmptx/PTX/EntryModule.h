//===- EntryModule.h - The PTX module of one entry --------------*- C++ -*-===//
//
// A prompt about one kernel needs that kernel's PTX, not its module's: the
// NVPTX backend emits every kernel of a gpu.module into one PTX module, and
// the other kernels would only make the prompt longer.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_ENTRYMODULE_H
#define LLMPTX_PTX_ENTRYMODULE_H

#include "llmptx/PTX/Parser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llmptx::ptx {

/// The PTX module of `entry` alone, cut out of `ptx`: everything that is
/// not a function or a module-scope variable (.version, .target,
/// .address_size, comments), the entry, the .func callees it reaches, and
/// the module-scope variables (.global, .const, .shared, .extern
/// declarations) that it or those callees reference, each in its original
/// order and text. The functions and variables it does not use are left
/// out with the comment lines just above them (`// .globl name`). A module
/// that holds nothing else comes back unchanged, byte for byte. Fails when
/// `ptx` does not parse or has no `.entry` named `entry`. Other module-scope
/// directives stay as written, so an `.alias` or a debug `.section` that
/// names a left-out function would dangle; the NVPTX backend emits neither
/// for the reference.
llvm::Expected<std::string> extractEntryModule(llvm::StringRef ptx,
                                               llvm::StringRef entry);
/// The same, for a module already parsed (`parsed` is parsePtx(ptx)), so
/// cutting several entries out of one module parses it once.
llvm::Expected<std::string> extractEntryModule(const ParseResult &parsed,
                                               llvm::StringRef ptx,
                                               llvm::StringRef entry);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_ENTRYMODULE_H
