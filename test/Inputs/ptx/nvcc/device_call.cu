// A non-inlined device function (call.uni with .param return) and a local
// array on the stack (.local), plus a dynamic shared memory buffer.
__device__ __noinline__ float poly(const float *coef, int degree, float x) {
  float acc = 0.0f;
  for (int k = degree; k >= 0; --k)
    acc = acc * x + coef[k];
  return acc;
}

extern __shared__ float dynSmem[];

__global__ void evalPoly(const float *coef, int degree, const float *x,
                         float *y, int n) {
  float local[16];
  for (int k = 0; k < 16; ++k)
    local[k] = k <= degree ? coef[k] : 0.0f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dynSmem[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = poly(local, degree, dynSmem[threadIdx.x]);
}
