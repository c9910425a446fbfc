/* tests stage: the Check runner. Runs every registered suite, or only the suites named on the command line
 * (`ssmc_tests expr spec`), each in a process of its own, up to J at once (SSMC_TEST_JOBS, else the machine's
 * processors): the emulation's suites run one CPU thread each and take most of the time. A suite's output is
 * printed whole when it ends, with its wall time (SSMC_TEST_XML_DIR: Check's XML log of each, its tests' times); the
 * exit status is 1 when any suite failed. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  const char *name;
  Suite *(*make)(void);
} t_unit;

#define SUITE(n) Suite *n##_suite(void);
#include "suites.inc"
#undef SUITE
static const t_unit t_all[] = {
#define SUITE(n) {#n, n##_suite},
#include "suites.inc"
#undef SUITE
};
enum { T_N = sizeof t_all / sizeof t_all[0] };

/* Started first, in this order (the longest first, as measured from a clean clone on a 2-core machine, s58: emu90
 * ~1200 s, emu ~1140, cuda ~450 alone and ~990 beside an emulation suite, kernels ~110); the rest in the registry's
 * order. Only an order: a suite missing here still runs. */
static const char *const t_long[] = {"emu90", "emu", "cuda", "kernels", "bwd", "isa", "oracle_grad"};

static double t_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  pid_t pid;
  int unit;
  double start;
  FILE *log;
} t_job;

/* the child: one suite, its output into log */
static void t_run_child(const t_unit *u, FILE *log) {
  fflush(stdout);
  if (dup2(fileno(log), 1) < 0 || dup2(fileno(log), 2) < 0) _exit(3);
  SRunner *sr = srunner_create(u->make());
  const char *xml = getenv("SSMC_TEST_XML_DIR"); /* Check's XML log a suite (each test's duration) */
  char path[1024];
  if (xml && *xml) snprintf(path, sizeof path, "%s/%s.xml", xml, u->name), srunner_set_xml(sr, path);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  fflush(stdout);
  _exit(failed ? 1 : 0);
}

/* waits for one running job, prints its output; returns 1 when its suite failed */
static int t_reap(t_job *jobs, int *njobs) {
  int status;
  const pid_t pid = wait(&status);
  if (pid < 0) { perror("wait"); exit(EXIT_FAILURE); }
  int i = 0;
  while (i < *njobs && jobs[i].pid != pid) i++;
  if (i == *njobs) return 0; /* not ours */
  t_job j = jobs[i];
  jobs[i] = jobs[--*njobs];
  const int bad = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  printf("== %s: %s in %.0f s\n", t_all[j.unit].name, bad ? "FAILED" : "passed", t_now() - j.start);
  rewind(j.log);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, j.log)) > 0) fwrite(buf, 1, n, stdout);
  if (WIFSIGNALED(status)) printf("(killed by signal %d)\n", WTERMSIG(status));
  fclose(j.log);
  fflush(stdout);
  return bad;
}

int main(int argc, char **argv) {
  int order[T_N], n = 0, taken[T_N] = {0};
  for (int i = 1; i < argc; i++) {
    int k = 0;
    while (k < T_N && strcmp(t_all[k].name, argv[i])) k++;
    if (k == T_N) { fprintf(stderr, "ssmc_tests: no suite '%s'\n", argv[i]); return 2; }
    taken[k] = 1;
  }
  int placed[T_N] = {0};
  for (size_t l = 0; l < sizeof t_long / sizeof t_long[0]; l++) /* the long ones first, longest first */
    for (int k = 0; k < T_N; k++)
      if (!strcmp(t_long[l], t_all[k].name) && (argc < 2 || taken[k])) order[n++] = k, placed[k] = 1;
  for (int k = 0; k < T_N; k++) /* then the registry's order */
    if (!placed[k] && (argc < 2 || taken[k])) order[n++] = k;
  const char *e = getenv("SSMC_TEST_JOBS");
  long jmax = e && atoi(e) > 0 ? atoi(e) : sysconf(_SC_NPROCESSORS_ONLN);
  if (jmax < 1) jmax = 1;
  if (jmax > T_N) jmax = T_N;
  t_job jobs[T_N];
  int njobs = 0, failed = 0;
  const double t0 = t_now();
  for (int i = 0; i < n; i++) {
    while (njobs >= jmax) failed += t_reap(jobs, &njobs);
    FILE *log = tmpfile();
    if (!log) { perror("tmpfile"); return EXIT_FAILURE; }
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) { perror("fork"); return EXIT_FAILURE; }
    if (pid == 0) t_run_child(&t_all[order[i]], log);
    jobs[njobs++] = (t_job){pid, order[i], t_now(), log};
  }
  while (njobs > 0) failed += t_reap(jobs, &njobs);
  printf("== %d suite(s), %d failed, %.0f s, %ld at once\n", n, failed, t_now() - t0, jmax);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
