/* driver stage: `ssmc run` and `ssmc model show` — the CLI side of the model
 * runtime. Glues the compiler in for one thing only: an SSM layer whose spec
 * is a file (or a built-in family at other dims) is compiled in-process and
 * handed to the runtime as an ssmc_kernel. Exit codes: 0, 2 bad input. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "be.h"
#include "build.h"
#include "gen.h"
#include "mdl.h"
#include "mx.h"
#include "mx_sample.h"
#include "rt_blas.h"
#include "rt_exec.h"
#include "tok_bpe.h"

typedef struct { gen_set g; int init; build_kernel bk[64]; int nbk; const char *root; } resolver;

static const ssmc_kernel *resolve(void *ctx, const char *spec, int K, int V, rt_diag *d) {
  resolver *r = ctx;
  if (!r->init) { gen_init(&r->g); r->init = 1; }
  char path[4200];
  if (strchr(spec, '/') || strstr(spec, ".yaml")) snprintf(path, sizeof path, "%s", spec);
  else snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", r->root, spec);
  diag dg = {0};
  if (gen_add(&r->g, path, &dg)) {
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    diag_print(&dg, m);
    fclose(m);
    rt_err(d, path, "cannot compile the layer's spec:\n%s", buf ? buf : "");
    free(buf);
    return NULL;
  }
  gen_unit *u = r->g.u[r->g.n - 1];
  for (int j = 0; j < u->nk && r->nbk < 64; j++) {
    build_kernel *b = &r->bk[r->nbk];
    if (build_get(&u->k[j], &u->fam, 0, build_cache_dir(), b, &dg)) continue;
    if (b->k->dtype == SSMC_F32 && b->k->K == K && b->k->V == V) { r->nbk++; return b->k; }
    build_release(b);
  }
  rt_err(d, path, "the spec's kernels have other dims than the layer needs (K=%d, V=%d): set dims in the spec", K, V);
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int load(const char *dir, mdl_model *m, resolver *r) {
  rt_diag d = {0};
  mdl_opts o = {resolve, r};
  if (mdl_load(dir, &o, m, &d)) { rt_diag_print(&d, stderr); return 2; }
  return 0;
}

int cmd_model(int argc, char **argv) {
  if (argc < 4 || strcmp(argv[2], "show")) { fprintf(stderr, "usage: ssmc model show MODEL\n"); return 2; }
  resolver r = {.root = "."};
  mdl_model m;
  if (load(argv[3], &m, &r)) return 2;
  mdl_show(&m, stdout);
  mdl_free(&m);
  return 0;
}

static int parse_ids(const char *s, int **out) {
  int n = 0, cap = 16;
  int *v = malloc(sizeof *v * (size_t)cap);
  for (const char *p = s; *p;) {
    char *e;
    long x = strtol(p, &e, 10);
    if (e == p) { free(v); return -1; }
    if (n == cap) v = realloc(v, sizeof *v * (size_t)(cap *= 2));
    v[n++] = (int)x;
    p = *e == ',' ? e + 1 : e;
    if (*e && *e != ',') { free(v); return -1; }
  }
  *out = v;
  return n;
}

int cmd_run(int argc, char **argv) {
  const char *model = NULL, *prompt = NULL, *tokens = NULL, *batch = NULL;
  int max_new = 32, top_k = 0, threads = rt_threads(), chunk = 512, all = 0, ids_batch = 0, ignore_eos = 0, profile = 0;
  float temp = 0.f, top_p = 1.f;
  unsigned long long seed = 1;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(n) (!strcmp(a, n) && v && ++i)
    if (OPT("--prompt")) prompt = v;
    else if (OPT("--tokens")) tokens = v;
    else if (OPT("--batch")) batch = v;
    else if (OPT("--max-new")) max_new = atoi(v);
    else if (OPT("--temperature")) temp = (float)atof(v);
    else if (OPT("--top-p")) top_p = (float)atof(v);
    else if (OPT("--top-k")) top_k = atoi(v);
    else if (OPT("--seed")) seed = strtoull(v, NULL, 10);
    else if (OPT("--threads")) threads = atoi(v);
    else if (OPT("--chunked-prefill")) chunk = atoi(v);
    else if (!strcmp(a, "--all-logits")) all = 1;
    else if (!strcmp(a, "--ids")) ids_batch = 1;
    else if (!strcmp(a, "--ignore-eos")) ignore_eos = 1;
    else if (!strcmp(a, "--profile")) profile = 1;
    else if (a[0] != '-' && !model) model = a;
    else { fprintf(stderr, "ssmc: error: run: unknown or incomplete option '%s'\n", a); return 2; }
#undef OPT
  }
  (void)all;
  if (!model || (!!prompt + !!tokens + !!batch) != 1 || max_new < 0 || threads < 1 || chunk < 1 || (ids_batch && !batch)) {
    fprintf(stderr, "usage: ssmc run MODEL (--prompt TEXT | --tokens IDS | --batch FILE [--ids]) [--max-new N] "
                    "[--temperature T --top-p P --top-k K --seed S] [--threads N] [--chunked-prefill N] "
                    "[--ignore-eos] [--profile]\n");
    return 2;
  }
  resolver r = {.root = "."};
  mdl_model m;
  if (load(model, &m, &r)) return 2;
  st_prefault(m.st); /* the weights' page faults belong to loading, not to the first prefill */
  tok_bpe *tk = NULL;
  rt_diag d = {0};
  if (m.tokenizer[0] && tok_load(m.tokenizer, &tk, &d)) { rt_diag_print(&d, stderr); mdl_free(&m); return 2; }
  if ((prompt || (batch && !ids_batch)) && !tk) { fprintf(stderr, "%s: error: no tokenizer.json; use --tokens\n", model); mdl_free(&m); return 2; }
  /* prompts */
  int np = 0, *lens = NULL;
  int **ids = NULL;
  char *lines[256];
  if (batch) {
    FILE *f = fopen(batch, "r");
    if (!f) { fprintf(stderr, "%s: error: cannot open\n", batch); mdl_free(&m); return 2; }
    char *ln = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&ln, &cap, f)) > 0 && np < 256) {
      if (ln[n - 1] == '\n') ln[--n] = 0;
      if (n) lines[np++] = strdup(ln);
    }
    free(ln);
    fclose(f);
    if (!np) { fprintf(stderr, "%s: error: no prompts\n", batch); mdl_free(&m); return 2; }
  } else lines[np++] = strdup(prompt ? prompt : tokens);
  lens = calloc((size_t)np, sizeof *lens);
  ids = calloc((size_t)np, sizeof *ids);
  int maxlen = 0;
  for (int i = 0; i < np; i++) {
    if (tokens || ids_batch) {
      lens[i] = parse_ids(lines[i], &ids[i]);
      if (lens[i] < 1) { fprintf(stderr, "ssmc: error: --tokens: comma-separated ids expected\n"); return 2; }
    } else {
      int cap = (int)strlen(lines[i]) + 8;
      ids[i] = malloc(sizeof(int) * (size_t)cap);
      lens[i] = tok_encode(tk, lines[i], ids[i], cap);
      if (lens[i] < 1) { fprintf(stderr, "ssmc: error: the prompt could not be tokenized\n"); return 2; }
    }
    maxlen = lens[i] > maxlen ? lens[i] : maxlen;
  }
  be *b = be_cpu_create(threads);
  mx_opts mo = {np, maxlen + max_new + 1, chunk, threads, profile};
  mx_sess *s;
  if (mx_create(&m, be_cpu_ops(), b, &mo, &s, &d)) { rt_diag_print(&d, stderr); return 2; }
  int V = m.vocab, slots[np], next[np], alive[np], ngen[np];
  float *lg = malloc(sizeof(float) * (size_t)np * V), *scr = malloc(sizeof(float) * (size_t)V);
  int *iscr = malloc(sizeof(int) * (size_t)V), **gen = calloc((size_t)np, sizeof *gen);
  for (int i = 0; i < np; i++) { slots[i] = i; mx_reset(s, i); gen[i] = calloc((size_t)max_new + 1, sizeof(int)); ngen[i] = 0; }
  /* prefill, in pieces of `chunk` tokens so a long prompt shows progress */
  int total = 0, fed[np];
  for (int i = 0; i < np; i++) total += lens[i], fed[i] = 0;
  double t0 = now();
  int done = 0;
  while (done < total) {
    int take[np];
    const int *tp[np];
    int left = chunk;
    for (int i = 0; i < np; i++) {
      take[i] = lens[i] - fed[i] < left ? lens[i] - fed[i] : left;
      left -= take[i];
      tp[i] = ids[i] + fed[i];
    }
    if (mx_feed(s, np, slots, tp, take, lg, 0, &d)) { rt_diag_print(&d, stderr); return 2; }
    for (int i = 0; i < np; i++) { fed[i] += take[i]; done += take[i]; }
    if (total > 2048) fprintf(stderr, "\rprefill %d/%d tokens", done, total);
  }
  if (total > 2048) fprintf(stderr, "\n");
  double t1 = now();
  if (profile) { fprintf(stderr, "prefill profile:\n"); mx_profile(s, stderr); }
  mx_sampler sm = {temp, top_k, top_p};
  uint64_t rng = seed ? seed : 1;
  for (int i = 0; i < np; i++) alive[i] = max_new > 0;
  int steps = 0, produced = 0;
  for (;;) {
    int n = 0, sl[np], who[np];
    const int *tp[np];
    int one[np];
    for (int i = 0; i < np; i++) {
      if (!alive[i]) continue;
      next[i] = mx_sample(lg + (size_t)i * V, V, &sm, &rng, scr, iscr);
      gen[i][ngen[i]++] = next[i];
      produced++;
      if (ngen[i] >= max_new || (next[i] == m.eos_id && !ignore_eos)) { alive[i] = 0; continue; }
      sl[n] = slots[i], who[n] = i, tp[n] = &next[i], one[n] = 1, n++;
    }
    if (!n) break;
    float *out = lg; /* rows in `who` order, then moved to their sequence's row */
    if (mx_feed(s, n, sl, tp, one, out, 0, &d)) { rt_diag_print(&d, stderr); return 2; }
    for (int q = n - 1; q >= 0; q--)
      if (who[q] != q) memmove(lg + (size_t)who[q] * V, lg + (size_t)q * V, sizeof(float) * (size_t)V);
    steps++;
  }
  double t2 = now();
  if (profile) { fprintf(stderr, "decode profile:\n"); mx_profile(s, stderr); }
  char piece[512];
  for (int i = 0; i < np; i++) {
    if (np > 1) printf("[%d] ", i);
    if (tk) {
      for (int j = 0; j < ngen[i]; j++) { tok_decode_one(tk, gen[i][j], piece, sizeof piece); fputs(piece, stdout); }
      printf("\n");
    }
    if (tokens || ids_batch || !tk) {
      printf("ids:");
      for (int j = 0; j < ngen[i]; j++) printf("%s%d", j ? "," : " ", gen[i][j]);
      printf("\n");
    }
  }
  int dec_tok = produced - np > 0 ? produced - np : 0;
  printf("prefill: %d tokens in %.3f s (%.1f tok/s); decode: %d tokens in %.3f s (%.1f tok/s), batch %d, %d threads"
         " (OpenBLAS %s)\n", total, t1 - t0, total / (t1 - t0 > 0 ? t1 - t0 : 1e-9), dec_tok, t2 - t1,
         dec_tok / (t2 - t1 > 0 ? t2 - t1 : 1e-9), np, threads, rt_blas_core());
  (void)steps;
  mx_destroy(s);
  be_cpu_destroy(b);
  tok_free(tk);
  mdl_free(&m);
  return 0;
}
