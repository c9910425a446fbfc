/* runtime stage: byte-level BPE tokenizer (see tok_bpe.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tok_bpe.h"
#include <jansson.h>
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *GPT2_RE =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

typedef struct { char *key; int val; } hent;
typedef struct { hent *e; size_t cap; } htab;

static uint64_t hstr(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}
static void hput(htab *t, const char *k, int v) {
  size_t i = hstr(k, strlen(k)) & (t->cap - 1);
  while (t->e[i].key) {
    if (!strcmp(t->e[i].key, k)) { t->e[i].val = v; return; }
    i = (i + 1) & (t->cap - 1);
  }
  t->e[i].key = strdup(k);
  t->e[i].val = v;
}
static int hget(const htab *t, const char *k, size_t n) {
  size_t i = hstr(k, n) & (t->cap - 1);
  while (t->e[i].key) {
    if (strlen(t->e[i].key) == n && !memcmp(t->e[i].key, k, n)) return t->e[i].val;
    i = (i + 1) & (t->cap - 1);
  }
  return -1;
}
static void hinit(htab *t, size_t n) {
  t->cap = 16;
  while (t->cap < 2 * n + 16) t->cap *= 2;
  t->e = calloc(t->cap, sizeof *t->e);
}
static void hfree(htab *t) {
  for (size_t i = 0; i < t->cap; i++) free(t->e[i].key);
  free(t->e);
}

typedef struct { char *s; int id; int special; } added;

struct tok_bpe {
  htab vocab, merges;
  char **id2tok;
  int n_ids;
  added *add;
  int n_add;
  pcre2_code *re[2];
  int n_re;
  int byte_level, ignore_merges;
  char b2u[256][4];   /* byte -> UTF-8 of its byte-level char */
  int u2b[512];       /* code point -> byte, for decoding */
};

static void byte_map(tok_bpe *t) {
  int n = 0;
  for (int i = 0; i < 512; i++) t->u2b[i] = -1;
  for (int b = 0; b < 256; b++) {
    int cp = ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) ? b : 256 + n++;
    if (cp < 128) { t->b2u[b][0] = (char)cp; t->b2u[b][1] = 0; }
    else { t->b2u[b][0] = (char)(0xC0 | (cp >> 6)); t->b2u[b][1] = (char)(0x80 | (cp & 63)); t->b2u[b][2] = 0; }
    t->u2b[cp] = b;
  }
}

void tok_free(tok_bpe *t) {
  if (!t) return;
  hfree(&t->vocab);
  hfree(&t->merges);
  for (int i = 0; i < t->n_ids; i++) free(t->id2tok[i]);
  free(t->id2tok);
  for (int i = 0; i < t->n_add; i++) free(t->add[i].s);
  free(t->add);
  for (int i = 0; i < t->n_re; i++) pcre2_code_free(t->re[i]);
  free(t);
}

static int add_re(tok_bpe *t, const char *pat, const char *path, rt_diag *d) {
  int ec;
  PCRE2_SIZE eo;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &ec, &eo, NULL);
  if (!re) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(ec, msg, sizeof msg);
    return rt_err(d, path, "pre_tokenizer regex at offset %zu: %s", (size_t)eo, (char *)msg);
  }
  if (t->n_re == 2) { pcre2_code_free(re); return rt_err(d, path, "more than two pre-tokenizer regexes"); }
  t->re[t->n_re++] = re;
  return 0;
}

static int read_pre(tok_bpe *t, json_t *p, const char *path, rt_diag *d) {
  if (!p || json_is_null(p)) return 0;
  const char *ty = json_string_value(json_object_get(p, "type"));
  if (!ty) return rt_err(d, path, "pre_tokenizer without a type");
  if (!strcmp(ty, "Sequence")) {
    json_t *a = json_object_get(p, "pretokenizers");
    for (size_t i = 0; i < json_array_size(a); i++)
      if (read_pre(t, json_array_get(a, i), path, d)) return -1;
    return 0;
  }
  if (!strcmp(ty, "Split")) {
    const char *re = json_string_value(json_object_get(json_object_get(p, "pattern"), "Regex"));
    const char *beh = json_string_value(json_object_get(p, "behavior"));
    if (!re || !beh || strcmp(beh, "Isolated") || json_is_true(json_object_get(p, "invert")))
      return rt_err(d, path, "pre_tokenizer Split: only a Regex pattern with behavior Isolated is supported");
    return add_re(t, re, path, d);
  }
  if (!strcmp(ty, "ByteLevel")) {
    t->byte_level = 1;
    if (json_is_true(json_object_get(p, "add_prefix_space")))
      return rt_err(d, path, "pre_tokenizer ByteLevel with add_prefix_space is not supported");
    if (!json_is_false(json_object_get(p, "use_regex"))) return add_re(t, GPT2_RE, path, d);
    return 0;
  }
  return rt_err(d, path, "pre_tokenizer type '%s' is not supported (Sequence, Split, ByteLevel)", ty);
}

