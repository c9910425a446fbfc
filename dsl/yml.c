/* dsl stage: YAML loader (see yml.h). Two passes over the text:
 *   1. libyaml's scanner, for what the document API hides: where each scalar
 *      token starts (the API gives a node's start, which for `!lua "x"` is the
 *      tag, not the value) and the first anchor or alias (the API resolves
 *      aliases into shared nodes and drops anchors without a trace).
 *   2. libyaml's document API, for the tree itself and for syntax errors.
 * libyaml marks are 0-based; `index` counts characters, not bytes, so it is
 * only used to order marks, never to index the text. */
#include "yml.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YML_MAX_DEPTH 256

typedef struct ymark { size_t index; int line, col; } ymark; /* 0-based */

typedef struct scaninfo {
  ymark *scal;              /* start of every scalar token, in order */
  int nscal, cap;
  int has_ref;              /* an anchor or alias was seen (scan stops there) */
  int ref_is_alias;
  ymark ref;
  char ref_name[64];
} scaninfo;

typedef struct ctx {
  const srcfile *f;
  arena *a;
  diag *d;
  const scaninfo *si;
  yaml_document_t *doc;
  int failed;
} ctx;

static yml_node *convert(ctx *c, yaml_node_t *yn, int depth);

/* ---- positions ---------------------------------------------------------- */

static ymark mk(yaml_mark_t m) {
  ymark r = {m.index, (int)m.line, (int)m.column};
  return r;
}

