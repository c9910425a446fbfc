/* runtime stage: a byte-level BPE tokenizer read from HF tokenizer.json:
 * added/special tokens (split out first), the pre-tokenizer (a Split regex,
 * run with PCRE2 in UTF/UCP mode, and/or ByteLevel with its GPT-2 regex),
 * byte-to-unicode mapping, merges by rank, and the ByteLevel decoder.
 * Unsupported parts (a normalizer, another model type) are errors at load. */
#ifndef TOK_BPE_H
#define TOK_BPE_H
#include "rt_diag.h"

typedef struct tok_bpe tok_bpe;

int tok_load(const char *path, tok_bpe **out, rt_diag *d);
void tok_free(tok_bpe *t);
/* Encodes UTF-8 text; returns the number of ids (writes at most cap), or -1. */
int tok_encode(const tok_bpe *t, const char *text, int *ids, int cap);
/* Appends the text of one id to buf (NUL-terminated); returns bytes written. */
int tok_decode_one(const tok_bpe *t, int id, char *buf, int cap);
int tok_vocab_size(const tok_bpe *t);
int tok_id(const tok_bpe *t, const char *token); /* -1 if absent */

#endif