int tok_load(const char *path, tok_bpe **out, rt_diag *d) {
  *out = NULL;
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  if (!j) return rt_err(d, path, "malformed JSON at line %d, column %d: %s", je.line, je.column, je.text);
  tok_bpe *t = calloc(1, sizeof *t);
  byte_map(t);
  json_t *model = json_object_get(j, "model"), *vocab = json_object_get(model, "vocab"), *merges = json_object_get(model, "merges");
  json_t *norm = json_object_get(j, "normalizer");
  int rc = 0;
  if (!json_is_object(model) || !json_is_string(json_object_get(model, "type")) ||
      strcmp(json_string_value(json_object_get(model, "type")), "BPE"))
    rc = rt_err(d, path, "model.type must be \"BPE\"");
  else if (!json_is_object(vocab) || !json_is_array(merges)) rc = rt_err(d, path, "model.vocab (object) and model.merges (list) are required");
  else if (norm && !json_is_null(norm)) rc = rt_err(d, path, "a normalizer is not supported");
  else rc = read_pre(t, json_object_get(j, "pre_tokenizer"), path, d);
  if (!rc) {
    t->ignore_merges = json_is_true(json_object_get(model, "ignore_merges"));
    json_t *at = json_object_get(j, "added_tokens");
    hinit(&t->vocab, json_object_size(vocab) + json_array_size(at));
    const char *k;
    json_t *v;
    int maxid = -1;
    json_object_foreach(vocab, k, v) {
      if (!json_is_integer(v) || json_integer_value(v) < 0) { rc = rt_err(d, path, "model.vocab['%s'] is not an id", k); break; }
      hput(&t->vocab, k, (int)json_integer_value(v));
      if (json_integer_value(v) > maxid) maxid = (int)json_integer_value(v);
    }
    t->add = calloc(json_array_size(at) + 1, sizeof *t->add);
    for (size_t i = 0; !rc && i < json_array_size(at); i++) {
      json_t *e = json_array_get(at, i);
      const char *c = json_string_value(json_object_get(e, "content"));
      json_t *id = json_object_get(e, "id");
      if (!c || !json_is_integer(id)) { rc = rt_err(d, path, "added_tokens[%zu] needs content and id", i); break; }
      t->add[t->n_add++] = (added){strdup(c), (int)json_integer_value(id), json_is_true(json_object_get(e, "special"))};
      hput(&t->vocab, c, (int)json_integer_value(id));
      if (json_integer_value(id) > maxid) maxid = (int)json_integer_value(id);
    }
    t->n_ids = maxid + 1;
    t->id2tok = calloc((size_t)t->n_ids + 1, sizeof *t->id2tok);
    json_object_foreach(vocab, k, v) if (!t->id2tok[json_integer_value(v)]) t->id2tok[json_integer_value(v)] = strdup(k);
    for (int i = 0; i < t->n_add; i++) { free(t->id2tok[t->add[i].id]); t->id2tok[t->add[i].id] = strdup(t->add[i].s); }
    hinit(&t->merges, json_array_size(merges));
    for (size_t i = 0; !rc && i < json_array_size(merges); i++) {
      json_t *e = json_array_get(merges, i);
      char key[1024];
      if (json_is_string(e)) {
        const char *s = json_string_value(e), *sp = strchr(s, ' ');
        if (!sp) { rc = rt_err(d, path, "model.merges[%zu] is not \"a b\"", i); break; }
        snprintf(key, sizeof key, "%.*s\x01%s", (int)(sp - s), s, sp + 1);
      } else if (json_is_array(e) && json_array_size(e) == 2 && json_is_string(json_array_get(e, 0))) {
        snprintf(key, sizeof key, "%s\x01%s", json_string_value(json_array_get(e, 0)), json_string_value(json_array_get(e, 1)));
      } else { rc = rt_err(d, path, "model.merges[%zu] is malformed", i); break; }
      hput(&t->merges, key, (int)i);
    }
  }
  json_decref(j);
  if (rc) { tok_free(t); return -1; }
  *out = t;
  return 0;
}

int tok_vocab_size(const tok_bpe *t) { return t->n_ids; }
int tok_id(const tok_bpe *t, const char *s) { return hget(&t->vocab, s, strlen(s)); }

