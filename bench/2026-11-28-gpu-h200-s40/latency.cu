// Launch-latency probe (session 40): the host time of one kernel launch + wait, one call at a time, as ssmc's
// decode B1 "host-incl" row measures it, under each context scheduling flag and each way to wait.
// Build: nvcc -O2 -o latency latency.cu; run: ./latency auto|spin|yield|blocking
#include <cstdio>
#include <cstring>
#include <chrono>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

struct big { void *p[29]; int n[3]; }; /* ~ssmc_decode_args' size (by value) */
__global__ void k_empty() {}
__global__ void k_big(big a) { if (a.n[0] == 12345) *(int *)a.p[0] = 1; }
__global__ void k_flag(volatile int *f, int v) { __threadfence_system(); *f = v; }

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
template <class F> static double med(F f) {
  std::vector<double> t;
  for (int i = 0; i < 16 + 400; i++) {
    double t0 = now_us();
    f(i);
    if (i >= 16) t.push_back(now_us() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "auto";
  unsigned fl = !strcmp(m, "spin") ? cudaDeviceScheduleSpin : !strcmp(m, "yield") ? cudaDeviceScheduleYield
              : !strcmp(m, "blocking") ? cudaDeviceScheduleBlockingSync : cudaDeviceScheduleAuto;
  cudaSetDeviceFlags(fl | cudaDeviceMapHost);
  cudaFree(0);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e;
  cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  int *hf, *df;
  cudaHostAlloc(&hf, 64, cudaHostAllocMapped);
  cudaHostGetDevicePointer(&df, hf, 0);
  big b = {};
  printf("%-9s", m);
  printf(" empty+ctxsync %.1f", med([&](int) { k_empty<<<1, 32>>>(); cudaDeviceSynchronize(); }));
  printf(" empty+streamsync %.1f", med([&](int) { k_empty<<<1, 32, 0, s>>>(); cudaStreamSynchronize(s); }));
  printf(" empty+query-spin %.1f", med([&](int) { k_empty<<<1, 32, 0, s>>>(); while (cudaStreamQuery(s) == cudaErrorNotReady) {} }));
  printf(" empty+eventsync %.1f", med([&](int) { k_empty<<<1, 32, 0, s>>>(); cudaEventRecord(e, s); cudaEventSynchronize(e); }));
  printf(" big+streamsync %.1f", med([&](int) { k_big<<<128, 128, 0, s>>>(b); cudaStreamSynchronize(s); }));
  printf(" flag-poll %.1f", med([&](int i) { k_flag<<<1, 1, 0, s>>>(df, i + 1); while (*(volatile int *)hf != i + 1) {} }));
  printf(" launch-only %.1f\n", med([&](int) { k_empty<<<1, 32, 0, s>>>(); }));
  cudaDeviceSynchronize();
  return 0;
}
