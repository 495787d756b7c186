// Inline PTX (begin/end inline asm blocks with their own scope) and
// vectorized float4 loads and stores.
__device__ __forceinline__ unsigned laneId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ float fastMax(float a, float b) {
  float r;
  asm("{\n\t.reg .pred p;\n\tsetp.gt.f32 p, %1, %2;\n\tselp.f32 %0, %1, %2, p;\n\t}"
      : "=f"(r)
      : "f"(a), "f"(b));
  return r;
}

__global__ void vecMax(const float4 *a, const float4 *b, float4 *c, int n,
                       unsigned *lanes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(fastMax(x.x, y.x), fastMax(x.y, y.y),
                       fastMax(x.z, y.z), fastMax(x.w, y.w));
    lanes[i] = laneId();
  }
}
