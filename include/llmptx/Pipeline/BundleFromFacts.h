//===- BundleFromFacts.h - Verification bundles from stated facts -*- C++ -*-=//
//
// Builds the verification bundle of a kernel from what the module states:
// memref types and layouts, which arguments are written, the harness's
// sizes and grid, the host's constant launches and known_block_size. What
// is missing is named, never guessed.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_BUNDLEFROMFACTS_H
#define LLMPTX_PIPELINE_BUNDLEFROMFACTS_H

#include "llmptx/Pipeline/Candidate.h"
#include "llmptx/Pipeline/KernelDescription.h"

#include "llmptx/Runtime/Bundle.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llmptx {

/// Builds the bundle of `kernel` with `candidates`; the error says which
/// facts the module lacks.
llvm::Expected<runtime::VerificationBundle>
buildBundle(const KernelDescription &kernel, llvm::StringRef chip,
            const std::vector<const Candidate *> &candidates);

/// The standard shapes of `sizes` when the harness names none: 1, small
/// primes, non-multiples of common block sizes and a large case, with each
/// binding's product of sizes capped.
std::vector<runtime::SizeBindings>
defaultShapes(const std::vector<std::string> &sizes);

/// The shapes a bundle of `kernel` runs: the harness's, else the standard
/// ones adjusted to the stated divisibility; one empty binding without
/// sizes.
std::vector<runtime::SizeBindings>
bundleShapes(const KernelDescription &kernel);

/// What speed is decided at: a shape whose reference moves at least this
/// much (compulsory traffic) or does this many of its stated flops.
inline constexpr uint64_t kProductionBytes = 256ull << 20;
inline constexpr uint64_t kProductionFlops = 64'000'000'000ull;
/// ... within this much allocated for one kernel's buffers (the runner also
/// keeps both kernels' within a quarter of its device's memory).
inline constexpr uint64_t kProductionAllocationBytes = 4ull << 30;

/// The production shape of `bundle` (its buffers, params and launch set):
/// the harness's `timing`, else the largest correctness shape with every
/// size doubled until the reference's traffic or flops reach the targets
/// above within the allocation budget. Nothing when the largest shape
/// already reaches them (speed is decided there) or there are no sizes.
std::optional<runtime::SizeBindings>
productionShape(const runtime::VerificationBundle &bundle,
                const KernelDescription &kernel);

/// The launch the reference runs under in verification: block from
/// known_block_size, the harness or the host's constant launch; grid from
/// the harness, known_grid_size or that launch. The error names the missing
/// fact when the module does not say.
llvm::Expected<LaunchConfig> referenceLaunch(const KernelDescription &kernel);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_BUNDLEFROMFACTS_H
