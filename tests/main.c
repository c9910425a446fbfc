/* tests stage: the Check runner. Runs every registered suite, or only the
 * suites named on the command line (`ssmc_tests expr spec`). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#define SUITE(n) Suite *n##_suite(void);
#include "suites.inc"
#undef SUITE

static int wanted(int argc, char **argv, const char *name) {
  if (argc < 2) return 1;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

int main(int argc, char **argv) {
  SRunner *sr = srunner_create(NULL);
#define SUITE(n) if (wanted(argc, argv, #n)) srunner_add_suite(sr, n##_suite());
#include "suites.inc"
#undef SUITE
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
