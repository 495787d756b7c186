// A template kernel (mangled name), printf (vprintf call with a .local
// argument buffer) and a global device variable.
#include <cstdio>

__device__ int errorCount;

template <typename T> __global__ void checkRange(const T *v, T lo, T hi,
                                                 int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (v[i] < lo || v[i] > hi)) {
    atomicAdd(&errorCount, 1);
    printf("value %d out of range at %d\n", (int)v[i], i);
  }
}

template __global__ void checkRange<int>(const int *, int, int, int);
template __global__ void checkRange<float>(const float *, float, float, int);
