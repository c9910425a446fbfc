/* dsl stage: YAML loader. Reads a spec file with libyaml's document API and
 * turns it into ssmc's own node tree, every node carrying its exact source
 * position, so later stages can point diagnostics at the right character.
 *
 * What the loader rejects (each as one diag, first error wins):
 *   - malformed YAML (libyaml's message and problem position, prefixed
 *     "YAML syntax: ", with libyaml's context as a note)
 *   - an empty file ("empty spec"), more than one document
 *   - a top level that is not a mapping
 *   - a mapping key that is not a scalar, duplicate keys (at the second one,
 *     with a note giving the first)
 *   - anchors and aliases
 *
 * Positions are 1-based. Columns count characters (UTF-8 code points), not
 * bytes, as libyaml does; a tab counts as one column. */
#ifndef SSMC_YML_H
#define SSMC_YML_H
#include "arena.h"
#include "diag.h"

typedef enum { YML_SCALAR, YML_SEQ, YML_MAP } yml_kind;

typedef struct yml_node yml_node;
struct yml_node {
  yml_kind kind;
  int line, col;        /* 1-based position where the node starts (for a quoted scalar: the
                           quote; for a tagged node: its tag) */
  int vline, vcol;      /* 1-based position of the first character of a scalar's VALUE:
                           after the opening quote for quoted scalars; for block scalars
                           (| or >) the first content character on the next line */
  const char *tag;      /* explicit tag as written, e.g. "!lua", or NULL */
  const char *value;    /* scalar text (NUL-terminated), NULL for seq/map */
  int style;            /* 0 plain, 1 single-quoted, 2 double-quoted, 3 literal |, 4 folded > */
  int n;                /* number of items (seq) or pairs (map) */
  yml_node **items;     /* seq items in order */
  yml_node **keys;      /* map keys (always scalars) in document order */
  yml_node **vals;      /* map values, parallel to keys */
};

/* Parses the whole file. Returns the root node, or NULL after filling d. */
yml_node *yml_parse(const srcfile *f, arena *a, diag *d);
/* Map lookup by key text; NULL if absent or map is not a map. */
yml_node *yml_get(const yml_node *map, const char *key);
const char *yml_kind_name(yml_kind k);   /* "a scalar", "a list", "a mapping" for messages */

#endif
