//===- InputRecipe.h - Deterministic buffer contents ------------*- C++ -*-===//
//
// Builds the host images that the runner uploads before every run: input
// elements from their recipes, outputs filled with one of two poison
// patterns, and every non-element byte filled with the guard pattern.
// Everything is a pure function of (bundle seed, buffer name, shape), so
// the reference and the candidate always see identical data and a rerun
// reproduces a failure.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_INPUTRECIPE_H
#define LLMPTX_RUNTIME_INPUTRECIPE_H

#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Runtime/Plan.h"

#include <cstdint>
#include <vector>

namespace llmptx::runtime {

/// The guard byte at allocation offset `offset` of buffer number `buffer`.
/// Every naturally aligned 2-, 4- or 8-byte read of the pattern is a NaN in
/// f16, bf16, f32 and f64, so a kernel that reads past a buffer poisons its
/// own result; the pattern differs between buffers, so copying one
/// buffer's guard bytes into another's is caught too.
uint8_t guardByte(uint64_t offset, unsigned buffer);

/// The two poison bit patterns of an element type: run 0 uses a signalling
/// NaN with a payload (floats), run 1 a finite sentinel; integers get two
/// different byte patterns. An output element counts as unwritten when it
/// still holds the poison of its run where the reference wrote something
/// else; with two runs, a value that happens to equal one poison is still
/// caught by the other.
uint64_t poisonBits(ElementType type, unsigned run);

/// The special values mixed into `uniform` recipes with `special: true`:
/// NaN (several payloads and signs), +-Inf, +-0, denormals, the smallest
/// normals, operands whose pairwise products or differences are denormal,
/// and the largest finite values.
std::vector<uint64_t> specialValueBits(ElementType type);

/// The packed element values (row-major logical order) of one buffer.
/// `copySource` holds the generated elements of the buffer a `copy` recipe
/// names (ignored by other recipes). `specialOrdinal` numbers the buffers
/// with special values (0, 1, ...): the first two enumerate every pair of
/// special values between them at the start of the buffer.
ValueOrError<std::vector<uint8_t>>
generateElements(const InitRecipe &recipe, ElementType type, uint64_t count,
                 uint64_t seed, const std::string &bufferName,
                 const std::vector<uint8_t> *copySource = nullptr,
                 unsigned specialOrdinal = 0);

/// Why a `constant` recipe's value cannot fill elements of `type` (not a
/// number, not an integer for an integer type), or nothing.
std::optional<std::string> checkConstant(const std::string &value,
                                         ElementType type);

/// The recipe a buffer uses when the bundle names none.
InitRecipe defaultRecipe(const BufferSpec &buffer);

/// A whole allocation: guard pattern everywhere, then `packedElements`
/// scattered to the element positions.
std::vector<uint8_t> buildImage(const BufferLayout &layout,
                                const std::vector<uint8_t> &packedElements);

/// A whole allocation of an output: guard pattern and poison elements.
std::vector<uint8_t> buildPoisonedImage(const BufferLayout &layout,
                                        unsigned run);

/// Gathers the element bytes of an allocation image into packed order.
std::vector<uint8_t> gatherElements(const BufferLayout &layout,
                                    const uint8_t *image);

/// The initial packed elements of every buffer of a plan (outputs: empty),
/// in bundle order.
ValueOrError<std::vector<std::vector<uint8_t>>>
generateInputs(const VerificationBundle &bundle, const ShapePlan &plan);
/// The same with the random streams of `seed` instead of the bundle's (a
/// confirmation run's fresh inputs).
ValueOrError<std::vector<std::vector<uint8_t>>>
generateInputs(const VerificationBundle &bundle, const ShapePlan &plan,
               uint64_t seed);

/// The allocation images uploaded before run `run` (0 or 1, selecting the
/// poison of outputs).
std::vector<std::vector<uint8_t>>
buildRunImages(const ShapePlan &plan,
               const std::vector<std::vector<uint8_t>> &inputs, unsigned run);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_INPUTRECIPE_H
