/* dsl stage: the embedded, sandboxed Lua 5.4 (see sbx.h for the rules).
 *
 * Layout of this file:
 *   1. limits: the capped allocator and the instruction-count hook;
 *   2. safe replacements: tostring, pairs (sorted), setmetatable (no __gc),
 *      string.format (no %p, no addresses), strict global/library lookups;
 *   3. state setup and the per-call fresh environment;
 *   4. running a job under lua_pcall and turning errors into (msg, line);
 *   5. sbx_eval;
 *   6. templates: the template-to-Lua compiler (one Lua line per template
 *      line), the template helpers, sbx_render.
 * Every Lua-side step runs inside one protected call, so an allocation
 * failure anywhere (the sandbox's own bookkeeping included) is an ordinary
 * error and never reaches the panic handler. */
#include "sbx.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_MSG "instruction budget exceeded (runaway loop?)"
#define HOOK_STEP 4096 /* instructions between two hook calls */
#define CHUNK_MAX 48   /* keeps chunk names under LUA_IDSIZE: prefixes stay whole */

struct sbx {
  lua_State *L;
  size_t mem_cap, mem_used;
  long budget;     /* instructions per call */
  long instr_left; /* instructions left in this call, as of the last hook */
  int hook_count;  /* the count the hook is currently set to */
  int budget_hit;  /* the budget ran out during this call (sticky) */
  int oom_hit;     /* the allocator refused a block during this call */
  int err_line;    /* line of the innermost frame of `chunk` at the error */
  char chunk[CHUNK_MAX + 2]; /* "=name" of the chunk the current call runs */
  int proto_ref;   /* registry ref: the prototype of every fresh environment */
  int envmt_ref;   /* registry ref: metatable of environments (strict lookup) */
};

static sbx *sbx_of(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  return ud;
}

/* ---- 1. limits ---------------------------------------------------------- */

static void *sbx_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sbx *s = ud;
  size_t old = ptr ? osize : 0; /* with ptr == NULL, osize encodes a type */
  if (nsize == 0) {
    free(ptr);
    s->mem_used -= old;
    return NULL;
  }
  if (nsize > old && nsize - old > s->mem_cap - s->mem_used) {
    s->oom_hit = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (!p) {
    s->oom_hit = 1;
    return NULL;
  }
  s->mem_used = s->mem_used - old + nsize;
  return p;
}

static void count_hook(lua_State *L, lua_Debug *ar);

static void set_hook(sbx *s, long count) {
  s->hook_count = count > HOOK_STEP ? HOOK_STEP : (int)count;
  lua_sethook(s->L, count_hook, LUA_MASKCOUNT, s->hook_count);
}

/* Fires every hook_count instructions. Once the budget is spent it raises on
 * every instruction, so a `pcall` in user code cannot swallow it for long. */
static void count_hook(lua_State *L, lua_Debug *ar) {
  sbx *s = sbx_of(L);
  if (!s->budget_hit) {
    s->instr_left -= s->hook_count;
    if (s->instr_left > 0) {
      if (s->instr_left < s->hook_count) set_hook(s, s->instr_left);
      return;
    }
    s->budget_hit = 1;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  }
  lua_pushliteral(L, BUDGET_MSG);
  lua_error(L);
}

/* ---- 2. safe replacements ----------------------------------------------- */

