/* dsl stage: the embedded, sandboxed Lua 5.4 of ssmc.
 * It evaluates the small user snippets of a spec (derived constants such as
 * `K^-0.5`, tile predicates such as `bk <= K and bv <= V`) and renders the
 * kernel templates. Both run under the same sandbox:
 *   - only the base/string/table/math libraries, minus everything that reaches
 *     the host, loads code, inspects the VM or leaks addresses (io, os,
 *     package, debug, require, load, dofile, collectgarbage, print,
 *     string.dump, math.random, getmetatable, next, '%p' in string.format);
 *   - `pairs` iterates in sorted key order (numbers, then strings);
 *   - `tostring` of a table/function is just its type name; integer-valued
 *     numbers print as integers, others as %.17g;
 *   - a memory cap on the whole Lua state and an instruction budget per call;
 *   - strict globals: reading an unset global is an error ("undefined name
 *     'k'"; a withheld one says "'io' is not available in the sandbox");
 *   - setmetatable refuses __gc; xpcall's handler runs after the unwinding
 *     (Lua would run it with hooks off, outside the budget);
 *   - a fresh global table on every call: nothing leaks between calls.
 * The state stays usable after any error, out-of-memory included.
 * Known limit: the instruction budget counts VM instructions only, so a
 * pathological string pattern (e.g. '.-.-.-b' over thousands of bytes) runs
 * in C unbounded by it; the memory cap still holds. Number/string formatting
 * follows the C locale (ssmc never calls setlocale).
 *
 * Template syntax (sbx_render):
 *   - a line whose first non-blank character is `@` is a Lua statement line;
 *   - any other line is output; `${expr}` is replaced by the expression's value
 *     (integer-valued numbers as %d, others %.17g, strings verbatim, booleans
 *     true/false; nil or a table is an error naming the expression);
 *   - `$$` is a literal `$`;
 *   - helpers: f32(x) C float literal ("0.0883883476f", "1.0f"), f64(x) C double
 *     literal ("%.17g", always with '.' or 'e'), join(list[, sep = ", "]),
 *     upper(s); the compiler's context table is the global P.
 * Error lines are template lines. */
#ifndef SSMC_SBX_H
#define SSMC_SBX_H
#include <stddef.h>

/* Defaults, also used when sbx_new is given 0 for a limit. */
#define SBX_DEFAULT_MEM_CAP ((size_t)64 << 20) /* 64 MiB */
#define SBX_DEFAULT_INSTR_BUDGET 50000000L     /* 50M VM instructions per call */

typedef struct sbx sbx;
typedef struct { const char *name; double value; } sbx_var;

/* mem_cap: bytes the Lua state may hold (custom lua_Alloc refusing beyond it);
 * instr_budget: VM instructions allowed per call (count hook), reset each call.
 * 0 (or less, for the budget) selects the default. Returns NULL if the state
 * cannot be created within mem_cap. */
sbx *sbx_new(size_t mem_cap, long instr_budget);
void sbx_free(sbx *s);

/* Evaluates a user snippet. `code` is tried as an expression ("return " .. code)
 * first, else as a chunk that must `return` a value. Globals visible: the vars,
 * plus the safe library subset. Result must be a number or boolean (true=1,false=0);
 * *is_bool tells which (may be NULL). On error returns non-zero, writes a clean
 * message to msg (without the chunk-name prefix) and the 1-based line within
 * `code` to *line (0 if unknown). msg and line may be NULL.
 * Vars with an integral value are bound as Lua integers (so `K // 2` is 64).
 * A non-finite number result is an error. */
int sbx_eval(sbx *s, const char *code, const sbx_var *vars, int nvars,
             double *out, int *is_bool, char *msg, size_t msglen, int *line);

/* Renders a template. `ctx` is Lua source of a table constructor (made by the
 * compiler, trusted) bound to global P while rendering. *out is malloc'd
 * (caller frees). Errors as above, *line = template line. */
int sbx_render(sbx *s, const char *tpl_name, const char *tpl, const char *ctx,
               char **out, size_t *outlen, char *msg, size_t msglen, int *line);

#endif
