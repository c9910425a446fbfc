/* runtime stage: exp for the CPU backend's elementwise loops (softmax,
 * silu, sigmoid): branch-free, so loops calling it vectorize; Cephes' expf
 * range reduction and polynomial, within ~2 ulp of expf for x in [-87, 88]
 * (clamped outside). */
#ifndef RT_FMATH_H
#define RT_FMATH_H
#include <math.h>
#include <stdint.h>

static inline float rt_expf(float x) {
  x = x < -87.f ? -87.f : x > 88.f ? 88.f : x;
  float n = floorf(x * 1.44269504f + 0.5f);
  float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  union { float f; int32_t i; } u = {p};
  u.i += (int32_t)n << 23;
  return u.f;
}

static inline float rt_sigmoidf(float x) { return 1.f / (1.f + rt_expf(-x)); }
static inline float rt_siluf(float x) { return x / (1.f + rt_expf(-x)); }

#endif
