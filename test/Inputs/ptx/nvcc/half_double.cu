// Half precision (cuda_fp16) and double arithmetic with a grid-stride loop.
#include <cuda_fp16.h>

__global__ void halfAxpy(int n, __half a, const __half2 *x, __half2 *y) {
  __half2 a2 = __half2half2(a);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = __hfma2(a2, x[i], y[i]);
}

__global__ void dscale(double *v, double s, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = sqrt(v[i] * s) + 1.0;
}
