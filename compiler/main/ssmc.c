/* driver stage: the ssmc command line. */
#include <stdio.h>
#include <string.h>

static void usage(FILE *o) {
  fprintf(o, "usage: ssmc <command> [options]\n"
             "  gen SPEC... [-o DIR]      emit C kernels for specs\n"
             "  gen --check               regenerate generated/ in memory, diff\n"
             "  check SPEC... [--seed N]  compare kernels with the fp64 oracle\n"
             "  bench SPEC...             CPU throughput\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) { printf("ssmc %s\n", SSMC_VERSION); return 0; }
  fprintf(stderr, "ssmc: error: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
