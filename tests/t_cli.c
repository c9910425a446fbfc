/* driver stage: tests of the ssmc command line, run as a child process in a
 * fresh temporary folder — exit codes, diagnostics of bad specs, atomic and
 * deterministic output, gen --check against the committed tree, and check on
 * a user spec compiled in-process. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_cuda.h"

static char ROOT[256]; /* per test case, made and removed by the parent process */
static char TMP[300];  /* per test: a fresh folder under ROOT */

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(p);
}

static void rm_rf(const char *dir) {
  if (dir[0]) nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup_root(void) {
  const char *t = getenv("TMPDIR");
  snprintf(ROOT, sizeof ROOT, "%s/ssmc_cli_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(ROOT)) ROOT[0] = 0;
}

/* Runs in the parent even when a forked test failed. */
static void teardown_root(void) {
  rm_rf(ROOT);
  ROOT[0] = 0;
}

static void setup(void) {
  ck_assert_msg(ROOT[0] != 0, "cannot create a temporary folder");
  snprintf(TMP, sizeof TMP, "%s/t_XXXXXX", ROOT);
  ck_assert_ptr_nonnull(mkdtemp(TMP));
}

static void teardown(void) {
  rm_rf(TMP);
  TMP[0] = 0;
}

/* ---- helpers --------------------------------------------------------------- */

static char *path_in(const char *rel) {
  static char buf[8][1024];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/%s", TMP, rel);
  return p;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
  fputs(text, f);
  fclose(f);
}

/* Whole file, NUL-terminated; NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  for (size_t got; (got = fread(b + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 >= cap) b = realloc(b, cap *= 2);
  }
  fclose(f);
  b[n] = 0;
  if (len) *len = n;
  return b;
}

/* Runs ssmc with the NULL-terminated arguments, in TMP, with SSMC_CACHE_DIR
 * set; stdout and stderr together land in *out (malloc'd). Returns the exit
 * status, or 128 + the signal. */
static int run(char **out, ...) {
  const char *argv[64];
  int argc = 0;
  argv[argc++] = SSMC_BINARY;
  va_list ap;
  va_start(ap, out);
  for (const char *a; (a = va_arg(ap, const char *)) && argc < 63;) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    if (chdir(TMP)) _exit(126);
    char cache[1024];
    snprintf(cache, sizeof cache, "%s/cache", TMP);
    setenv("SSMC_CACHE_DIR", cache, 1);
    execv(SSMC_BINARY, (char *const *)argv);
    _exit(127);
  }
  close(fd[1]);
  size_t cap = 8192, n = 0;
  char *b = malloc(cap);
  for (;;) {
    if (n + 1 >= cap) b = realloc(b, cap *= 2);
    ssize_t got = read(fd[0], b + n, cap - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    n += (size_t)got;
  }
  b[n] = 0;
  close(fd[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  *out = b;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

#define ck_has(out, s) ck_assert_msg(strstr(out, s) != NULL, "output lacks '%s':\n%.3000s", s, out)
#define ck_rc(rc, want, out) ck_assert_msg((rc) == (want), "exit %d, expected %d; output:\n%.3000s", rc, want, out)

/* Every regular file under dir, as paths relative to it (sorted). */
typedef struct { int n; char p[256][512]; } flist;
static flist *LIST;
static size_t LIST_ROOT;

static int list_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  /* anything that is not a folder counts */
  if (flag != FTW_D && flag != FTW_DNR && flag != FTW_DP && LIST->n < 256)
    snprintf(LIST->p[LIST->n++], 512, "%s", p + LIST_ROOT + 1);
  return 0;
}

static int cmp_p(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static flist *list_files(const char *dir) {
  flist *l = calloc(1, sizeof *l);
  struct stat st;
  if (stat(dir, &st) == 0) {
    LIST = l;
    LIST_ROOT = strlen(dir);
    nftw(dir, list_one, 16, FTW_PHYS);
    qsort(l->p, (size_t)l->n, sizeof l->p[0], cmp_p);
  }
  return l;
}

static int count_files(const char *dir) {
  flist *l = list_files(dir);
  int n = l->n;
  free(l);
  return n;
}

static int has_caret_line(const char *out) {
  for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    const char *q = p;
    while (*q == ' ') q++;
    if (*q == '^' && (q[1] == '\n' || q[1] == 0) && q > p) return 1;
  }
  return 0;
}

static void locate(const char *text, const char *needle, int *line, int *col) {
  const char *p = strstr(text, needle);
  ck_assert_msg(p != NULL, "test bug: '%s' not in the spec", needle);
  int l = 1, c = 1;
  for (const char *q = text; q < p; q++) {
    if (*q == '\n') { l++; c = 1; }
    else c++;
  }
  *line = l;
  *col = c;
}

#define GOOD GOOD_DIMS("dims: {K: 64, V: 32}\n") "chunk: 32\n"
#define GOOD_DIMS(dims)                                                                                        \
  "family: cli_ssd\n"                                                                                          \
  dims                                                                                                         \
  "inputs:\n"                                                                                                  \
  "  q: [K]\n"                                                                                                 \
  "  k: [K]\n"                                                                                                 \
  "  v: [V]\n"                                                                                                 \
  "  g: scalar_log_decay\n"                                                                                    \
  "state:\n"                                                                                                   \
  "  S: {shape: [V, K], update: \"exp(g) * S + v k'\"}\n"                                                      \
  "readout:\n"                                                                                                 \
  "  y: \"scale * S q\"\n"

/* ---- basics ---------------------------------------------------------------- */

START_TEST(help_and_version) {
  char *out;
  int rc = run(&out, "--help", NULL);
  ck_rc(rc, 0, out);
  ck_has(out, "usage: ssmc");
  ck_has(out, "gen");
  ck_has(out, "check");
  free(out);
  rc = run(&out, "--version", NULL);
  ck_rc(rc, 0, out);
  ck_assert_msg(strncmp(out, "ssmc ", 5) == 0, "version: %s", out);
  free(out);
  rc = run(&out, "check", "--help", NULL); /* after a command too */
  ck_rc(rc, 0, out);
  ck_has(out, "usage: ssmc");
  ck_has(out, "cuda-emu");
  free(out);
}
END_TEST

START_TEST(usage_errors) {
  char *out;
  int rc = run(&out, "frobnicate", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "unknown command 'frobnicate'");
  free(out);
  rc = run(&out, NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "usage:");
  free(out);
  rc = run(&out, "gen", "--bogus", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "unknown option '--bogus'");
  free(out);
  write_file(path_in("s.yaml"), GOOD);
  rc = run(&out, "gen", path_in("s.yaml"), NULL); /* a spec needs -o */
  ck_rc(rc, 2, out);
  free(out);
  rc = run(&out, "gen", "--check", path_in("s.yaml"), NULL);
  ck_rc(rc, 2, out);
  free(out);
  rc = run(&out, "gen", path_in("s.yaml"), "-o", NULL); /* -o without a value */
  ck_rc(rc, 2, out);
  free(out);
  ck_assert_int_eq(count_files(TMP), 1);
}
END_TEST

/* ---- bad specs ------------------------------------------------------------- */

typedef struct {
  const char *name, *text;
  const char *at;   /* where the error points (first occurrence), or NULL: line/col below */
  int line, col;
  const char *has;
} bad_case;

static const bad_case BAD[] = {
    {"malformed YAML", "family: t\n  dims: {K: 128}\n", NULL, 2, 7, "YAML syntax"},
    {"unknown key", GOOD "readuot:\n  z: 1\n", "readuot", 0, 0, "unknown key 'readuot'"},
    {"bad shape",
     "family: t\ndims: {K: 64, V: 32}\ninputs:\n  q: [K]\n  k: [K]\n  v: [V]\n"
     "state:\n  S: {shape: [V, K], update: \"S + k\"}\nreadout:\n  y: \"S q\"\n",
     "S + k", 0, 0, "shape mismatch"},
    {"unsupported structure",
     "family: t\ndims: {K: 64, V: 32}\ninputs:\n  q: [K]\n  k: [K]\n  v: [V]\n  beta: unit\n"
     "state:\n  S: {shape: [V, K], update: \"beta * S + v k'\"}\nreadout:\n  y: \"S q\"\n",
     "beta * S", 0, 0, "a decay must be written exp("},
    {"Lua error", GOOD "constants:\n  c: !lua \"1 + nil\"\n", "1 + nil", 0, 0, "Lua: "},
    {"runaway Lua", GOOD "constants:\n  c: !lua \"(function() while true do end end)()\"\n", "(function()", 0, 0,
     "instruction budget exceeded"},
    {"Lua memory bomb", GOOD "constants:\n  c: !lua \"#string.rep('x', 1e9)\"\n", "#string", 0, 0,
     "memory limit exceeded"},
    {"forbidden library", GOOD "constants:\n  c: !lua \"io.open('x')\"\n", "io.open", 0, 0, "'io' is not available"},
    {"chunk not a power of two", GOOD_DIMS("dims: {K: 64, V: 32}\n") "chunk: 48\n", "48", 0, 0, "power of two"},
    {"tiles that do not divide", GOOD "tiles: {bk: [48], bv: [32]}\n", "{bk: [48]", 0, 0, "must divide K=64"},
    /* the CPU blocking's limits point at the value that breaks them, not at the top of the file */
    {"chunk below 16", GOOD_DIMS("dims: {K: 64, V: 32}\n") "chunk: 8\n", "8\n", 0, 0, "chunk is 8"},
    {"K below 16", GOOD_DIMS("dims: {K: 8, V: 32}\n"), "8, V", 0, 0, "K is 8"},
    {"V below 16", GOOD_DIMS("dims: {K: 64, V: 8}\n"), "8}", 0, 0, "bv is 8"},
};

START_TEST(gen_bad_spec) {
  const bad_case *c = &BAD[_i];
  const char *spec = path_in("bad.yaml"), *outdir = path_in("out");
  write_file(spec, c->text);
  int line = c->line, col = c->col;
  if (c->at) locate(c->text, c->at, &line, &col);
  char *out;
  int rc = run(&out, "gen", spec, "-o", outdir, NULL);
  ck_assert_msg(rc == 2, "%s: exit %d, expected 2:\n%s", c->name, rc, out);
  char head[1200];
  snprintf(head, sizeof head, "%s:%d:%d: error:", spec, line, col);
  ck_assert_msg(strstr(out, head) != NULL, "%s: output lacks '%s':\n%s", c->name, head, out);
  ck_assert_msg(strstr(out, c->has) != NULL, "%s: output lacks '%s':\n%s", c->name, c->has, out);
  ck_assert_msg(has_caret_line(out), "%s: no caret line:\n%s", c->name, out);
  ck_assert_msg(count_files(outdir) == 0, "%s: files were written to the output folder", c->name);
  /* the same through check */
  free(out);
  rc = run(&out, "check", spec, "--quick", NULL);
  ck_assert_msg(rc == 2, "%s: check exit %d, expected 2:\n%s", c->name, rc, out);
  ck_assert_msg(strstr(out, head) != NULL, "%s: check output lacks '%s':\n%s", c->name, head, out);
  free(out);
  ck_assert_int_eq(count_files(TMP), 1); /* only bad.yaml (no cache, no output) */
}
END_TEST

START_TEST(gen_missing_file) {
  const char *spec = path_in("nope.yaml"), *outdir = path_in("out");
  char *out;
  int rc = run(&out, "gen", spec, "-o", outdir, NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "error:");
  ck_has(out, spec);
  ck_assert_int_eq(count_files(TMP), 0);
  struct stat st;
  ck_assert_int_ne(stat(outdir, &st), 0);
  free(out);
}
END_TEST

/* ---- writing ---------------------------------------------------------------- */

START_TEST(gen_unwritable_folder) {
  write_file(path_in("s.yaml"), GOOD);
  write_file(path_in("file"), "a regular file\n");
  char *out;
  int rc = run(&out, "gen", path_in("s.yaml"), "-o", path_in("file/out"), NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "error:");
  free(out);
  flist *l = list_files(TMP);
  ck_assert_int_eq(l->n, 2);
  ck_assert_str_eq(l->p[0], "file");
  ck_assert_str_eq(l->p[1], "s.yaml");
  free(l);
  char *t = slurp(path_in("file"), NULL);
  ck_assert_str_eq(t, "a regular file\n");
  free(t);
  /* a file in the way of the family folder: the first kernel cannot be
   * written, and nothing else is */
  mkdir(path_in("o"), 0777);
  write_file(path_in("o/cli_ssd"), "x");
  rc = run(&out, "gen", path_in("s.yaml"), "-o", path_in("o"), NULL);
  ck_rc(rc, 2, out);
  free(out);
  l = list_files(path_in("o"));
  ck_assert_int_eq(l->n, 1);
  ck_assert_str_eq(l->p[0], "cli_ssd");
  free(l);
}
END_TEST

static void ck_same_tree(const char *d1, const char *d2) {
  flist *a = list_files(d1), *b = list_files(d2);
  ck_assert_int_gt(a->n, 0);
  ck_assert_int_eq(a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    ck_assert_str_eq(a->p[i], b->p[i]);
    char p1[1100], p2[1100];
    snprintf(p1, sizeof p1, "%s/%s", d1, a->p[i]);
    snprintf(p2, sizeof p2, "%s/%s", d2, b->p[i]);
    size_t n1, n2;
    char *x = slurp(p1, &n1), *y = slurp(p2, &n2);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_msg(n1 == n2 && !memcmp(x, y, n1), "%s differs between two runs", a->p[i]);
    free(x);
    free(y);
  }
  free(a);
  free(b);
}

START_TEST(gen_deterministic) {
  mkdir(path_in("a"), 0777);
  mkdir(path_in("b"), 0777);
  write_file(path_in("a/spec.yaml"), GOOD);
  write_file(path_in("b/another_name.yaml"), GOOD);
  char *out;
  int rc = run(&out, "gen", path_in("a/spec.yaml"), "-o", path_in("o1"), NULL);
  ck_rc(rc, 0, out);
  free(out);
  flist *l = list_files(path_in("o1"));
  ck_assert_int_eq(l->n, 6); /* f32 and bf16 kernels (.c and .cu), manifest, table */
  ck_assert_str_eq(l->p[4], "manifest.txt");
  ck_assert_str_eq(l->p[5], "ssmc_builtin.c");
  ck_assert(strncmp(l->p[0], "cli_ssd/", 8) == 0);
  free(l);
  sleep(1); /* a timestamp with second resolution would now differ */
  rc = run(&out, "gen", "b/another_name.yaml", "-o", "o2", NULL);
  ck_rc(rc, 0, out);
  free(out);
  ck_same_tree(path_in("o1"), path_in("o2"));
  /* again into the same folder: replaced by identical bytes, nothing left over */
  rc = run(&out, "gen", path_in("a/spec.yaml"), "-o", path_in("o2"), NULL);
  ck_rc(rc, 0, out);
  free(out);
  ck_same_tree(path_in("o1"), path_in("o2"));
}
END_TEST

static void ck_clean(const char *name, const char *text, const char *bad) {
  ck_assert_msg(strstr(text, bad) == NULL, "%s contains '%s'", name, bad);
}

START_TEST(gen_no_paths_no_time) {
  write_file(path_in("spec.yaml"), GOOD);
  char *out;
  int rc = run(&out, "gen", path_in("spec.yaml"), "-o", path_in("o"), NULL);
  ck_rc(rc, 0, out);
  free(out);
  static const char *const pats[] = {
      "[0-9]{2}:[0-9]{2}:[0-9]{2}",
      "(19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]",
      "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]{1,2},? +(19|20)[0-9]{2}",
      "__DATE__|__TIME__|__TIMESTAMP__",
  };
  regex_t re[4];
  for (int i = 0; i < 4; i++) ck_assert_int_eq(regcomp(&re[i], pats[i], REG_EXTENDED | REG_NOSUB), 0);
  flist *l = list_files(path_in("o"));
  ck_assert_int_eq(l->n, 6);
  const char *home = getenv("HOME");
  for (int i = 0; i < l->n; i++) {
    char p[1100];
    snprintf(p, sizeof p, "%s/o/%s", TMP, l->p[i]);
    char *t = slurp(p, NULL);
    ck_assert_ptr_nonnull(t);
    ck_clean(l->p[i], t, "/work");
    ck_clean(l->p[i], t, TMP);
    ck_clean(l->p[i], t, SSMC_SOURCE_DIR);
    ck_clean(l->p[i], t, "/tmp/");
    ck_clean(l->p[i], t, "spec.yaml");
    if (home && strlen(home) > 1) ck_clean(l->p[i], t, home);
    for (int k = 0; k < 4; k++)
      ck_assert_msg(regexec(&re[k], t, 0, NULL, 0) != 0, "%s matches the timestamp pattern %s", l->p[i], pats[k]);
    free(t);
  }
  free(l);
  for (int i = 0; i < 4; i++) regfree(&re[i]);
}
END_TEST

/* ---- gen --check ------------------------------------------------------------ */

START_TEST(gen_check_committed_tree) {
  char *out;
  int rc = run(&out, "gen", "--check", "--root", SSMC_SOURCE_DIR, NULL);
  ck_rc(rc, 0, out);
  ck_has(out, "up to date");
  free(out);
}
END_TEST

START_TEST(gen_check_detects_template_change) {
  char src[1100];
  snprintf(src, sizeof src, "%s/templates/cpu_kernel.c.tpl", SSMC_SOURCE_DIR);
  size_t n;
  char *tpl = slurp(src, &n);
  ck_assert_ptr_nonnull(tpl);
  mkdir(path_in("tpl"), 0777);
  FILE *f = fopen(path_in("tpl/cpu_kernel.c.tpl"), "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(tpl, 1, n, f);
  if (n && tpl[n - 1] != '\n') fputc('\n', f);
  fputs("/* a harmless extra line of output */\n", f);
  fclose(f);
  free(tpl);
  static const char *const same[] = {"cuda_kernel.cu.tpl", "cpu_bwd.c.tpl", "cuda_bwd.cu.tpl"}; /* unchanged */
  for (int i = 0; i < 3; i++) {
    char dst[64];
    snprintf(src, sizeof src, "%s/templates/%s", SSMC_SOURCE_DIR, same[i]);
    snprintf(dst, sizeof dst, "tpl/%s", same[i]);
    tpl = slurp(src, &n);
    ck_assert_ptr_nonnull(tpl);
    f = fopen(path_in(dst), "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(tpl, 1, n, f);
    fclose(f);
    free(tpl);
  }
  char *out;
  int rc = run(&out, "gen", "--check", "--root", SSMC_SOURCE_DIR, "--templates", path_in("tpl"), NULL);
  ck_rc(rc, 1, out);
  ck_has(out, "--- a/generated/");
  ck_has(out, "+++ b/generated/");
  ck_has(out, "\n@@ -");
  ck_has(out, "\n+/* a harmless extra line of output */\n");
  ck_has(out, "differs");
  free(out);
  /* --check wrote nothing: the tree still checks clean */
  rc = run(&out, "gen", "--check", "--root", SSMC_SOURCE_DIR, NULL);
  ck_rc(rc, 0, out);
  free(out);
  /* an unchanged copy of the templates checks clean */
  snprintf(src, sizeof src, "%s/templates/cpu_kernel.c.tpl", SSMC_SOURCE_DIR);
  f = fopen(path_in("tpl/cpu_kernel.c.tpl"), "wb");
  tpl = slurp(src, &n);
  fwrite(tpl, 1, n, f);
  fclose(f);
  free(tpl);
  rc = run(&out, "gen", "--check", "--root", SSMC_SOURCE_DIR, "--templates", path_in("tpl"), NULL);
  ck_rc(rc, 0, out);
  free(out);
}
END_TEST

/* ---- check -------------------------------------------------------------------- */

START_TEST(check_user_spec_in_process) {
  char src[1100];
  snprintf(src, sizeof src, "%s/dsl/families/mamba2.yaml", SSMC_SOURCE_DIR);
  char *t = slurp(src, NULL);
  ck_assert_ptr_nonnull(t);
  /* the built-in mamba2, renamed and resized */
  char spec[4096] = "";
  for (char *tok = strtok(t, "\n"); tok; tok = strtok(NULL, "\n")) {
    const char *line = tok;
    if (!strncmp(line, "family:", 7)) line = "family: my_ssd";
    else if (!strncmp(line, "dims:", 5)) line = "dims: {K: 64, V: 32}";
    else if (!strncmp(line, "chunk:", 6)) line = "chunk: 32";
    else if (!strncmp(line, "tiles:", 6)) line = "tiles: {bk: [32, 64], bv: [32], default: {bk: 64, bv: 32}}";
    strncat(spec, line, sizeof spec - strlen(spec) - 2);
    strcat(spec, "\n");
  }
  free(t);
  ck_assert(strstr(spec, "family: my_ssd\n") && strstr(spec, "dims: {K: 64, V: 32}\n") && strstr(spec, "chunk: 32\n"));
  write_file(path_in("my_ssd.yaml"), spec);
  char *out;
  int rc = run(&out, "check", path_in("my_ssd.yaml"), "--quick", NULL);
  ck_rc(rc, 0, out);
  ck_has(out, "compiled in-process");
  ck_has(out, "ssmc_my_ssd_");
  ck_has(out, "_k64v32_c32_bk64bv32_");
  ck_has(out, "comparisons passed");
  ck_assert_msg(strstr(out, "FAIL") == NULL, "a comparison failed:\n%s", out);
  free(out);
  /* the same spec through gen */
  rc = run(&out, "gen", path_in("my_ssd.yaml"), "-o", path_in("o"), NULL);
  ck_rc(rc, 0, out);
  free(out);
  ck_assert_int_eq(count_files(path_in("o")), 6); /* .c and .cu per dtype, manifest, table */
}
END_TEST

START_TEST(check_unknown_backend) {
  write_file(path_in("s.yaml"), GOOD);
  char *out;
  int rc = run(&out, "check", path_in("s.yaml"), "--quick", "--backend", "metal", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "unknown backend 'metal'");
  free(out);
  /* this machine has no GPU: --backend cuda says what is missing, exit 2 */
  rc = run(&out, "check", path_in("s.yaml"), "--quick", "--backend", "cuda", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "CUDA driver");
  free(out);
  rc = run(&out, "bench", path_in("s.yaml"), "--backend", "cuda", NULL);
  ck_rc(rc, 2, out);
  free(out);
}
END_TEST

/* bench --rows: a name that is no row is refused before anything runs (exit 2, the name quoted), and the
 * list only picks rows of the GPU bench */
START_TEST(bench_rows_option) {
  write_file(path_in("s.yaml"), GOOD);
  char *out;
  int rc = run(&out, "bench", path_in("s.yaml"), "--backend", "cuda", "--rows", "bwd,fwd+bwd-saveed", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "no row 'fwd+bwd-saveed'");
  free(out);
  rc = run(&out, "bench", path_in("s.yaml"), "--rows", "fwd-", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "no row 'fwd-'");
  free(out);
  rc = run(&out, "bench", path_in("s.yaml"), "--rows", "bwd-saved", NULL);
  ck_rc(rc, 2, out);
  ck_has(out, "GPU bench");
  free(out);
  char err[200];
  ck_assert_int_eq(bench_rows_check("fwd,fwd-fused90,bwd-narrow,fwd+bwd,bwd-saved,fwd+bwd-saved,decode", err, sizeof err), 0);
  ck_assert_int_eq(bench_rows_check("bwd,,decode", err, sizeof err), -1);
  ck_assert_int_eq(bench_row_wanted(NULL, "fwd-split"), 1);
  ck_assert_int_eq(bench_row_wanted("bwd,fwd-split", "fwd-split"), 1);
  ck_assert_int_eq(bench_row_wanted("bwd,fwd-split", "bwd"), 1);
  ck_assert_int_eq(bench_row_wanted("bwd,fwd-split", "fwd"), 0);
  ck_assert_int_eq(bench_row_wanted("bwd-saved", "bwd"), 0);
  ck_assert_int_eq(bench_row_wanted("fwd+bwd-saved", "fwd+bwd"), 0);
}
END_TEST

Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_add_unchecked_fixture(tc, setup_root, teardown_root);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, help_and_version);
  tcase_add_test(tc, usage_errors);
  tcase_add_test(tc, bench_rows_option);
  tcase_add_loop_test(tc, gen_bad_spec, 0, (int)(sizeof BAD / sizeof *BAD));
  tcase_add_test(tc, gen_missing_file);
  tcase_add_test(tc, gen_unwritable_folder);
  tcase_add_test(tc, gen_deterministic);
  tcase_add_test(tc, gen_no_paths_no_time);
  tcase_add_test(tc, gen_check_committed_tree);
  tcase_add_test(tc, gen_check_detects_template_change);
  tcase_add_test(tc, check_user_spec_in_process);
  tcase_add_test(tc, check_unknown_backend);
  suite_add_tcase(s, tc);
  return s;
}
