//===- sgemm_driver.c - Runs @run_sgemm of sgemm_program.mlir -----*- C -*-===//
//
// Builds memref descriptors for A (M x K), B (K x N) and C (M x N), fills
// A and B deterministically, calls the lowered host program through its C
// interface (`_mlir_ciface_run_sgemm`), checks C element by element against
// the same product computed on the CPU (C's fmaf is one rounding, as the
// kernel's fused multiply-add; the terms in k order from +0.0), and prints
// one summary line per size:
//
//   sgemm: M=.. N=.. K=.. mismatches=0 checksum=0x... sum=...
//
// Usage: sgemm_driver M,N,K... (default 127,129,257). Exit status 1 on a
// mismatch.
//
//===----------------------------------------------------------------------===//

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The descriptor of a memref<?x?xf32> as the LLVM lowering lays it out.
typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} MemRef2DF32;

void _mlir_ciface_run_sgemm(MemRef2DF32 *a, MemRef2DF32 *b, MemRef2DF32 *c);

static MemRef2DF32 wrap(float *data, int64_t rows, int64_t cols) {
  MemRef2DF32 m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

/// Inputs of both signs with few significant bits, so many products are
/// exact and the rounding of each fused term still matters.
static float inputA(int64_t i) { return (float)((i * 37) % 101 - 50) / 16.0f; }
static float inputB(int64_t i) { return (float)((i * 53) % 89 - 44) / 32.0f; }

static uint32_t bitsOf(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static int runOnce(int64_t m, int64_t n, int64_t k) {
  float *a = malloc(sizeof(float) * (size_t)(m * k));
  float *b = malloc(sizeof(float) * (size_t)(k * n));
  // One extra element: the GPU must not write past C.
  float *c = malloc(sizeof(float) * (size_t)(m * n + 1));
  if (!a || !b || !c) {
    fprintf(stderr, "sgemm: out of memory for M=%" PRId64 " N=%" PRId64
                    " K=%" PRId64 "\n",
            m, n, k);
    return 1;
  }
  for (int64_t i = 0; i < m * k; ++i)
    a[i] = inputA(i);
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = inputB(i);
  for (int64_t i = 0; i < m * n; ++i)
    c[i] = -1.0f;
  const float guard = 12345.5f;
  c[m * n] = guard;

  MemRef2DF32 ma = wrap(a, m, k), mb = wrap(b, k, n), mc = wrap(c, m, n);
  _mlir_ciface_run_sgemm(&ma, &mb, &mc);

  int64_t mismatches = 0;
  uint64_t checksum = 1469598103934665603ull; // FNV-1a over the result bits
  double sum = 0.0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float expected = 0.0f;
      for (int64_t t = 0; t < k; ++t)
        expected = fmaf(a[i * k + t], b[t * n + j], expected);
      float got = c[i * n + j];
      if (bitsOf(got) != bitsOf(expected)) {
        if (mismatches < 5)
          fprintf(stderr, "sgemm: C[%" PRId64 "][%" PRId64 "] = %a, expected %a\n",
                  i, j, (double)got, (double)expected);
        ++mismatches;
      }
      uint32_t bits = bitsOf(got);
      for (int byte = 0; byte < 4; ++byte) {
        checksum ^= (bits >> (8 * byte)) & 0xffu;
        checksum *= 1099511628211ull;
      }
      sum += got;
    }
  if (bitsOf(c[m * n]) != bitsOf(guard)) {
    fprintf(stderr, "sgemm: the element after C was overwritten\n");
    ++mismatches;
  }
  printf("sgemm: M=%" PRId64 " N=%" PRId64 " K=%" PRId64 " mismatches=%" PRId64
         " checksum=0x%016" PRIx64 " sum=%.3f\n",
         m, n, k, mismatches, checksum, sum);
  free(a);
  free(b);
  free(c);
  return mismatches != 0;
}

int main(int argc, char **argv) {
  int failed = 0;
  if (argc < 2)
    return runOnce(127, 129, 257);
  for (int i = 1; i < argc; ++i) {
    long long m, n, k;
    char tail;
    if (sscanf(argv[i], "%lld,%lld,%lld%c", &m, &n, &k, &tail) != 3 || m < 1 ||
        n < 1 || k < 1) {
      fprintf(stderr, "sgemm: bad size '%s' (want M,N,K, each >= 1)\n",
              argv[i]);
      return 64; // EX_USAGE: 1 is a mismatch, 2 "no GPU"
    }
    failed |= runOnce((int64_t)m, (int64_t)n, (int64_t)k);
  }
  return failed;
}
