// What mma.sync m16n8k8 tf32 does with the lower 13 bits of an fp32 operand: A = a everywhere, B = 1.
#include <cstdio>
#include <cstring>
__global__ void k(float *out, unsigned abits) {
  unsigned a[4] = {abits, abits, abits, abits}, b[2] = {0x3f800000u, 0x3f800000u};
  float d[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  if (threadIdx.x == 0) *out = d[0];
}
int main() {
  float *o, h;
  cudaMalloc(&o, 4);
  // 1 + 2^-11 + 2^-12 (truncation: 8; to nearest: 8 + 8 * 2^-10); 1 + 2^-11 (tie); 1 + 2^-10 (exact)
  unsigned cases[] = {0x3f800c00u, 0x3f800800u, 0x3f801000u, 0x3f800fffu, 0xbf800c00u};
  for (unsigned c : cases) {
    k<<<1, 32>>>(o, c);
    cudaMemcpy(&h, o, 4, cudaMemcpyDeviceToHost);
    float a; memcpy(&a, &c, 4);
    printf("a = %.9g (0x%08x): sum over k of a * 1 = %.9g; truncated %.9g, exact %.9g\n", a, c, h,
           8.0f * __builtin_bit_cast(float, c & 0xffffe000u), 8.0 * a);
  }
  return 0;
}