static int mark_before(ymark a, ymark b) {
  return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* Byte offset of the start of 0-based line `line`, or -1 past the end. */
static long line_offset(const srcfile *f, int line) {
  size_t i = 0;
  for (int l = 0; l < line; l++) {
    const char *nl = memchr(f->text + i, '\n', f->len - i);
    if (!nl) return -1;
    i = (size_t)(nl - f->text) + 1;
  }
  return (long)i;
}

static int utf8_lead(unsigned char ch) { return (ch & 0xC0) != 0x80; }

/* The 0-based line/column (in characters) of a byte offset. */
static ymark offset_mark(const srcfile *f, size_t off) {
  ymark m = {off, 0, 0};
  if (off > f->len) off = f->len;
  for (size_t i = 0; i < off; i++) {
    if (f->text[i] == '\n') { m.line++; m.col = 0; }
    else if (utf8_lead((unsigned char)f->text[i])) m.col++;
  }
  return m;
}

/* The character at a 0-based line/column, or 0 if there is none. */
static char char_at(const srcfile *f, ymark m) {
  long i = line_offset(f, m.line);
  if (i < 0) return 0;
  for (int col = 0; (size_t)i < f->len && f->text[i] != '\n'; i++) {
    if (!utf8_lead((unsigned char)f->text[i])) continue;
    if (col++ == m.col) return f->text[i];
  }
  return 0;
}

/* ---- errors ------------------------------------------------------------- */

static int err_at(ctx *c, ymark m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int err_at(ctx *c, ymark m, const char *fmt, ...) {
  char msg[sizeof c->d->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  c->failed = 1;
  return diag_at(c->d, c->f, m.line + 1, m.col + 1, "%s", msg);
}

static int err_node(ctx *c, const yml_node *n, const char *msg) {
  ymark m = {0, n->line - 1, n->col - 1};
  return err_at(c, m, "%s", msg);
}

/* Reports the first anchor/alias if there is one at or before `limit` (or at
 * all, when limit is NULL): an undefined alias fails the load at its own mark.
 * Returns 1 if it reported. */
static int report_ref(ctx *c, const ymark *limit) {
  const scaninfo *si = c->si;
  if (!si->has_ref || (limit && mark_before(*limit, si->ref))) return 0;
  err_at(c, si->ref, "anchors and aliases are not supported in specs");
  diag_note(c->d, "found %s '%c%s'; write the value out in full instead",
            si->ref_is_alias ? "the alias" : "the anchor", si->ref_is_alias ? '*' : '&',
            si->ref_name);
  return 1;
}

/* A short explanation appended to libyaml's own words where they are cryptic. */
static const char *syntax_hint(ctx *c, const yaml_parser_t *p, ymark at) {
  const char *prob = p->problem ? p->problem : "";
  if (p->error == YAML_READER_ERROR)
    return strstr(prob, "UTF") || strstr(prob, "octet") ? " (a spec must be UTF-8 text)" : "";
  if (char_at(c->f, at) == '\t' || strstr(prob, "tab character"))
    return " (a tab: YAML indentation must use spaces)";
  if (p->context && strstr(p->context, "quoted scalar") && strstr(prob, "end of stream"))
    return " (a quoted string is never closed)";
  return "";
}

static void syntax_error(ctx *c, const yaml_parser_t *p) {
  if (p->error == YAML_MEMORY_ERROR) {
    c->failed = 1;
    diag_at(c->d, c->f, 0, 0, "out of memory while reading YAML");
    return;
  }
  ymark at = p->error == YAML_READER_ERROR ? offset_mark(c->f, p->problem_offset)
                                           : mk(p->problem_mark);
  if (report_ref(c, &at)) return;
  err_at(c, at, "YAML syntax: %s%s", p->problem ? p->problem : "malformed YAML",
         syntax_hint(c, p, at));
  ymark cm = mk(p->context_mark);
  if (p->context && (cm.line != at.line || cm.col != at.col))
    diag_note(c->d, "%s starting at line %d, column %d", p->context, cm.line + 1, cm.col + 1);
}

/* ---- pass 1: tokens ----------------------------------------------------- */

static void add_scalar(scaninfo *si, ymark m) {
  if (si->nscal == si->cap) {
    int cap = si->cap ? si->cap * 2 : 64;
    ymark *p = realloc(si->scal, (size_t)cap * sizeof *p);
    if (!p) abort();
    si->scal = p;
    si->cap = cap;
  }
  si->scal[si->nscal++] = m;
}

static void note_token(scaninfo *si, const yaml_token_t *t) {
  if (t->type == YAML_SCALAR_TOKEN) add_scalar(si, mk(t->start_mark));
  if (t->type != YAML_ANCHOR_TOKEN && t->type != YAML_ALIAS_TOKEN) return;
  si->has_ref = 1;
  si->ref_is_alias = t->type == YAML_ALIAS_TOKEN;
  si->ref = mk(t->start_mark);
  const yaml_char_t *name = si->ref_is_alias ? t->data.alias.value : t->data.anchor.value;
  snprintf(si->ref_name, sizeof si->ref_name, "%s", name ? (const char *)name : "");
}

/* Stops at the first error (pass 2 reports it) or the first anchor/alias. */
static void scan_tokens(const srcfile *f, scaninfo *si) {
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p)) return;
  yaml_parser_set_input_string(&p, (const unsigned char *)f->text, f->len);
  for (int done = 0; !done;) {
    yaml_token_t t;
    if (!yaml_parser_scan(&p, &t)) break;
    note_token(si, &t);
    done = t.type == YAML_STREAM_END_TOKEN || si->has_ref;
    yaml_token_delete(&t);
  }
  yaml_parser_delete(&p);
}

/* The scalar token inside [start, end] of a node, if any. */
static const ymark *find_scalar_token(const scaninfo *si, yaml_mark_t start, yaml_mark_t end) {
  int lo = 0, hi = si->nscal;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (si->scal[mid].index < start.index) lo = mid + 1;
    else hi = mid;
  }
  if (lo == si->nscal || si->scal[lo].index > end.index) return NULL;
  return &si->scal[lo];
}

/* ---- pass 2: nodes ------------------------------------------------------ */

static int map_style(yaml_scalar_style_t s) {
  switch (s) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE: return 1;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return 2;
    case YAML_LITERAL_SCALAR_STYLE: return 3;
    case YAML_FOLDED_SCALAR_STYLE: return 4;
    default: return 0;
  }
}

/* Keeps only tags the user wrote: libyaml fills in str/seq/map defaults (and
 * `!!str` is indistinguishable from them). Core tags are shown as `!!name`. */
static const char *explicit_tag(arena *a, const yaml_node_t *yn) {
  static const char core[] = "tag:yaml.org,2002:";
  const char *tag = (const char *)yn->tag;
  const char *def = yn->type == YAML_SCALAR_NODE     ? YAML_DEFAULT_SCALAR_TAG
                    : yn->type == YAML_SEQUENCE_NODE ? YAML_DEFAULT_SEQUENCE_TAG
                                                     : YAML_DEFAULT_MAPPING_TAG;
  if (!tag || strcmp(tag, def) == 0) return NULL;
  if (strncmp(tag, core, sizeof core - 1) == 0)
    return arena_printf(a, "!!%s", tag + sizeof core - 1);
  return arena_strdup(a, tag);
}

