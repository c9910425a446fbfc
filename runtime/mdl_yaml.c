/* runtime stage: reads a YAML file (libyaml) into a jansson tree, so ssmc's
 * own model file is checked by the same typed accessors as config.json.
 * Plain scalars that parse as integers, reals or true/false become numbers
 * and booleans; quoted scalars stay strings. Anchors and aliases are refused. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "mdl_ld.h"

static json_t *scalar(const yaml_node_t *n) {
  const char *v = (const char *)n->data.scalar.value;
  if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
    if (!strcmp(v, "true")) return json_true();
    if (!strcmp(v, "false")) return json_false();
    if (!strcmp(v, "null") || !strcmp(v, "~") || !*v) return json_null();
    char *e;
    errno = 0;
    long long i = strtoll(v, &e, 10);
    if (!*e && !errno) return json_integer(i);
    double d = strtod(v, &e);
    if (!*e && !errno) return json_real(d);
  }
  return json_string(v);
}

static json_t *conv(yaml_document_t *doc, yaml_node_t *n, int depth) {
  if (!n || depth > 32) return NULL;
  if (n->type == YAML_SCALAR_NODE) return scalar(n);
  if (n->type == YAML_SEQUENCE_NODE) {
    json_t *a = json_array();
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
      json_t *c = conv(doc, yaml_document_get_node(doc, *it), depth + 1);
      if (!c) { json_decref(a); return NULL; }
      json_array_append_new(a, c);
    }
    return a;
  }
  json_t *o = json_object();
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    json_t *v = conv(doc, yaml_document_get_node(doc, p->value), depth + 1);
    if (!k || k->type != YAML_SCALAR_NODE || !v) { json_decref(o); if (v) json_decref(v); return NULL; }
    json_object_set_new(o, (const char *)k->data.scalar.value, v);
  }
  return o;
}

json_t *mdl_yaml_load(const char *path, rt_diag *d) {
  FILE *f = fopen(path, "rb");
  if (!f) { rt_err(d, path, "cannot open"); return NULL; }
  yaml_parser_t p;
  yaml_document_t doc;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, f);
  json_t *j = NULL;
  if (!yaml_parser_load(&p, &doc)) {
    rt_err(d, path, "%lu:%lu: malformed YAML: %s", (unsigned long)p.problem_mark.line + 1,
           (unsigned long)p.problem_mark.column + 1, p.problem ? p.problem : "?");
  } else {
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    j = root ? conv(&doc, root, 0) : NULL;
    if (!j || !json_is_object(j)) { rt_err(d, path, "the model file must be a YAML mapping"); if (j) json_decref(j); j = NULL; }
    yaml_document_delete(&doc);
  }
  yaml_parser_delete(&p);
  fclose(f);
  return j;
}
