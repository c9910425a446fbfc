/* dsl stage: bump allocator for compiler data (AST, specs, plans).
 * Everything a spec produces lives in one arena and is freed at once. */
#ifndef SSMC_ARENA_H
#define SSMC_ARENA_H
#include <stddef.h>

typedef struct arena_block arena_block;
typedef struct arena { arena_block *head; } arena;

void *arena_alloc(arena *a, size_t n);          /* zeroed, 16-byte aligned */
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(arena *a);

#endif
