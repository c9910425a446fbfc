/* tests: the in-process C compiler (compiler stage, jit.h). Compiles C in
 * memory, runs it, resolves libm from the process, maps the kernel ABI header,
 * and checks the on-disk object cache (hit, misses, corruption, unwritable). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "jit.h"
#include "ssmc_kernel.h"

#define CPU "x86-64-v3"

/* A loop the vectorizer takes, plus __builtin_expf (a call to libm's expf). */
static const char *k_src =
    "float dot_bias(const float *a, const float *b, int n, float bias) {\n"
    "  float s = 0.0f;\n"
    "  for (int i = 0; i < n; i++) s += a[i] * b[i];\n"
    "  return s + bias;\n"
    "}\n"
    "void axpy(float *restrict y, const float *restrict x, float alpha, int n) {\n"
    "  for (int i = 0; i < n; i++) y[i] += alpha * x[i];\n"
    "}\n"
    "static float helper(float x) { return __builtin_expf(x); }\n"
    "float my_exp(float x) { return helper(x) + __builtin_sqrtf(x * x); }\n";

typedef float (*dot_fn)(const float *, const float *, int, float);
typedef void (*axpy_fn)(float *, const float *, float, int);
typedef float (*exp_fn)(float);

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

/* Number of files in dir whose names end in ".o"; the last one in `last`. */
static int count_objects(const char *dir, char *last, size_t lastlen) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > 2 && strcmp(e->d_name + len - 2, ".o") == 0) {
      n++;
      if (last) snprintf(last, lastlen, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  return n;
}

/* Removes the plain files of dir, then dir itself. */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[1024];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs dot_bias and my_exp of k_src in m and checks the results. */
static void check_k_src(jit_module *m) {
  dot_fn dot = (dot_fn)jit_symbol(m, "dot_bias");
  exp_fn ex = (exp_fn)jit_symbol(m, "my_exp");
  ck_assert_ptr_nonnull(dot);
  ck_assert_ptr_nonnull(ex);
  float a[103], b[103];
  double want = 0.5;
  for (int i = 0; i < 103; i++) {
    a[i] = (float)(i % 7) - 3.0f;
    b[i] = 0.25f * (float)(i % 5);
    want += (double)a[i] * b[i];
  }
  ck_assert_double_eq_tol(dot(a, b, 103, 0.5f), want, 1e-4);
  ck_assert_double_eq_tol(ex(1.0f), exp(1.0) + 1.0, 1e-5);
  ck_assert_double_eq_tol(ex(-2.0f), exp(-2.0) + 2.0, 1e-5);
}

START_TEST(compiles_and_runs) {
  char err[4096];
  int hit = -1;
  jit_module *m = jit_compile(k_src, "k.c", NULL, CPU, NULL, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "jit_compile: %s", err);
  ck_assert_int_eq(hit, 0);
  check_k_src(m);

  axpy_fn axpy = (axpy_fn)jit_symbol(m, "axpy");
  ck_assert_ptr_nonnull(axpy);
  float y[1000], x[1000];
  for (int i = 0; i < 1000; i++) y[i] = (float)i, x[i] = 1.0f - (float)(i & 3);
  axpy(y, x, 2.0f, 999); /* odd length: vector body plus scalar tail */
  for (int i = 0; i < 999; i++) ck_assert_float_eq(y[i], (float)i + 2.0f * (1.0f - (float)(i & 3)));
  ck_assert_float_eq(y[999], 999.0f);

  /* Only the module's own global definitions are symbols. */
  ck_assert_ptr_null(jit_symbol(m, "helper"));   /* static */
  ck_assert_ptr_null(jit_symbol(m, "expf"));     /* process symbol it uses */
  ck_assert_ptr_null(jit_symbol(m, "no_such"));
  jit_free(m);
}
END_TEST

START_TEST(two_modules_coexist) {
  char err[4096];
  const char *s1 = "int which(void) { return 1; }\n";
  const char *s2 = "int which(void) { return 2; }\n";
  jit_module *m1 = jit_compile(s1, "a.c", NULL, CPU, NULL, NULL, err, sizeof err);
  ck_assert_msg(m1 != NULL, "%s", err);
  jit_module *m2 = jit_compile(s2, "b.c", NULL, CPU, NULL, NULL, err, sizeof err);
  ck_assert_msg(m2 != NULL, "%s", err);
  int (*w1)(void) = (int (*)(void))jit_symbol(m1, "which");
  int (*w2)(void) = (int (*)(void))jit_symbol(m2, "which");
  ck_assert_int_eq(w1(), 1);
  ck_assert_int_eq(w2(), 2);
  jit_free(m1);
  ck_assert_int_eq(w2(), 2);
  jit_free(m2);
  jit_free(NULL);
}
END_TEST

/* A kernel against the real ABI header, mapped in memory. */
static const char *abi_src =
    "#include \"ssmc_kernel.h\"\n"
    "#include <stddef.h>\n"
    "int abi_version(void) { return SSMC_ABI_VERSION; }\n"
    "void scale_fwd(const ssmc_fwd_args *a, int64_t item_begin, int64_t item_end, float *ws) {\n"
    "  const float *x = (const float *)a->in[0];\n"
    "  float *y = (float *)a->out;\n"
    "  for (int64_t it = item_begin; it < item_end; it++)\n"
    "    for (int64_t t = 0; t < a->t_len; t++)\n"
    "      y[it * a->t_len + t] = 2.0f * x[it * a->t_len + t] + (float)a->h_v;\n"
    "}\n"
    "ssmc_fwd_fn get_fwd(void) { return scale_fwd; }\n"
    "size_t args_size(void) { return sizeof(ssmc_fwd_args); }\n";

START_TEST(kernel_abi_header) {
  char *hdr = read_text(SSMC_SOURCE_DIR "/runtime/ssmc_kernel.h");
  ck_assert_ptr_nonnull(hdr);
  jit_header headers[] = {{"ssmc_kernel.h", hdr}, {NULL, NULL}};
  char err[4096];
  jit_module *m = jit_compile(abi_src, "abi.c", headers, CPU, NULL, NULL, err, sizeof err);
  ck_assert_msg(m != NULL, "jit_compile: %s", err);

  int (*ver)(void) = (int (*)(void))jit_symbol(m, "abi_version");
  size_t (*size)(void) = (size_t(*)(void))jit_symbol(m, "args_size");
  ssmc_fwd_fn fwd = (ssmc_fwd_fn)jit_symbol(m, "scale_fwd");
  ssmc_fwd_fn (*get)(void) = (ssmc_fwd_fn(*)(void))jit_symbol(m, "get_fwd");
  ck_assert_ptr_nonnull(fwd);
  ck_assert_int_eq(ver(), SSMC_ABI_VERSION);
  ck_assert_uint_eq(size(), sizeof(ssmc_fwd_args)); /* same layout both sides */
  ck_assert_ptr_eq((void *)get(), (void *)fwd);

  float x[4 * 37], y[4 * 37];
  for (int i = 0; i < 4 * 37; i++) x[i] = (float)i, y[i] = -1.0f;
  ssmc_fwd_args a = {0};
  a.n_seqs = 4;
  a.h_qk = a.h_v = 1;
  a.t_len = 37;
  a.in[0] = x;
  a.out = y;
  fwd(&a, 1, 3, NULL); /* items 1 and 2 only */
  for (int i = 0; i < 4 * 37; i++) {
    int item = i / 37;
    float want = (item == 1 || item == 2) ? 2.0f * (float)i + 1.0f : -1.0f;
    ck_assert_float_eq(y[i], want);
  }
  jit_free(m);
  free(hdr);
}
END_TEST

START_TEST(cache_hit_and_misses) {
  char tmpl[] = "/tmp/ssmc-jit-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  char dir[512], mid[512], top[512];
  snprintf(top, sizeof top, "%s/a", tmpl);
  snprintf(mid, sizeof mid, "%s/a/b", tmpl);
  snprintf(dir, sizeof dir, "%s/a/b/cache", tmpl); /* created with parents */
  char err[4096], obj[1024];
  int hit = -1;

  jit_module *m = jit_compile(k_src, "k.c", NULL, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 0);
  check_k_src(m);
  jit_free(m);
  ck_assert_int_eq(count_objects(dir, obj, sizeof obj), 1);
  ck_assert_int_eq(access(obj, R_OK), 0);
  const char *base = strrchr(obj, '/') + 1; /* <16 hex>.o */
  ck_assert_uint_eq(strlen(base), 18);
  ck_assert_uint_eq(strspn(base, "0123456789abcdef"), 16);

  m = jit_compile(k_src, "k.c", NULL, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 1);
  check_k_src(m);
  jit_free(m);

  /* A changed option (cpu), source or header is a miss with a new object. */
  m = jit_compile(k_src, "k.c", NULL, "x86-64", dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 0);
  check_k_src(m);
  jit_free(m);
  ck_assert_int_eq(count_objects(dir, NULL, 0), 2);

  char src2[2048];
  snprintf(src2, sizeof src2, "/* v2 */\n%s", k_src);
  m = jit_compile(src2, "k.c", NULL, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 0);
  jit_free(m);

  jit_header h[] = {{"extra.h", "#define EXTRA 1\n"}, {NULL, NULL}};
  m = jit_compile(k_src, "k.c", h, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 0);
  jit_free(m);
  ck_assert_int_eq(count_objects(dir, NULL, 0), 4);

  m = jit_compile(src2, "k.c", NULL, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 1);
  jit_free(m);

  remove_dir(dir);
  rmdir(mid);
  rmdir(top);
  ck_assert_int_eq(rmdir(tmpl), 0);
}
END_TEST

START_TEST(corrupt_cache_entry_recompiles) {
  char dir[] = "/tmp/ssmc-jit-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char err[4096], obj[1024];
  int hit = -1;
  jit_module *m = jit_compile(k_src, "k.c", NULL, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  jit_free(m);
  ck_assert_int_eq(count_objects(dir, obj, sizeof obj), 1);

  FILE *f = fopen(obj, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("not an object file", f);
  fclose(f);
  m = jit_compile(k_src, "k.c", NULL, CPU, dir, &hit, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 0);
  check_k_src(m);
  jit_free(m);

  m = jit_compile(k_src, "k.c", NULL, CPU, dir, &hit, err, sizeof err); /* rewritten */
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(hit, 1);
  jit_free(m);
  remove_dir(dir);
}
END_TEST

START_TEST(syntax_error_reports_line) {
  const char *bad =
      "int ok(void) { return 1; }\n"
      "\n"
      "int broken(void) { return 2 }\n";
  char err[4096];
  int hit = -1;
  jit_module *m = jit_compile(bad, "bad.c", NULL, CPU, NULL, &hit, err, sizeof err);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(hit, 0);
  ck_assert_msg(strstr(err, "bad.c:3:") != NULL, "err: %s", err);
  ck_assert_msg(strstr(err, "error") != NULL, "err: %s", err);

  /* A tiny err buffer is truncated, still NUL-terminated. */
  char small[8];
  memset(small, 'x', sizeof small);
  ck_assert_ptr_null(jit_compile(bad, "bad.c", NULL, CPU, NULL, NULL, small, sizeof small));
  ck_assert_uint_eq(strlen(small), 7);
}
END_TEST

START_TEST(errors_in_header_and_link) {
  char err[4096];
  jit_header h[] = {{"oops.h", "int f(void) {\n  return undeclared_thing;\n}\n"}, {NULL, NULL}};
  jit_module *m = jit_compile("#include \"oops.h\"\n", "inc.c", h, CPU, NULL, NULL, err,
                              sizeof err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err, "oops.h:2:") != NULL, "err: %s", err);

  /* Headers are only the in-memory ones and the compiler's own. */
  m = jit_compile("#include <stdio.h>\n", "inc.c", NULL, CPU, NULL, NULL, err, sizeof err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err, "stdio.h") != NULL, "err: %s", err);

  /* Unresolved externals fail at compile time, naming the symbol. */
  m = jit_compile("void ssmc_no_such_fn(void);\nvoid g(void) { ssmc_no_such_fn(); }\n", "u.c",
                  NULL, CPU, NULL, NULL, err, sizeof err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err, "ssmc_no_such_fn") != NULL, "err: %s", err);

  m = jit_compile("int x;\n", "c.c", NULL, "no-such-cpu", NULL, NULL, err, sizeof err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err, "no-such-cpu") != NULL, "err: %s", err);

  ck_assert_ptr_null(jit_compile(NULL, "n.c", NULL, CPU, NULL, NULL, err, sizeof err));
  ck_assert(strlen(err) > 0);
}
END_TEST

