//===- runtime_calls_driver.c - Runs runtime_calls.mlir -----------*- C -*-===//
//
// Calls each host function of runtime_calls.mlir through its C interface
// and checks the results on the CPU; prints one line per function and exits
// 1 when any of them is wrong.
//
//===----------------------------------------------------------------------===//

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The descriptor of a rank-1 memref as the LLVM lowering lays it out.
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} MemRef1D;

void _mlir_ciface_run_memsets(MemRef1D *out);
void _mlir_ciface_run_registered(MemRef1D *h);
void _mlir_ciface_run_reverse(MemRef1D *in, MemRef1D *out);
void _mlir_ciface_run_clusters(MemRef1D *ids);

static MemRef1D wrap(void *data, int64_t n) {
  MemRef1D m = {data, data, 0, {n}, {1}};
  return m;
}

static int report(const char *what, int64_t n, int64_t bad) {
  printf("%s: n=%lld mismatches=%lld\n", what, (long long)n, (long long)bad);
  return bad != 0;
}

static int checkMemsets(int64_t n) {
  int32_t *out = malloc(sizeof(int32_t) * (size_t)n);
  memset(out, 0xff, sizeof(int32_t) * (size_t)n);
  MemRef1D m = wrap(out, n);
  _mlir_ciface_run_memsets(&m);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += out[i] != 0x01020304 + 0x0506;
  free(out);
  return report("memsets", n, bad);
}

static int checkRegistered(int64_t n) {
  // Page-aligned, as host registration of whole pages is the common case;
  // the runtime registers exactly the memref's span.
  float *h =
      aligned_alloc(4096, ((sizeof(float) * (size_t)n + 4095) / 4096) * 4096);
  for (int64_t i = 0; i < n; ++i)
    h[i] = (float)(i % 1000) - 500.0f;
  MemRef1D m = wrap(h, n);
  _mlir_ciface_run_registered(&m);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += h[i] != 2.0f * ((float)(i % 1000) - 500.0f) + 1.0f;
  free(h);
  return report("registered", n, bad);
}

static int checkReverse(int64_t blocks) {
  int64_t n = blocks * 256;
  float *in = malloc(sizeof(float) * (size_t)n);
  float *out = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    in[i] = (float)i;
    out[i] = -1.0f;
  }
  MemRef1D mi = wrap(in, n), mo = wrap(out, n);
  _mlir_ciface_run_reverse(&mi, &mo);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t block = i / 256, lane = i % 256;
    bad += out[i] != (float)(block * 256 + 255 - lane);
  }
  free(in);
  free(out);
  return report("reverse (64 KiB dynamic shared memory)", n, bad);
}

static int checkClusters(int64_t blocks) {
  int32_t *ids = malloc(sizeof(int32_t) * (size_t)blocks);
  for (int64_t i = 0; i < blocks; ++i)
    ids[i] = -1;
  MemRef1D m = wrap(ids, blocks);
  _mlir_ciface_run_clusters(&m);
  int64_t bad = 0;
  for (int64_t b = 0; b < blocks; ++b)
    bad += ids[b] != (int32_t)((b / 2) * 100 + b % 2);
  free(ids);
  return report("clusters of 2", blocks, bad);
}

int main(void) {
  int failed = 0;
  failed |= checkMemsets(1000);
  failed |= checkMemsets(1);
  failed |= checkRegistered(100003);
  failed |= checkReverse(37);
  failed |= checkClusters(16);
  printf("%s\n", failed ? "FAILED" : "all passed");
  return failed;
}