/* Deterministic number text: integer-valued as an integer, else %.17g. */
static void fmt_number(lua_State *L, int idx, char *buf, size_t n) {
  if (lua_isinteger(L, idx)) {
    snprintf(buf, n, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
    return;
  }
  double x = lua_tonumber(L, idx);
  if (isnan(x))
    snprintf(buf, n, "nan");
  else if (isinf(x))
    snprintf(buf, n, x > 0 ? "inf" : "-inf");
  else if (x == floor(x) && fabs(x) < 9.2e18)
    snprintf(buf, n, "%lld", (long long)x);
  else
    snprintf(buf, n, "%.17g", x);
}

/* Pushes the text of a string/number/boolean/nil; returns 0 (pushing
 * nothing) for any other type. */
static int push_plain(lua_State *L, int idx) {
  char buf[64];
  switch (lua_type(L, idx)) {
  case LUA_TSTRING: lua_pushvalue(L, idx); return 1;
  case LUA_TNUMBER:
    fmt_number(L, idx, buf, sizeof buf);
    lua_pushstring(L, buf);
    return 1;
  case LUA_TBOOLEAN: lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false"); return 1;
  case LUA_TNIL: lua_pushliteral(L, "nil"); return 1;
  default: return 0;
  }
}

/* tostring: honours __tostring; tables, functions... are just their type. */
static int sb_tostring(lua_State *L) {
  luaL_checkany(L, 1);
  if (luaL_callmeta(L, 1, "__tostring")) {
    if (!lua_isstring(L, -1)) return luaL_error(L, "'__tostring' must return a string");
    return 1;
  }
  if (!push_plain(L, 1)) lua_pushstring(L, luaL_typename(L, 1));
  return 1;
}

/* pairs: iterates over a snapshot of the keys, sorted: numbers ascending,
 * then strings bytewise ascending. Keys of any other type are an error. */
typedef struct {
  int idx;          /* position in the snapshot table */
  int is_str, is_int;
  lua_Integer i;
  double d;
  const char *s;
  size_t len;
} sort_key;

static int cmp_keys(const void *pa, const void *pb) {
  const sort_key *a = pa, *b = pb;
  if (a->is_str != b->is_str) return a->is_str ? 1 : -1;
  if (a->is_str) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    if (c) return c;
    return (a->len > b->len) - (a->len < b->len);
  }
  if (a->is_int && b->is_int) return (a->i > b->i) - (a->i < b->i);
  return (a->d > b->d) - (a->d < b->d);
}

/* The iterator; its upvalues are the sorted keys, the position, the table. */
static int pairs_next(lua_State *L) {
  lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
  lua_Integer n = (lua_Integer)lua_rawlen(L, lua_upvalueindex(1));
  while (++i <= n) {
    lua_rawgeti(L, lua_upvalueindex(1), i); /* key */
    lua_pushvalue(L, -1);
    if (lua_rawget(L, lua_upvalueindex(3)) != LUA_TNIL) { /* skip removed keys */
      lua_pushinteger(L, i);
      lua_replace(L, lua_upvalueindex(2));
      return 2;
    }
    lua_pop(L, 2);
  }
  lua_pushinteger(L, n);
  lua_replace(L, lua_upvalueindex(2));
  lua_pushnil(L);
  return 1;
}

static int sb_pairs(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  lua_newtable(L); /* 2: the keys, in table order (anchors the strings) */
  int n = 0;
  for (lua_pushnil(L); lua_next(L, 1); lua_rawseti(L, 2, ++n)) {
    lua_pop(L, 1);
    int t = lua_type(L, -1);
    if (t != LUA_TNUMBER && t != LUA_TSTRING)
      return luaL_error(L, "pairs: keys must be numbers or strings (got a %s key)",
                        lua_typename(L, t));
    lua_pushvalue(L, -1);
  }
  sort_key *k = lua_newuserdatauv(L, (n ? n : 1) * sizeof *k, 0); /* 3 */
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 2, i + 1);
    sort_key *e = &k[i];
    e->idx = i + 1;
    e->is_str = lua_type(L, -1) == LUA_TSTRING;
    e->is_int = lua_isinteger(L, -1);
    e->i = e->is_int ? lua_tointeger(L, -1) : 0;
    e->d = e->is_str ? 0 : lua_tonumber(L, -1);
    e->s = e->is_str ? lua_tolstring(L, -1, &e->len) : NULL;
    lua_pop(L, 1);
  }
  qsort(k, n, sizeof *k, cmp_keys);
  lua_createtable(L, n, 0); /* 4: sorted keys */
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 2, k[i].idx);
    lua_rawseti(L, 4, i + 1);
  }
  lua_pushinteger(L, 0);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, pairs_next, 3); /* upvalues: sorted keys, position, t */
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

/* setmetatable without finalizers: a __gc would run outside any call. */
static int sb_setmetatable(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int t = lua_type(L, 2);
  luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
  if (t == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L, "'__gc' metamethods are not available in the sandbox");
    lua_pop(L, 1);
  }
  if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
    return luaL_error(L, "cannot change a protected metatable");
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

