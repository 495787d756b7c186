//===- runtime_abi.c - Calls libllmptx_gpu_runtime.so directly ----*- C -*-===//
//
// Exercises the mgpu* functions that the lowered code of the host programs
// in this folder does not reach (host-shared memory, device-to-device
// copies, event synchronization, a stream waiting for an event, a PTX image
// that is not NUL-terminated), with the signatures MLIR 22 declares, and the
// runtime's fatal errors:
//
//   runtime_abi                 every check; prints one line each
//   runtime_abi missing-kernel  mgpuModuleGetFunction of an unknown name
//   runtime_abi bad-ptx         mgpuModuleLoadJIT of PTX that does not compile
//
//===----------------------------------------------------------------------===//

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint8_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
void mgpuMemHostUnregister(void *ptr);
void mgpuSetDefaultDevice(int32_t device);

// p[i] += 1 for i < n (u32 elements).
static const char kAddOnePtx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry add_one(.param .u64 p, .param .u64 n) {\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<6>;\n"
    "  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  ld.param.u64 %rd2, [n];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  cvt.u64.u32 %rd3, %r4;\n"
    "  setp.ge.u64 %p1, %rd3, %rd2;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd4, %rd1;\n"
    "  shl.b64 %rd5, %rd3, 2;\n"
    "  add.s64 %rd4, %rd4, %rd5;\n"
    "  ld.global.u32 %r5, [%rd4];\n"
    "  add.u32 %r5, %r5, 1;\n"
    "  st.global.u32 [%rd4], %r5;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

enum { N = 4099 };
// Page-aligned, so registration covers exactly its pages.
static uint32_t host[N] __attribute__((aligned(4096)));
static int failures = 0;

static void expect(int ok, const char *what) {
  printf("%s: %s\n", what, ok ? "ok" : "WRONG");
  failures += !ok;
}

static void launchAddOne(void *function, void *data, uint64_t n, void *stream) {
  void *params[] = {&data, &n};
  mgpuLaunchKernel(function, (intptr_t)((n + 127) / 128), 1, 1, 128, 1, 1, 0,
                   stream, params, NULL, 2);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  mgpuSetDefaultDevice(0);

  if (!strcmp(mode, "bad-ptx")) {
    char bad[] = ".version 7.0\n.target sm_80\n.address_size 64\n"
                 ".visible .entry broken() {\n  frobnicate.u32 %r1;\n}\n";
    mgpuModuleLoadJIT(bad, 2);
    return 0;
  }

  // A sized image without a terminating NUL: the runtime copies it.
  size_t size = sizeof(kAddOnePtx) - 1;
  char *unterminated = malloc(size);
  memcpy(unterminated, kAddOnePtx, size);
  void *sized = mgpuModuleLoad(unterminated, size);
  free(unterminated);
  void *jit = mgpuModuleLoadJIT((void *)kAddOnePtx, 3);
  expect(sized && jit, "mgpuModuleLoad (unterminated PTX), mgpuModuleLoadJIT");

  if (!strcmp(mode, "missing-kernel")) {
    mgpuModuleGetFunction(jit, "no_such_kernel");
    return 0;
  }
  void *fromSized = mgpuModuleGetFunction(sized, "add_one");
  void *fromJit = mgpuModuleGetFunction(jit, "add_one");

  for (int i = 0; i < N; ++i)
    host[i] = 7u * (uint32_t)i;

  // Two streams ordered by an event: s1 copies in and adds one, s2 waits
  // for it, adds one more and copies device to device and back.
  void *s1 = mgpuStreamCreate(), *s2 = mgpuStreamCreate();
  void *a = mgpuMemAlloc(sizeof host, s1, 0);
  void *b = mgpuMemAlloc(sizeof host, s1, 0);
  mgpuMemcpy(a, host, sizeof host, s1);
  launchAddOne(fromSized, a, N, s1);
  void *done1 = mgpuEventCreate();
  mgpuEventRecord(done1, s1);
  mgpuStreamWaitEvent(s2, done1);
  launchAddOne(fromJit, a, N, s2);
  mgpuMemcpy(b, a, sizeof host, s2);
  uint32_t back[N];
  memset(back, 0, sizeof back);
  mgpuMemcpy(back, b, sizeof back, s2);
  void *done2 = mgpuEventCreate();
  mgpuEventRecord(done2, s2);
  mgpuEventSynchronize(done2);
  int ok = 1;
  for (int i = 0; i < N; ++i)
    ok &= back[i] == 7u * (uint32_t)i + 2u;
  expect(ok, "streams, events, launches, device-to-device copy");

  // memset of 16-bit elements on an odd count, then 32-bit.
  mgpuMemset16(a, 0xbeef, 3, s2);
  mgpuMemset32(b, 0x11223344u, N, s2);
  uint16_t halves[4];
  mgpuMemcpy(halves, a, sizeof halves, s2);
  mgpuMemcpy(back, b, sizeof back, s2);
  mgpuStreamSynchronize(s2);
  // halves[3] is the upper half of a[1] (9), untouched.
  ok = halves[0] == 0xbeef && halves[1] == 0xbeef && halves[2] == 0xbeef &&
       halves[3] == 0;
  for (int i = 0; i < N; ++i)
    ok &= back[i] == 0x11223344u;
  expect(ok, "mgpuMemset16, mgpuMemset32");

  // Host-shared (managed) memory: written by the host, the kernel, the host.
  uint32_t *shared = mgpuMemAlloc(sizeof host, NULL, 1);
  for (int i = 0; i < N; ++i)
    shared[i] = (uint32_t)i;
  launchAddOne(fromJit, shared, N, s1);
  mgpuStreamSynchronize(s1);
  ok = 1;
  for (int i = 0; i < N; ++i)
    ok &= shared[i] == (uint32_t)i + 1u;
  expect(ok, "mgpuMemAlloc host-shared");

  // Registered host memory, used by the kernel in place.
  mgpuMemHostRegister(host, sizeof host);
  launchAddOne(fromJit, host, N, s1);
  mgpuStreamSynchronize(s1);
  mgpuMemHostUnregister(host);
  ok = 1;
  for (int i = 0; i < N; ++i)
    ok &= host[i] == 7u * (uint32_t)i + 1u;
  expect(ok, "mgpuMemHostRegister, mgpuMemHostUnregister");

  // Zero-byte requests are no-ops.
  void *empty = mgpuMemAlloc(0, s1, 0);
  mgpuMemcpy(empty, host, 0, s1);
  mgpuMemFree(empty, s1);
  expect(empty == NULL, "zero-byte alloc, copy and free");

  mgpuEventDestroy(done1);
  mgpuEventDestroy(done2);
  mgpuMemFree(shared, s1);
  mgpuMemFree(a, s1);
  mgpuMemFree(b, s2);
  mgpuStreamDestroy(s1);
  mgpuStreamDestroy(s2);
  mgpuModuleUnload(sized);
  mgpuModuleUnload(jit);
  printf("%s\n", failures ? "FAILED" : "all passed");
  return failures != 0;
}