static int blank_line(const char *s, const char *end) {
  while (s < end && *s == ' ') s++;
  return s == end || *s == '\n' || *s == '\r';
}

/* First content character of a block scalar whose indicator is at `ind`. */
static void block_value_pos(ctx *c, ymark ind, yml_node *n) {
  const char *v = n->value;
  v += strspn(v, "\n");
  if (!*v) return;                       /* no content: keep the indicator */
  int lead = (int)strspn(v, " ");        /* spaces kept in the value (|2 etc.) */
  const char *end = c->f->text + c->f->len;
  long off = line_offset(c->f, ind.line + 1);
  for (int line = ind.line + 1; off >= 0; line++) {
    const char *s = c->f->text + off;
    if (!blank_line(s, end)) {
      int col = (int)strspn(s, " ") - lead;
      n->vline = line + 1;
      n->vcol = (col > 0 ? col : 0) + 1;
      return;
    }
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    off = nl ? (long)(nl + 1 - c->f->text) : -1;
  }
}

static void scalar_value_pos(ctx *c, const yaml_node_t *yn, yml_node *n) {
  if (n->style == 0 && n->value[0] == 0) return;    /* empty: no token */
  const ymark *t = find_scalar_token(c->si, yn->start_mark, yn->end_mark);
  if (!t) return;
  n->vline = t->line + 1;
  n->vcol = t->col + 1;
  if (n->style == 1 || n->style == 2) n->vcol++;
  if (n->style >= 3) block_value_pos(c, *t, n);
}

static yml_node *new_node(ctx *c, const yaml_node_t *yn, yml_kind kind) {
  yml_node *n = arena_alloc(c->a, sizeof *n);
  n->kind = kind;
  n->line = n->vline = (int)yn->start_mark.line + 1;
  n->col = n->vcol = (int)yn->start_mark.column + 1;
  n->tag = explicit_tag(c->a, yn);
  return n;
}

static yml_node *conv_scalar(ctx *c, yaml_node_t *yn) {
  yml_node *n = new_node(c, yn, YML_SCALAR);
  n->value = arena_strndup(c->a, (const char *)yn->data.scalar.value, yn->data.scalar.length);
  n->style = map_style(yn->data.scalar.style);
  scalar_value_pos(c, yn, n);
  return n;
}

static yml_node *conv_seq(ctx *c, yaml_node_t *yn, int depth) {
  yml_node *n = new_node(c, yn, YML_SEQ);
  yaml_node_item_t *it = yn->data.sequence.items.start;
  n->n = (int)(yn->data.sequence.items.top - it);
  n->items = arena_alloc(c->a, (size_t)n->n * sizeof *n->items);
  for (int i = 0; i < n->n; i++) {
    n->items[i] = convert(c, yaml_document_get_node(c->doc, it[i]), depth + 1);
    if (!n->items[i]) return NULL;
  }
  return n;
}

/* Key i of map must be a scalar not seen before in the same map. */
static int check_key(ctx *c, const yml_node *map, int i) {
  const yml_node *k = map->keys[i];
  if (k->kind != YML_SCALAR) {
    char msg[96];
    snprintf(msg, sizeof msg, "a mapping key must be a scalar, not %s", yml_kind_name(k->kind));
    return err_node(c, k, msg);
  }
  for (int j = 0; j < i; j++) {
    const yml_node *first = map->keys[j];
    if (strcmp(first->value, k->value) != 0) continue;
    ymark m = {0, k->line - 1, k->col - 1};
    err_at(c, m, "duplicate key '%s'", k->value);
    diag_note(c->d, "first defined at line %d, column %d", first->line, first->col);
    return 1;
  }
  return 0;
}