/* xpcall whose handler runs after the unwinding, as an ordinary call. Lua
 * runs message handlers with hooks off while an error raised by the count
 * hook is in flight, so a looping handler would escape the budget. Without
 * `debug` a handler cannot look at the failed stack anyway. */
static int sb_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_rotate(L, 2, -1); /* f a1..ak h */
  lua_insert(L, 1);     /* h f a1..ak */
  if (lua_pcall(L, n - 2, LUA_MULTRET, 0) == LUA_OK) {
    lua_pushboolean(L, 1);
    lua_replace(L, 1); /* true r1..rm */
    return lua_gettop(L);
  }
  lua_pushvalue(L, 1);
  lua_insert(L, -2);
  lua_pcall(L, 1, 1, 0); /* h(err), or the handler's own error */
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

/* string.format without '%p' and with '%s' going through sb_tostring, so no
 * conversion can print an address. Upvalue 1: the original format. */
static int sb_format(lua_State *L) {
  const char *f = luaL_checkstring(L, 1);
  int top = lua_gettop(L), arg = 1;
  while ((f = strchr(f, '%')) != NULL) {
    f++;
    if (*f == '%') { f++; continue; }
    f += strspn(f, "-+ #0123456789.");
    arg++;
    if (*f == 'p') return luaL_error(L, "'%%p' is not available in the sandbox");
    if (*f == 's' && arg <= top && lua_type(L, arg) != LUA_TSTRING) {
      lua_pushcfunction(L, sb_tostring);
      lua_pushvalue(L, arg);
      lua_call(L, 1, 1);
      lua_replace(L, arg);
    }
    if (*f) f++;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, top, 1);
  return 1;
}

static const char *const forbidden_globals[] = {
    "io", "os", "package", "debug", "require", "load", "loadfile", "dofile",
    "loadstring", "collectgarbage", "print", "getmetatable", "next",
    "coroutine", "utf8", "warn", NULL};
static const char *const forbidden_fields[] = {
    "string.dump", "math.random", "math.randomseed", NULL};

static int listed(const char *const *list, const char *name) {
  for (; *list; list++)
    if (strcmp(*list, name) == 0) return 1;
  return 0;
}

/* __index of every environment: reading an unset global is an error that
 * says whether the name is withheld by the sandbox or simply undefined. */
static int env_index(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING) return 0;
  const char *k = lua_tostring(L, 2);
  if (listed(forbidden_globals, k))
    return luaL_error(L, "'%s' is not available in the sandbox", k);
  return luaL_error(L, "undefined name '%s'", k);
}

/* __index of the library tables (upvalue 1: the library's name). */
static int lib_index(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING) return 0;
  char full[96];
  snprintf(full, sizeof full, "%s.%s", lua_tostring(L, lua_upvalueindex(1)),
           lua_tostring(L, 2));
  if (listed(forbidden_fields, full))
    return luaL_error(L, "'%s' is not available in the sandbox", full);
  return 0;
}

/* ---- 3. state setup and fresh environments ------------------------------ */

static void strip_field(lua_State *L, int t, const char *name) {
  lua_pushnil(L);
  lua_setfield(L, t, name);
}

/* Gives the library table at t a metatable naming it (see lib_index). */
static void guard_lib(lua_State *L, int t, const char *name) {
  lua_createtable(L, 0, 1);
  lua_pushstring(L, name);
  lua_pushcclosure(L, lib_index, 1);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, t);
}

