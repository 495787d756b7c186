//===- vadd_driver.c - Runs @run_vadd of vadd_program.mlir --------*- C -*-===//
//
// Builds memref descriptors for three host buffers, fills the inputs
// deterministically, calls the lowered host program through its C interface
// (`_mlir_ciface_run_vadd`, from `llvm.emit_c_interface`), checks the result
// element by element against the same sum computed on the CPU (an f32 add
// rounds the same on both), and prints one summary line:
//
//   vadd: n=N mismatches=0 checksum=0x... sum=...
//
// Usage: vadd_driver [N...] (default 1000003). Exit status 1 on a mismatch.
//
//===----------------------------------------------------------------------===//

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The descriptor of a memref<?xf32> as the LLVM lowering lays it out.
typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} MemRef1DF32;

void _mlir_ciface_run_vadd(MemRef1DF32 *a, MemRef1DF32 *b, MemRef1DF32 *c);

static MemRef1DF32 wrap(float *data, int64_t n) {
  MemRef1DF32 m = {data, data, 0, {n}, {1}};
  return m;
}

/// Exactly representable inputs of both signs and several magnitudes.
static float inputA(int64_t i) { return (float)(i % 1013) * 0.25f - 100.0f; }
static float inputB(int64_t i) { return (float)((i * 7919) % 4099) / 64.0f; }

static uint32_t bitsOf(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static int runOnce(int64_t n) {
  // One extra element each: the GPU must not write past n.
  float *a = malloc(sizeof(float) * (size_t)(n + 1));
  float *b = malloc(sizeof(float) * (size_t)(n + 1));
  float *c = malloc(sizeof(float) * (size_t)(n + 1));
  if (!a || !b || !c) {
    fprintf(stderr, "vadd: out of memory for n=%" PRId64 "\n", n);
    return 1;
  }
  for (int64_t i = 0; i < n; ++i) {
    a[i] = inputA(i);
    b[i] = inputB(i);
    c[i] = -1.0f;
  }
  const float guard = 12345.5f;
  c[n] = guard;

  MemRef1DF32 ma = wrap(a, n), mb = wrap(b, n), mc = wrap(c, n);
  _mlir_ciface_run_vadd(&ma, &mb, &mc);

  int64_t mismatches = 0;
  uint64_t checksum = 1469598103934665603ull; // FNV-1a over the result bits
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    float expected = inputA(i) + inputB(i);
    if (bitsOf(c[i]) != bitsOf(expected)) {
      if (mismatches < 5)
        fprintf(stderr, "vadd: c[%" PRId64 "] = %a, expected %a\n", i,
                (double)c[i], (double)expected);
      ++mismatches;
    }
    uint32_t bits = bitsOf(c[i]);
    for (int k = 0; k < 4; ++k) {
      checksum ^= (bits >> (8 * k)) & 0xffu;
      checksum *= 1099511628211ull;
    }
    sum += c[i];
  }
  if (bitsOf(c[n]) != bitsOf(guard)) {
    fprintf(stderr, "vadd: the element after the output was overwritten\n");
    ++mismatches;
  }
  printf("vadd: n=%" PRId64 " mismatches=%" PRId64 " checksum=0x%016" PRIx64
         " sum=%.3f\n",
         n, mismatches, checksum, sum);
  free(a);
  free(b);
  free(c);
  return mismatches != 0;
}

int main(int argc, char **argv) {
  int failed = 0;
  if (argc < 2)
    return runOnce(1000003);
  for (int i = 1; i < argc; ++i) {
    char *end = NULL;
    long long n = strtoll(argv[i], &end, 10);
    if (!*argv[i] || *end || n < 1) {
      fprintf(stderr, "vadd: bad size '%s' (want an integer >= 1)\n", argv[i]);
      return 64; // EX_USAGE: 1 is a mismatch, 2 "no GPU"
    }
    failed |= runOnce((int64_t)n);
  }
  return failed;
}
