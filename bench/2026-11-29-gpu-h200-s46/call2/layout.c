/* session 46 call 2: cuda.h's CUlaunchAttribute / CUlaunchConfig layout against runtime/rt_cuda.c's rt_launch_attr /
 * rt_launch_config (expected: attr 72 B, value at 8; config 56 B, stream at 32, attrs at 40, numAttrs at 48; id 6) */
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>
int main(void) {
  printf("attr %zu value@%zu config %zu stream@%zu attrs@%zu n@%zu id %d\n", sizeof(CUlaunchAttribute),
         offsetof(CUlaunchAttribute, value), sizeof(CUlaunchConfig), offsetof(CUlaunchConfig, hStream),
         offsetof(CUlaunchConfig, attrs), offsetof(CUlaunchConfig, numAttrs),
         (int)CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  return 0;
}