static int setup_state(lua_State *L) {
  sbx *s = sbx_of(L);
  static const char *const base_names[] = {
      "assert", "error", "ipairs", "pcall", "select", "tonumber",
      "type", "rawequal", "rawlen", "rawget", "rawset", "_VERSION", NULL};
  luaL_requiref(L, "_G", luaopen_base, 0);                /* 1 */
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 0);    /* 2 */
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 0);     /* 3 */
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 0);     /* 4 */
  /* The real string table is also the strings' __index: sanitize it in place. */
  strip_field(L, 2, "dump");
  lua_getfield(L, 2, "format");
  lua_pushcclosure(L, sb_format, 1);
  lua_setfield(L, 2, "format");
  strip_field(L, 4, "random");
  strip_field(L, 4, "randomseed");
  guard_lib(L, 2, LUA_STRLIBNAME);
  guard_lib(L, 3, LUA_TABLIBNAME);
  guard_lib(L, 4, LUA_MATHLIBNAME);

  lua_newtable(L); /* 5: the prototype environment */
  for (const char *const *n = base_names; *n; n++) {
    lua_getfield(L, 1, *n);
    lua_setfield(L, 5, *n);
  }
  lua_pushcfunction(L, sb_tostring);
  lua_setfield(L, 5, "tostring");
  lua_pushcfunction(L, sb_pairs);
  lua_setfield(L, 5, "pairs");
  lua_pushcfunction(L, sb_setmetatable);
  lua_setfield(L, 5, "setmetatable");
  lua_pushcfunction(L, sb_xpcall);
  lua_setfield(L, 5, "xpcall");
  lua_pushvalue(L, 2);
  lua_setfield(L, 5, LUA_STRLIBNAME);
  lua_pushvalue(L, 3);
  lua_setfield(L, 5, LUA_TABLIBNAME);
  lua_pushvalue(L, 4);
  lua_setfield(L, 5, LUA_MATHLIBNAME);
  lua_pushvalue(L, 5);
  s->proto_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  lua_createtable(L, 0, 2); /* metatable of environments */
  lua_pushcfunction(L, env_index);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  s->envmt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

/* Pushes a shallow copy of the table at idx, with the same metatable. */
static void push_copy(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_newtable(L);
  for (lua_pushnil(L); lua_next(L, idx);) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
  if (lua_getmetatable(L, idx)) lua_setmetatable(L, -2);
}

/* Pushes a fresh environment: the prototype with copied library tables, so
 * a snippet that rewrites `string.x` or `math.pi` affects only itself. */
static int push_env(lua_State *L) {
  sbx *s = sbx_of(L);
  lua_newtable(L);
  int env = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->proto_ref);
  for (lua_pushnil(L); lua_next(L, env + 1);) {
    if (lua_istable(L, -1)) {
      push_copy(L, -1);
      lua_replace(L, -2);
    }
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, env);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, env);
  lua_setfield(L, env, "_G");
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->envmt_ref);
  lua_setmetatable(L, env);
  return env;
}

/* Loads text `src` as chunk s->chunk with _ENV = the table at env; raises
 * the syntax error on failure. */
static void load_in(lua_State *L, const char *src, size_t len, const char *chunk, int env) {
  if (luaL_loadbufferx(L, src, len, chunk, "t") != LUA_OK) lua_error(L);
  lua_pushvalue(L, env);
  lua_setupvalue(L, -2, 1);
}

static void set_chunk(sbx *s, const char *name) {
  snprintf(s->chunk, sizeof s->chunk, "=%.*s", CHUNK_MAX, name && *name ? name : "?");
}

sbx *sbx_new(size_t mem_cap, long instr_budget) {
  sbx *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->mem_cap = mem_cap ? mem_cap : SBX_DEFAULT_MEM_CAP;
  s->budget = instr_budget > 0 ? instr_budget : SBX_DEFAULT_INSTR_BUDGET;
  s->L = lua_newstate(sbx_alloc, s);
  if (!s->L) {
    free(s);
    return NULL;
  }
  lua_setwarnf(s->L, NULL, NULL);
  lua_pushcfunction(s->L, setup_state);
  if (lua_pcall(s->L, 0, 0, 0) != LUA_OK) {
    sbx_free(s);
    return NULL;
  }
  lua_gc(s->L, LUA_GCCOLLECT, 0);
  return s;
}

void sbx_free(sbx *s) {
  if (!s) return;
  if (s->L) lua_close(s->L);
  free(s);
}

/* ---- 4. running a job and reporting errors ------------------------------ */

/* Message handler: notes the line of the innermost frame of our chunk. */
static int msgh(lua_State *L) {
  sbx *s = sbx_of(L);
  lua_Debug ar;
  for (int lv = 1; lua_getstack(L, lv, &ar); lv++) {
    if (!lua_getinfo(L, "Sl", &ar)) break;
    if (ar.currentline > 0 && strcmp(ar.source, s->chunk) == 0) {
      s->err_line = ar.currentline;
      break;
    }
  }
  return 1;
}

