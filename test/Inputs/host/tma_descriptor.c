//===- tma_descriptor.c - mgpuTensorMapEncodeTiledMemref -----------*- C -*-===//
//
// Calls the TMA entry point the way the lowering of nvgpu.tma.create.descriptor
// does (rank, the ranked memref descriptor, element type, interleave,
// swizzle, L2 promotion, out-of-bounds fill, box sizes outermost first) on a
// 64x128 f16 view at offset 8 of a device allocation, then reads the
// descriptor back from "device" memory.
//
//===----------------------------------------------------------------------===//

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint8_t isHostShared);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, const int64_t *boxDims);

struct MemRef2D {
  char *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

int main(void) {
  char *buffer = mgpuMemAlloc((8 + 64 * 128) * 2, NULL, 0);
  struct MemRef2D view = {buffer, buffer, 8, {64, 128}, {128, 1}};
  int64_t box[2] = {32, 64};
  // f16 (6), no interleave, 128-byte swizzle (3), 256-byte L2 promotion (2),
  // NaN fill (1).
  void *map = mgpuTensorMapEncodeTiledMemref(2, &view, 6, 0, 3, 2, 1, box);
  unsigned char copy[128];
  mgpuMemcpy(copy, map, sizeof copy, NULL);
  char *address;
  memcpy(&address, copy, sizeof address);
  printf("descriptor on the device: address = buffer + %td, rank %u\n",
         address - buffer, *(unsigned *)(copy + 8));
  return 0;
}