/* BPE on one pre-token (already byte-level mapped) */
static int bpe_piece(const tok_bpe *t, const char *s, size_t n, int *ids, int cap, int nout) {
  if (t->ignore_merges) {
    int id = hget(&t->vocab, s, n);
    if (id >= 0) { if (nout < cap) ids[nout] = id; return nout + 1; }
  }
  /* symbols: start offsets of UTF-8 characters */
  int ns = 0, st[n + 1], ln[n + 1];
  for (size_t i = 0; i < n;) {
    size_t l = 1;
    while (i + l < n && ((unsigned char)s[i + l] & 0xC0) == 0x80) l++;
    st[ns] = (int)i, ln[ns] = (int)l, ns++;
    i += l;
  }
  char key[2 * n + 2];
  for (;;) {
    int best = -1, brank = 0;
    for (int i = 0; i + 1 < ns; i++) {
      memcpy(key, s + st[i], (size_t)ln[i]);
      key[ln[i]] = 1;
      memcpy(key + ln[i] + 1, s + st[i + 1], (size_t)ln[i + 1]);
      int r = hget(&t->merges, key, (size_t)(ln[i] + 1 + ln[i + 1]));
      if (r >= 0 && (best < 0 || r < brank)) best = i, brank = r;
    }
    if (best < 0) break;
    ln[best] += ln[best + 1];
    memmove(st + best + 1, st + best + 2, sizeof(int) * (size_t)(ns - best - 2));
    memmove(ln + best + 1, ln + best + 2, sizeof(int) * (size_t)(ns - best - 2));
    ns--;
  }
  for (int i = 0; i < ns; i++) {
    int id = hget(&t->vocab, s + st[i], (size_t)ln[i]);
    if (id < 0) return -1;
    if (nout < cap) ids[nout] = id;
    nout++;
  }
  return nout;
}

static int encode_piece(const tok_bpe *t, const char *p, size_t n, int *ids, int cap, int nout) {
  char buf[4 * n + 1];
  size_t m = 0;
  if (t->byte_level)
    for (size_t i = 0; i < n; i++) for (const char *c = t->b2u[(unsigned char)p[i]]; *c; c++) buf[m++] = *c;
  else { memcpy(buf, p, n); m = n; }
  return m ? bpe_piece(t, buf, m, ids, cap, nout) : nout;
}

static int encode_plain(const tok_bpe *t, const char *s, size_t n, int *ids, int cap, int nout) {
  if (!t->n_re) return encode_piece(t, s, n, ids, cap, nout);
  /* first regex splits (Isolated); a second one (ByteLevel's) splits each piece again */
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(t->re[0], NULL);
  size_t pos = 0;
  while (pos < n && nout >= 0) {
    int rc = pcre2_match(t->re[0], (PCRE2_SPTR)s, n, pos, 0, md, NULL);
    size_t b = n, e = n;
    if (rc > 0) { PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md); b = ov[0], e = ov[1]; }
    if (b > pos) nout = encode_piece(t, s + pos, b - pos, ids, cap, nout);
    if (e == b) { if (b >= n) break; e = b + 1; while (e < n && ((unsigned char)s[e] & 0xC0) == 0x80) e++; }
    if (nout >= 0 && e > b) {
      if (t->n_re > 1) {
        tok_bpe sub = *t;
        sub.re[0] = t->re[1], sub.n_re = 1;
        nout = encode_plain(&sub, s + b, e - b, ids, cap, nout);
      } else nout = encode_piece(t, s + b, e - b, ids, cap, nout);
    }
    pos = e;
  }
  pcre2_match_data_free(md);
  return nout;
}

int tok_encode(const tok_bpe *t, const char *text, int *ids, int cap) {
  size_t n = strlen(text), pos = 0, seg = 0;
  int nout = 0;
  while (pos <= n && nout >= 0) {
    int hit = -1;
    size_t hl = 0;
    if (pos < n)
      for (int i = 0; i < t->n_add; i++) {
        size_t l = strlen(t->add[i].s);
        if (l > hl && !strncmp(text + pos, t->add[i].s, l)) hit = i, hl = l;
      }
    if (hit >= 0 || pos == n) {
      if (pos > seg) nout = encode_plain(t, text + seg, pos - seg, ids, cap, nout);
      if (hit < 0 || nout < 0) break;
      if (nout < cap) ids[nout] = t->add[hit].id;
      nout++;
      pos += hl;
      seg = pos;
    } else pos++;
  }
  return nout;
}

int tok_decode_one(const tok_bpe *t, int id, char *buf, int cap) {
  if (id < 0 || id >= t->n_ids || !t->id2tok[id] || cap < 1) return 0;
  const char *s = t->id2tok[id];
  int special = 0;
  for (int i = 0; i < t->n_add; i++) special |= t->add[i].id == id;
  int o = 0;
  if (special || !t->byte_level) {
    o = snprintf(buf, (size_t)cap, "%s", s);
    return o < cap ? o : cap - 1;
  }
  for (const unsigned char *c = (const unsigned char *)s; *c && o < cap - 1;) {
    int cp = *c, l = 1;
    if (cp >= 0xC0 && cp < 0xE0 && c[1]) cp = ((cp & 31) << 6) | (c[1] & 63), l = 2;
    int b = cp < 512 ? t->u2b[cp] : -1;
    if (b >= 0) buf[o++] = (char)b;
    c += l;
  }
  buf[o] = 0;
  return o;
}