/* Runs body(job) protected, under a fresh budget. On return the stack holds
 * [msgh, result-or-error]. A spent budget is an error even if user code
 * caught it (e.g. `return pcall(loop)`). */
static int run_job(sbx *s, lua_CFunction body, void *job) {
  lua_State *L = s->L;
  lua_settop(L, 0);
  s->budget_hit = s->oom_hit = 0;
  s->err_line = 0;
  s->instr_left = s->budget;
  set_hook(s, s->budget);
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, body);
  lua_pushlightuserdata(L, job);
  int st = lua_pcall(L, 1, 1, 1);
  lua_sethook(L, NULL, 0, 0);
  if (st == LUA_OK && s->budget_hit) st = LUA_ERRRUN;
  return st;
}

/* Drops the job's values and returns the memory of this call. */
static void end_job(sbx *s) {
  lua_settop(s->L, 0);
  lua_gc(s->L, LUA_GCCOLLECT, 0);
}

static void put_msg(char *msg, size_t msglen, int *line, int ln, const char *text) {
  if (msg && msglen) snprintf(msg, msglen, "%s", text);
  if (line) *line = ln;
}

/* "<chunk>:<n>: text" -> n and text; returns 0 when there is no such prefix. */
static int strip_prefix(const sbx *s, const char **text) {
  const char *src = s->chunk + 1;
  size_t n = strlen(src);
  const char *t = *text;
  if (strncmp(t, src, n) != 0 || t[n] != ':' || t[n + 1] < '0' || t[n + 1] > '9') return 0;
  char *end;
  long ln = strtol(t + n + 1, &end, 10);
  if (*end != ':' || ln <= 0 || ln > 1000000000L) return 0;
  end++;
  if (*end == ' ') end++;
  *text = end;
  return (int)ln;
}

/* Turns the error object of a failed run_job (stack index 2) into msg/line.
 * Allocates nothing in the Lua state, so it is safe right after an OOM. */
static void report(sbx *s, int st, char *msg, size_t msglen, int *line) {
  lua_State *L = s->L;
  char buf[160];
  const char *text = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
  int ln = 0;
  if (s->budget_hit) {
    text = BUDGET_MSG;
    ln = s->err_line;
  } else if (st == LUA_ERRMEM ||
             (s->oom_hit && (st == LUA_ERRERR || (text && strcmp(text, "not enough memory") == 0)))) {
    double mib = (double)s->mem_cap / (1 << 20);
    if (mib == floor(mib))
      snprintf(buf, sizeof buf, "memory limit exceeded (%.0f MiB)", mib);
    else
      snprintf(buf, sizeof buf, "memory limit exceeded (%.2f MiB)", mib);
    text = buf;
  } else if (text) {
    ln = strip_prefix(s, &text);
    if (!ln) ln = s->err_line;
  } else {
    if (lua_type(L, 2) == LUA_TNUMBER)
      fmt_number(L, 2, buf, sizeof buf);
    else
      snprintf(buf, sizeof buf, "(error object is a %s value)", luaL_typename(L, 2));
    text = buf;
    ln = s->err_line;
  }
  put_msg(msg, msglen, line, ln, text);
}

/* ---- 5. sbx_eval ---------------------------------------------------------- */

typedef struct {
  const char *code;
  const sbx_var *vars;
  int nvars;
} eval_job;