/* Caching is best effort: an unusable cache dir still compiles, never hits. */
START_TEST(unwritable_cache_still_compiles) {
  char err[4096];
  for (int round = 0; round < 2; round++) {
    int hit = -1;
    jit_module *m = jit_compile(k_src, "k.c", NULL, CPU, "/proc/ssmc-cache", &hit, err,
                                sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_int_eq(hit, 0);
    check_k_src(m);
    jit_free(m);
  }
  ck_assert_int_ne(access("/proc/ssmc-cache", F_OK), 0);
}
END_TEST

/* ~300 lines (317) of kernel-like C: results agree between miss and hit, and the
 * hit is faster. SSMC_JIT_TIMING=1 prints both times. */
static char *make_big_source(int nfuncs) {
  size_t cap = 64 * 1024, len = 0;
  char *s = malloc(cap);
  len += (size_t)snprintf(s + len, cap - len, "#include <stdint.h>\n");
  for (int f = 0; f < nfuncs; f++)
    len += (size_t)snprintf(s + len, cap - len,
        "float k%d(const float *restrict x, float *restrict y, int64_t n) {\n"
        "  float acc = 0.0f;\n"
        "  for (int64_t i = 0; i < n; i++) {\n"
        "    float v = x[i] * %d.5f + %d.0f;\n"
        "    float g = 1.0f / (1.0f + __builtin_expf(-v));\n"
        "    y[i] = v * g;\n"
        "    acc += y[i] * y[i];\n"
        "  }\n"
        "  for (int64_t i = 0; i < n; i++) y[i] *= 1.0f / __builtin_sqrtf(acc + 1e-6f);\n"
        "  return acc;\n"
        "}\n\n",
        f, f % 3, f % 5);
  len += (size_t)snprintf(s + len, cap - len,
      "float run_all(const float *x, float *y, int64_t n) {\n  float s = 0.0f;\n");
  for (int f = 0; f < nfuncs; f++)
    len += (size_t)snprintf(s + len, cap - len, "  s += k%d(x, y, n);\n", f);
  snprintf(s + len, cap - len, "  return s;\n}\n");
  return s;
}

START_TEST(big_source_miss_vs_hit) {
  char dir[] = "/tmp/ssmc-jit-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char *src = make_big_source(24); /* 1 + 24 * 12 + 2 + 24 + 2 = 317 lines */
  char err[4096];
  float x[257], y[257];
  for (int i = 0; i < 257; i++) x[i] = 0.01f * (float)(i - 128);
  float r[2];
  double t[2];
  for (int round = 0; round < 2; round++) {
    int hit = -1;
    double t0 = now_s();
    jit_module *m = jit_compile(src, "big.c", NULL, CPU, dir, &hit, err, sizeof err);
    t[round] = now_s() - t0;
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_int_eq(hit, round);
    float (*run)(const float *, float *, int64_t) =
        (float (*)(const float *, float *, int64_t))jit_symbol(m, "run_all");
    ck_assert_ptr_nonnull(run);
    r[round] = run(x, y, 257);
    jit_free(m);
  }
  ck_assert(isfinite(r[0]) && r[0] > 0.0f);
  ck_assert_float_eq(r[0], r[1]);
  ck_assert_msg(t[1] < t[0], "hit %.4fs not faster than miss %.4fs", t[1], t[0]);
  if (getenv("SSMC_JIT_TIMING"))
    fprintf(stderr, "jit: 317-line source: miss %.1f ms, hit %.1f ms\n", 1e3 * t[0], 1e3 * t[1]);
  free(src);
  remove_dir(dir);
}
END_TEST

START_TEST(version_string) {
  ck_assert_msg(strncmp(jit_version(), "clang 16.", 9) == 0, "%s", jit_version());
}
END_TEST

Suite *jit_suite(void) {
  Suite *s = suite_create("jit");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, compiles_and_runs);
  tcase_add_test(tc, two_modules_coexist);
  tcase_add_test(tc, kernel_abi_header);
  tcase_add_test(tc, cache_hit_and_misses);
  tcase_add_test(tc, corrupt_cache_entry_recompiles);
  tcase_add_test(tc, syntax_error_reports_line);
  tcase_add_test(tc, errors_in_header_and_link);
  tcase_add_test(tc, unwritable_cache_still_compiles);
  tcase_add_test(tc, big_source_miss_vs_hit);
  tcase_add_test(tc, version_string);
  suite_add_tcase(s, tc);
  return s;
}