static yml_node *conv_map(ctx *c, yaml_node_t *yn, int depth) {
  yml_node *n = new_node(c, yn, YML_MAP);
  yaml_node_pair_t *pr = yn->data.mapping.pairs.start;
  n->n = (int)(yn->data.mapping.pairs.top - pr);
  n->keys = arena_alloc(c->a, (size_t)n->n * sizeof *n->keys);
  n->vals = arena_alloc(c->a, (size_t)n->n * sizeof *n->vals);
  for (int i = 0; i < n->n; i++) {
    n->keys[i] = convert(c, yaml_document_get_node(c->doc, pr[i].key), depth + 1);
    if (!n->keys[i] || check_key(c, n, i)) return NULL;
    n->vals[i] = convert(c, yaml_document_get_node(c->doc, pr[i].value), depth + 1);
    if (!n->vals[i]) return NULL;
  }
  return n;
}

static yml_node *convert(ctx *c, yaml_node_t *yn, int depth) {
  if (depth > YML_MAX_DEPTH) {
    err_at(c, mk(yn->start_mark), "nesting is too deep (more than %d levels)", YML_MAX_DEPTH);
    return NULL;
  }
  switch (yn->type) {
    case YAML_SCALAR_NODE: return conv_scalar(c, yn);
    case YAML_SEQUENCE_NODE: return conv_seq(c, yn, depth);
    case YAML_MAPPING_NODE: return conv_map(c, yn, depth);
    default: err_at(c, mk(yn->start_mark), "unsupported YAML node"); return NULL;
  }
}

/* ---- driver ------------------------------------------------------------- */

static int empty_scalar(const yaml_node_t *yn) {
  return yn->type == YAML_SCALAR_NODE && yn->data.scalar.length == 0 &&
         yn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
         strcmp((const char *)yn->tag, YAML_DEFAULT_SCALAR_TAG) == 0;
}

/* Loads what follows the first document; anything there is an error. */
static int check_single_document(ctx *c, yaml_parser_t *p) {
  yaml_document_t doc2;
  if (!yaml_parser_load(p, &doc2)) {
    syntax_error(c, p);
    return 1;
  }
  if (yaml_document_get_root_node(&doc2))
    err_at(c, mk(doc2.start_mark), "more than one document: a spec file holds exactly one YAML document");
  yaml_document_delete(&doc2);
  return c->failed;
}

static yml_node *load_root(ctx *c, yaml_parser_t *p) {
  yaml_node_t *r = yaml_document_get_root_node(c->doc);
  if (report_ref(c, NULL)) return NULL;
  if (!r) {
    c->failed = 1;
    diag_at(c->d, c->f, 0, 0, "empty spec");
    return NULL;
  }
  if (check_single_document(c, p)) return NULL;
  if (empty_scalar(r)) {
    c->failed = 1;
    diag_at(c->d, c->f, 0, 0, "empty spec");
    return NULL;
  }
  if (r->type != YAML_MAPPING_NODE) {
    err_at(c, mk(r->start_mark), "a spec must be a mapping at the top level, not %s",
           yml_kind_name(r->type == YAML_SEQUENCE_NODE ? YML_SEQ : YML_SCALAR));
    return NULL;
  }
  return convert(c, r, 0);
}

yml_node *yml_parse(const srcfile *f, arena *a, diag *d) {
  scaninfo si = {0};
  scan_tokens(f, &si);
  yaml_document_t doc;
  ctx c = {f, a, d, &si, &doc, 0};
  yml_node *root = NULL;
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p)) {
    c.failed = 1;
    diag_at(d, f, 0, 0, "out of memory while reading YAML");
  } else {
    yaml_parser_set_input_string(&p, (const unsigned char *)f->text, f->len);
    if (!yaml_parser_load(&p, &doc)) {
      syntax_error(&c, &p);
    } else {
      root = load_root(&c, &p);
      yaml_document_delete(&doc);
    }
    yaml_parser_delete(&p);
  }
  free(si.scal);
  return c.failed ? NULL : root;
}

yml_node *yml_get(const yml_node *map, const char *key) {
  if (!map || map->kind != YML_MAP) return NULL;
  for (int i = 0; i < map->n; i++)
    if (strcmp(map->keys[i]->value, key) == 0) return map->vals[i];
  return NULL;
}

const char *yml_kind_name(yml_kind k) {
  switch (k) {
    case YML_SCALAR: return "a scalar";
    case YML_SEQ: return "a list";
    case YML_MAP: return "a mapping";
  }
  return "a node";
}