static int is_ident(const char *n) {
  if (!n || !(*n == '_' || (*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z'))) return 0;
  return n[strspn(n, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")] == '\0';
}

static void bind_vars(lua_State *L, int env, const eval_job *j) {
  for (int i = 0; i < j->nvars; i++) {
    const sbx_var *v = &j->vars[i];
    if (!is_ident(v->name))
      luaL_error(L, "invalid variable name '%s'", v->name ? v->name : "(null)");
    if (v->value == floor(v->value) && fabs(v->value) < 9007199254740992.0)
      lua_pushinteger(L, (lua_Integer)v->value);
    else
      lua_pushnumber(L, v->value);
    lua_setfield(L, env, v->name);
  }
}

/* Loads the snippet: as an expression if it parses as one, else as a chunk.
 * When both fail, the chunk's error is reported if the code mentions
 * `return` (it was meant as a chunk), else the expression's. */
static void load_snippet(lua_State *L, const char *code, const char *chunk, int env) {
  const char *expr = lua_pushfstring(L, "return %s", code);
  if (luaL_loadbufferx(L, expr, strlen(expr), chunk, "t") == LUA_OK) {
    lua_remove(L, -2);
  } else if (luaL_loadbufferx(L, code, strlen(code), chunk, "t") == LUA_OK) {
    lua_remove(L, -2);
    lua_remove(L, -2);
  } else {
    if (!strstr(code, "return")) lua_pop(L, 1); /* keep the expression's error */
    lua_error(L);
  }
  lua_pushvalue(L, env);
  lua_setupvalue(L, -2, 1);
}

static int eval_body(lua_State *L) {
  eval_job *j = lua_touserdata(L, 1);
  sbx *s = sbx_of(L);
  int env = push_env(L);
  bind_vars(L, env, j);
  load_snippet(L, j->code, s->chunk, env);
  lua_call(L, 0, 1);
  return 1;
}

int sbx_eval(sbx *s, const char *code, const sbx_var *vars, int nvars,
             double *out, int *is_bool, char *msg, size_t msglen, int *line) {
  if (line) *line = 0;
  if (!s || !code) {
    put_msg(msg, msglen, line, 0, "no snippet");
    return 1;
  }
  eval_job j = {code, vars, nvars};
  set_chunk(s, "snippet");
  int st = run_job(s, eval_body, &j);
  int rc = 1;
  if (st != LUA_OK) {
    report(s, st, msg, msglen, line);
  } else if (lua_type(s->L, 2) == LUA_TBOOLEAN) {
    if (out) *out = lua_toboolean(s->L, 2);
    if (is_bool) *is_bool = 1;
    rc = 0;
  } else if (lua_type(s->L, 2) == LUA_TNUMBER) {
    double x = lua_tonumber(s->L, 2);
    if (isfinite(x)) {
      if (out) *out = x;
      if (is_bool) *is_bool = 0;
      rc = 0;
    } else {
      put_msg(msg, msglen, line, 0, isnan(x) ? "result is not a number (nan)"
                                             : "result is infinite");
    }
  } else {
    char buf[128];
    snprintf(buf, sizeof buf, "snippet must give a number or boolean, got %s",
             lua_isnil(s->L, 2) ? "no value" : luaL_typename(s->L, 2));
    put_msg(msg, msglen, line, 0, buf);
  }
  end_job(s);
  return rc;
}

/* ---- 6. templates -------------------------------------------------------- */

/* Appends s[0..n) as a Lua string literal body (no quotes). Control bytes
 * become \ddd so the generated chunk keeps one line per template line. */
static void add_escaped(luaL_Buffer *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      luaL_addchar(b, '\\');
      luaL_addchar(b, (char)c);
    } else if (c < 32 || c == 127) {
      char esc[8];
      snprintf(esc, sizeof esc, "\\%03u", c);
      luaL_addstring(b, esc);
    } else {
      luaL_addchar(b, (char)c);
    }
  }
}

/* The '}' closing a `${` whose expression starts at c; NULL if none on the
 * line. Braces nest; quoted strings are skipped. */
static const char *expr_end(const char *c, const char *end) {
  int depth = 0;
  for (; c < end; c++) {
    if (*c == '"' || *c == '\'') {
      char q = *c;
      for (c++; c < end && *c != q; c++)
        if (*c == '\\' && c + 1 < end) c++;
      if (c >= end) return NULL;
    } else if (*c == '{') {
      depth++;
    } else if (*c == '}') {
      if (depth == 0) return c;
      depth--;
    }
  }
  return NULL;
}

static int tpl_fail(lua_State *L, int lineno, const char *what) {
  sbx_of(L)->err_line = lineno;
  return luaL_error(L, "%s", what);
}

/* One output line: __o[#__o+1]="text"..__v((expr),"expr").."text\n" */
static void tpl_text_line(lua_State *L, luaL_Buffer *b, const char *p, const char *end,
                          int newline, int lineno) {
  luaL_addstring(b, "__o[#__o+1]=\"");
  while (p < end) {
    if (p[0] == '$' && p + 1 < end && p[1] == '$') {
      luaL_addchar(b, '$');
      p += 2;
    } else if (p[0] == '$' && p + 1 < end && p[1] == '{') {
      const char *e = expr_end(p + 2, end);
      if (!e) tpl_fail(L, lineno, "unterminated '${' (missing '}')");
      if (e == p + 2) tpl_fail(L, lineno, "empty '${}'");
      luaL_addstring(b, "\"..__v((");
      luaL_addlstring(b, p + 2, (size_t)(e - p - 2));
      luaL_addstring(b, "),\"");
      add_escaped(b, p + 2, (size_t)(e - p - 2));
      luaL_addstring(b, "\")..\"");
      p = e + 1;
    } else {
      add_escaped(b, p, 1);
      p++;
    }
  }
  if (newline) luaL_addstring(b, "\\n");
  luaL_addchar(b, '"');
}

/* Compiles a template into Lua source with exactly one line per template
 * line (plus a final `return`), and pushes it. The chunk receives the value
 * formatter as its vararg and returns the table of output pieces. */
static void tpl_compile(lua_State *L, const char *tpl) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "local __o, __v = {}, ...; ");
  int lineno = 1;
  for (const char *p = tpl; *p; lineno++) {
    const char *eol = strchr(p, '\n');
    const char *end = eol ? eol : p + strlen(p);
    const char *q = p + strspn(p, " \t");
    if (q < end && *q == '@')
      luaL_addlstring(&b, q + 1, (size_t)(end - q - 1));
    else
      tpl_text_line(L, &b, p, end, eol != NULL, lineno);
    luaL_addchar(&b, '\n');
    p = eol ? eol + 1 : end;
  }
  luaL_addstring(&b, "return __o\n");
  luaL_pushresult(&b);
}

/* __v(value, exprtext): the text of one `${}`. */
static int tpl_value(lua_State *L) {
  const char *what = luaL_checkstring(L, 2);
  int t = lua_type(L, 1);
  if (t == LUA_TNIL) return luaL_error(L, "template expression '%s' is nil", what);
  if (t == LUA_TNUMBER && !isfinite(lua_tonumber(L, 1)))
    return luaL_error(L, "template expression '%s' is not finite", what);
  if (!push_plain(L, 1))
    return luaL_error(L, "template expression '%s' is a %s, not a printable value", what,
                      luaL_typename(L, 1));
  return 1;
}

/* Pushes a C floating literal: `num` plus ".0" if it has neither '.' nor an
 * exponent, plus `suffix`. */
static void push_literal(lua_State *L, const char *num, const char *suffix) {
  int plain = strpbrk(num, ".e") == NULL;
  lua_pushfstring(L, "%s%s%s", num, plain ? ".0" : "", suffix);
}

/* f32(x): the float nearest x as a literal that round-trips (%.9g of x when
 * that names the same float, else %.9g of the float itself). */
static int h_f32(lua_State *L) {
  double x = luaL_checknumber(L, 1);
  float f = (float)x;
  if (!isfinite(f)) return luaL_error(L, "f32: value out of float range");
  char buf[48];
  snprintf(buf, sizeof buf, "%.9g", f == 0 ? (double)f : x);
  if (strtof(buf, NULL) != f) snprintf(buf, sizeof buf, "%.9g", (double)f);
  push_literal(L, buf, "f");
  return 1;
}

static int h_f64(lua_State *L) {
  double x = luaL_checknumber(L, 1);
  if (!isfinite(x)) return luaL_error(L, "f64: value is not finite");
  char buf[48];
  snprintf(buf, sizeof buf, "%.17g", x);
  push_literal(L, buf, "");
  return 1;
}

/* join(list[, sep = ", "]): elements 1..#list (raw), formatted like `${}`. */
static int h_join(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  size_t seplen;
  const char *sep = luaL_optlstring(L, 2, ", ", &seplen);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (lua_Integer i = 1; i <= n; i++) {
    if (i > 1) luaL_addlstring(&b, sep, seplen);
    lua_rawgeti(L, 1, i);
    if (lua_isnil(L, -1) || !push_plain(L, -1))
      return luaL_error(L, "join: element %d is a %s", (int)i, luaL_typename(L, -1));
    lua_remove(L, -2);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return 1;
}

static int h_upper(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  luaL_Buffer b;
  char *d = luaL_buffinitsize(L, &b, n);
  for (size_t i = 0; i < n; i++)
    d[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 'a' + 'A') : s[i];
  luaL_pushresultsize(&b, n);
  return 1;
}

typedef struct {
  const char *tpl, *ctx;
} render_job;

/* Evaluates the trusted context constructor and binds it to env.P. */
static void bind_context(lua_State *L, int env, const char *ctx) {
  const char *src = lua_pushfstring(L, "return %s", ctx ? ctx : "{}");
  if (luaL_loadbufferx(L, src, strlen(src), "=context", "t") != LUA_OK)
    luaL_error(L, "bad template context: %s", lua_tostring(L, -1));
  lua_remove(L, -2);
  lua_pushvalue(L, env);
  lua_setupvalue(L, -2, 1);
  lua_call(L, 0, 1);
  if (!lua_istable(L, -1)) luaL_error(L, "bad template context: not a table");
  lua_setfield(L, env, "P");
}

static int render_body(lua_State *L) {
  render_job *j = lua_touserdata(L, 1);
  sbx *s = sbx_of(L);
  int env = push_env(L);
  static const luaL_Reg helpers[] = {
      {"f32", h_f32}, {"f64", h_f64}, {"join", h_join}, {"upper", h_upper}, {NULL, NULL}};
  lua_pushvalue(L, env);
  luaL_setfuncs(L, helpers, 0);
  lua_pop(L, 1);
  bind_context(L, env, j->ctx);
  tpl_compile(L, j->tpl);
  size_t len;
  const char *src = lua_tolstring(L, -1, &len);
  load_in(L, src, len, s->chunk, env);
  lua_pushcfunction(L, tpl_value);
  lua_call(L, 1, 1);
  return 1;
}

/* Joins the output pieces (stack index 2) into one malloc'd string. */
static int collect_output(lua_State *L, char **out, size_t *outlen) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
  size_t total = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    int t = lua_rawgeti(L, 2, i);
    if (t != LUA_TSTRING) return -1;
    total += lua_rawlen(L, -1);
    lua_pop(L, 1);
  }
  char *buf = malloc(total + 1);
  if (!buf) return -2;
  size_t at = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    size_t len;
    lua_rawgeti(L, 2, i);
    const char *piece = lua_tolstring(L, -1, &len);
    memcpy(buf + at, piece, len);
    at += len;
    lua_pop(L, 1);
  }
  buf[at] = '\0';
  *out = buf;
  if (outlen) *outlen = at;
  return 0;
}

/* Lines of a template (a final line without '\n' counts). */
static int count_lines(const char *t) {
  int n = 0;
  for (; *t; t++)
    if (*t == '\n' || t[1] == '\0') n++;
  return n;
}

int sbx_render(sbx *s, const char *tpl_name, const char *tpl, const char *ctx,
               char **out, size_t *outlen, char *msg, size_t msglen, int *line) {
  if (line) *line = 0;
  if (out) *out = NULL;
  if (outlen) *outlen = 0;
  if (!s || !tpl || !out) {
    put_msg(msg, msglen, line, 0, "no template");
    return 1;
  }
  render_job j = {tpl, ctx};
  set_chunk(s, tpl_name);
  int st = run_job(s, render_body, &j);
  int rc = 1;
  if (st != LUA_OK) {
    report(s, st, msg, msglen, line);
    int last = count_lines(tpl); /* "'end' expected near <eof>" is past it */
    if (line && *line > last) *line = last;
  } else if (!lua_istable(s->L, 2)) {
    put_msg(msg, msglen, line, 0, "template did not produce output");
  } else {
    int c = collect_output(s->L, out, outlen);
    if (c == -1) put_msg(msg, msglen, line, 0, "template wrote a non-string to its output");
    if (c == -2) put_msg(msg, msglen, line, 0, "out of memory joining template output");
    rc = c != 0;
  }
  end_job(s);
  return rc;
}
