/* tests: the sandboxed Lua of the dsl stage — snippet evaluation, limits
 * (instruction budget, memory cap), withheld libraries, fresh environments,
 * sorted pairs, error lines, and template rendering. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sbx.h"

static sbx *S;
static char msg[512];
static int line;

static void setup(void) {
  S = sbx_new(0, 0); /* the defaults: 64 MiB, 50M instructions */
  ck_assert_ptr_nonnull(S);
  msg[0] = '\0';
  line = -1;
}
static void teardown(void) { sbx_free(S); }

/* Evaluates code with no vars; returns sbx_eval's status. */
static int ev(const char *code, double *out) {
  double dummy;
  return sbx_eval(S, code, NULL, 0, out ? out : &dummy, NULL, msg, sizeof msg, &line);
}

/* Evaluates code that must succeed with a number; returns it. */
static double num(const char *code) {
  double x = NAN;
  int rc = ev(code, &x);
  ck_assert_msg(rc == 0, "'%s' failed: %s", code, msg);
  return x;
}

/* Evaluates code that must fail; the message must contain `want`. */
static void fails_with(const char *code, const char *want) {
  int rc = ev(code, NULL);
  ck_assert_msg(rc != 0, "'%s' should fail", code);
  ck_assert_msg(strstr(msg, want) != NULL, "'%s': message '%s' lacks '%s'", code, msg, want);
}

/* Renders tpl with ctx; must succeed; returns the malloc'd output. */
static char *render(const char *tpl, const char *ctx) {
  char *out = NULL;
  size_t len = 0;
  int rc = sbx_render(S, "t.tpl", tpl, ctx, &out, &len, msg, sizeof msg, &line);
  ck_assert_msg(rc == 0, "render failed at line %d: %s", line, msg);
  ck_assert_ptr_nonnull(out);
  ck_assert_uint_eq(len, strlen(out));
  return out;
}

static void render_eq(const char *tpl, const char *ctx, const char *want) {
  char *out = render(tpl, ctx);
  ck_assert_str_eq(out, want);
  free(out);
}

/* Renders tpl; must fail at `want_line` with a message containing `want`. */
static void render_fails(const char *tpl, const char *ctx, int want_line, const char *want) {
  char *out = (char *)1;
  int rc = sbx_render(S, "t.tpl", tpl, ctx, &out, NULL, msg, sizeof msg, &line);
  ck_assert_msg(rc != 0, "template should fail");
  ck_assert_ptr_null(out);
  ck_assert_msg(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
  ck_assert_int_eq(line, want_line);
}

START_TEST(arithmetic_with_vars) {
  sbx_var v[] = {{"K", 128}, {"V", 64}};
  double x = 0;
  int is_bool = -1;
  ck_assert_int_eq(sbx_eval(S, "K^-0.5", v, 2, &x, &is_bool, msg, sizeof msg, &line), 0);
  ck_assert_double_eq(x, pow(128, -0.5));
  ck_assert_int_eq(is_bool, 0);
  /* integral vars are Lua integers: floor division stays integral */
  ck_assert_int_eq(sbx_eval(S, "K // 3 + V % 5", v, 2, &x, &is_bool, msg, sizeof msg, &line), 0);
  ck_assert_double_eq(x, 42 + 4);
  /* a chunk that returns */
  ck_assert_int_eq(sbx_eval(S, "local h = K / 2\nreturn h * V", v, 2, &x, NULL, msg, sizeof msg,
                            &line), 0);
  ck_assert_double_eq(x, 4096);
  ck_assert_double_eq(num("math.sqrt(2) * math.sqrt(2) > 1.99 and 7 or 0"), 7);
}
END_TEST

START_TEST(boolean_predicate) {
  sbx_var v[] = {{"bk", 64}, {"K", 128}, {"bv", 256}, {"V", 128}};
  double x = -1;
  int is_bool = -1;
  const char *pred = "bk <= K and bv <= V";
  ck_assert_int_eq(sbx_eval(S, pred, v, 4, &x, &is_bool, msg, sizeof msg, &line), 0);
  ck_assert_int_eq(is_bool, 1);
  ck_assert_double_eq(x, 0);
  v[2].value = 64;
  ck_assert_int_eq(sbx_eval(S, pred, v, 4, &x, &is_bool, msg, sizeof msg, &line), 0);
  ck_assert_int_eq(is_bool, 1);
  ck_assert_double_eq(x, 1);
}
END_TEST

START_TEST(result_must_be_number_or_bool) {
  fails_with("'text'", "got string");
  fails_with("local x = 1", "got no value");
  fails_with("{}", "got table");
  fails_with("1/0", "infinite");
  fails_with("0/0", "nan");
  sbx_var bad = {"not a name", 1};
  double x;
  ck_assert_int_ne(sbx_eval(S, "1", &bad, 1, &x, NULL, msg, sizeof msg, &line), 0);
  ck_assert_ptr_nonnull(strstr(msg, "invalid variable name"));
}
END_TEST

START_TEST(runaway_loop_hits_budget) {
  fails_with("while true do end", "instruction budget exceeded (runaway loop?)");
  ck_assert_str_eq(msg, "instruction budget exceeded (runaway loop?)");
  ck_assert_int_eq(line, 1);
  ck_assert_double_eq(num("1 + 1"), 2); /* the state is still usable */
  /* user code cannot swallow the budget error with pcall */
  fails_with("while true do pcall(function() while true do end end) end", "instruction budget");
  fails_with("return pcall(function() while true do end end)", "instruction budget");
  /* nor with xpcall, whose handler runs under the budget too */
  fails_with("xpcall(function() while true do end end, function(e) while true do end end)",
             "instruction budget");
  ck_assert_double_eq(num("2 * 21"), 42);
  /* ... while ordinary xpcall still works */
  ck_assert_double_eq(num("select(2, xpcall(error, function(e) return 'h:' .. e end, 'x', 0)) == 'h:x'"
                          " and select('#', xpcall(function() return 1, 2 end, error)) == 3"),
                      1);
}
END_TEST

START_TEST(budget_is_per_call_and_exact_enough) {
  sbx *small = sbx_new(0, 100000);
  double x;
  /* ~4 instructions per iteration: 10k iterations fit, 1M do not */
  const char *loop10k = "local s = 0 for i = 1, 10000 do s = s + i end return s";
  for (int i = 0; i < 20; i++) /* would exceed 100k if the budget were not reset */
    ck_assert_int_eq(sbx_eval(small, loop10k, NULL, 0, &x, NULL, msg, sizeof msg, &line), 0);
  ck_assert_double_eq(x, 50005000);
  ck_assert_int_ne(sbx_eval(small, "local s = 0 for i = 1, 1000000 do s = s + i end return s", NULL,
                            0, &x, NULL, msg, sizeof msg, &line), 0);
  ck_assert_str_eq(msg, "instruction budget exceeded (runaway loop?)");
  sbx_free(small);
}
END_TEST

START_TEST(memory_bomb_hits_cap) {
  fails_with("local t = {} for i = 1, 1e9 do t[i] = i end", "memory limit exceeded (64 MiB)");
  ck_assert_str_eq(msg, "memory limit exceeded (64 MiB)");
  ck_assert_double_eq(num("3 * 3"), 9);
  fails_with("string.rep('x', 2^30)", "memory limit exceeded (64 MiB)");
  ck_assert_double_eq(num("#string.rep('ab', 1000)"), 2000);
  /* again, the table bomb: the previous call's memory was given back */
  fails_with("local t = {} for i = 1, 1e9 do t[i] = i end", "memory limit exceeded");
  /* a caught allocation failure is just a failed pcall */
  ck_assert_double_eq(num("pcall(string.rep, 'x', 2^30) and 1 or 0"), 0);
  ck_assert_double_eq(num("#string.rep('x', 1e6)"), 1e6);
}
END_TEST

START_TEST(small_cap_reports_size) {
  sbx *small = sbx_new(8 << 20, 0);
  double x;
  ck_assert_ptr_nonnull(small);
  ck_assert_int_ne(sbx_eval(small, "local t = {} for i = 1, 1e9 do t[#t+1] = {} end", NULL, 0, &x,
                            NULL, msg, sizeof msg, &line), 0);
  ck_assert_str_eq(msg, "memory limit exceeded (8 MiB)");
  ck_assert_int_eq(sbx_eval(small, "#string.rep('x', 3e6)", NULL, 0, &x, NULL, msg, sizeof msg,
                            &line), 0);
  ck_assert_double_eq(x, 3e6);
  sbx_free(small);
  ck_assert_ptr_null(sbx_new(1024, 0)); /* too small for a Lua state */
}
END_TEST

START_TEST(forbidden_libraries) {
  fails_with("io.open('/etc/passwd')", "'io' is not available in the sandbox");
  fails_with("os.exit(3)", "'os' is not available in the sandbox");
  fails_with("require('os')", "'require' is not available in the sandbox");
  fails_with("load('return 1')()", "'load' is not available in the sandbox");
  fails_with("debug.getinfo(1)", "'debug' is not available in the sandbox");
  fails_with("collectgarbage('count')", "'collectgarbage' is not available in the sandbox");
  fails_with("string.dump(function() end)", "'string.dump' is not available in the sandbox");
  fails_with("('x').dump(function() end)", "'string.dump' is not available in the sandbox");
  fails_with("dofile('/etc/passwd')", "'dofile' is not available");
  fails_with("loadfile('/etc/passwd')", "'loadfile' is not available");
  fails_with("loadstring('return 1')", "'loadstring' is not available");
  fails_with("print(1)", "'print' is not available");
  fails_with("getmetatable('')", "'getmetatable' is not available");
  fails_with("next({})", "'next' is not available");
  fails_with("package.path", "'package' is not available");
  fails_with("math.random(10)", "'math.random' is not available");
  fails_with("math.randomseed(1)", "'math.randomseed' is not available");
  fails_with("coroutine.create(print)", "'coroutine' is not available");
  fails_with("setmetatable({}, {__gc = function() end})", "'__gc'");
  fails_with("undefined_thing + 1", "undefined name 'undefined_thing'");
  ck_assert_int_eq(line, 1);
}
END_TEST

START_TEST(no_addresses) {
  ck_assert_double_eq(num("tostring({}) == 'table' and tostring(tostring) == 'function'"), 1);
  ck_assert_double_eq(num("string.format('%s|%s', {}, 2.0) == 'table|2'"), 1);
  fails_with("string.format('%p', {})", "'%p' is not available");
  ck_assert_double_eq(
      num("tostring(setmetatable({}, {__tostring = function() return 'me' end})) == 'me'"), 1);
  /* integer-valued numbers print as integers */
  ck_assert_double_eq(num("tostring(2.0) == '2' and tostring(1e15) == '1000000000000000'"), 1);
  ck_assert_double_eq(num("tostring(0.5) == '0.5' and tostring(-0.0) == '0'"), 1);
}
END_TEST

START_TEST(globals_do_not_leak) {
  ck_assert_double_eq(num("leak = 41\nreturn leak + 1"), 42);
  fails_with("leak", "undefined name 'leak'");
  ck_assert_double_eq(num("math.pi = 3; string.upper = nil; return 1"), 1);
  ck_assert_double_eq(num("math.pi > 3.14 and string.upper('a') == 'A'"), 1);
  ck_assert_double_eq(num("_G.x = 5; return x"), 5);
  fails_with("x", "undefined name 'x'");
  sbx_var v = {"K", 7};
  double x;
  ck_assert_int_eq(sbx_eval(S, "K", &v, 1, &x, NULL, msg, sizeof msg, &line), 0);
  fails_with("K", "undefined name 'K'"); /* vars belong to one call too */
}
END_TEST

START_TEST(pairs_is_sorted) {
  /* 200 keys inserted in a scrambled order (i*73 mod 200), mixed types */
  ck_assert_double_eq(num("local t = {}\n"
                          "for i = 0, 199 do\n"
                          "  local k = (i * 73) % 200\n"
                          "  if k % 2 == 0 then t[k] = true else t[string.format('k%03d', k)] = true end\n"
                          "end\n"
                          "t[-1.5] = true; t[0.25] = true\n"
                          "local prev_num, prev_str, n = -math.huge, '', 0\n"
                          "for k in pairs(t) do\n"
                          "  n = n + 1\n"
                          "  if type(k) == 'number' then\n"
                          "    assert(prev_str == '' and k > prev_num, 'order') prev_num = k\n"
                          "  else assert(k > prev_str, 'order') prev_str = k end\n"
                          "end\n"
                          "return n"),
                      202);
  render_eq("@ for k, v in pairs(P.t) do\n${k}=${v}\n@ end\n",
            "{t = {zeta = 1, [3] = 2, alpha = 3, [1] = 4, mid = 5, [2.5] = 6, [-7] = 7}}",
            "-7=7\n1=4\n2.5=6\n3=2\nalpha=3\nmid=5\nzeta=1\n");
  fails_with("for k in pairs({[true] = 1}) do end return 1", "keys must be numbers or strings");
}
END_TEST

START_TEST(error_lines) {
  fails_with("local a = 1\nlocal b = 2\nreturn a + undefined_c", "undefined name 'undefined_c'");
  ck_assert_int_eq(line, 3);
  fails_with("local a = 1\nerror('boom')\nreturn a", "boom");
  ck_assert_str_eq(msg, "boom"); /* no chunk-name prefix */
  ck_assert_int_eq(line, 2);
  fails_with("local a = 1\nlocal = 2\nreturn a", "expected");
  ck_assert_int_eq(line, 2);
  ck_assert_ptr_null(strstr(msg, "snippet"));
  fails_with("local t = nil\n\n\nreturn t.x", "attempt to index a nil value");
  ck_assert_int_eq(line, 4);
  fails_with("local a = 0\nwhile true do\n  a = a + 1\nend\nreturn a", "instruction budget");
  ck_assert_msg(line >= 2 && line <= 4, "budget error at line %d", line);
  fails_with("K +", "near <eof>"); /* single expression: the expression's error */
  ck_assert_int_eq(line, 1);
  fails_with("x = 1\nreturn string.rep()", "bad argument #1 to 'rep'");
  ck_assert_int_eq(line, 2);
}
END_TEST

START_TEST(template_basics) {
  const char *tpl = "// ${P.name}: $$cost\n"
                    "@ if P.decay == \"scalar\" then\n"
                    "float g = ${f32(P.K ^ -0.5)};\n"
                    "@ else\n"
                    "float g[${P.n}];\n"
                    "@ end\n"
                    "  @ for i = 1, P.n do\n"
                    "x${i} = ${i * 0.5};\n"
                    "  @ end\n"
                    "${upper(P.name)}(${join(P.dims, \", \")}) ${true} ${f64(1)} ${f32(1)}";
  render_eq(tpl, "{name = \"gla\", decay = \"scalar\", K = 128, n = 3, dims = {1, 2.5, \"D\"}}",
            "// gla: $cost\n"
            "float g = 0.0883883476f;\n"
            "x1 = 0.5;\n"
            "x2 = 1;\n"
            "x3 = 1.5;\n"
            "GLA(1, 2.5, D) true 1.0 1.0f");
  render_eq(tpl, "{name = \"m\", decay = \"vector\", K = 64, n = 1, dims = {}}",
            "// m: $cost\n"
            "float g[1];\n"
            "x1 = 0.5;\n"
            "M() true 1.0 1.0f");
  render_eq("", "{}", "");
  render_eq("${\"}\"} ${ ({1,2})[2] } \\n \"q\"\t$x\n", "{}", "} 2 \\n \"q\"\t$x\n");
}
END_TEST

START_TEST(template_number_formats) {
  render_eq("${f32(0.1)} ${f32(1e20)} ${f32(-2)} ${f32(0)} ${f32(3.4e38)}\n", "{}",
            "0.1f 1e+20f -2.0f 0.0f 3.4e+38f\n");
  render_eq("${f64(0.1)} ${f64(2^53)} ${f64(1e300)}\n", "{}",
            "0.10000000000000001 9007199254740992.0 1.0000000000000001e+300\n");
  render_eq("${1.0} ${2^10} ${1/3} ${-0.0} ${7 // 2}\n", "{}",
            "1 1024 0.33333333333333331 0 3\n");
  render_fails("ok\n${f32(1e39)}\n", "{}", 2, "out of float range");
  render_fails("${1/0}\n", "{}", 1, "not finite");
}
END_TEST

START_TEST(template_errors_report_template_line) {
  render_fails("a\nb\n${P.missing.x}\n", "{}", 3, "attempt to index a nil value (field 'missing')");
  ck_assert_ptr_null(strstr(msg, "t.tpl"));
  render_fails("line1\n${P.nothing}\nline3\n", "{}", 2, "template expression 'P.nothing' is nil");
  render_fails("@ for i = 1, 2 do\n${i}\n@ if then\n@ end\n@ end\n", "{}", 3, "near 'then'");
  render_fails("x\ny ${P.a\n", "{}", 2, "unterminated '${'");
  render_fails("x\n\n\n${}\n", "{}", 4, "empty '${}'");
  render_fails("a\n@ if P.x then\nb\n", "{}", 3, "'end' expected (to close 'if' at line 2)");
  render_fails("${P}\n", "{}", 1, "is a table");
  render_fails("ok\n@ os.exit(1)\n", "{}", 2, "'os' is not available in the sandbox");
  render_fails("${join({1, {}})}\n", "{}", 1, "join: element 2 is a table");
  render_fails("@ while true do\n@ end\n", "{}", 1, "instruction budget exceeded");
  render_fails("@ local t = {} for i = 1, 1e9 do t[i] = i end\n", "{}", 0,
               "memory limit exceeded (64 MiB)");
  render_fails("x\n", "{oops", 0, "bad template context");
  render_eq("${P.v}\n", "{v = 'still works'}", "still works\n");
}
END_TEST

START_TEST(template_globals_do_not_leak) {
  render_eq("@ leaked = 1\n${leaked}\n", "{}", "1\n");
  render_fails("${leaked}\n", "{}", 1, "undefined name 'leaked'");
  fails_with("P", "undefined name 'P'");
  fails_with("f32(1)", "undefined name 'f32'"); /* helpers are for templates only */
}
END_TEST

Suite *sbx_suite(void) {
  Suite *s = suite_create("sbx");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, arithmetic_with_vars);
  tcase_add_test(tc, boolean_predicate);
  tcase_add_test(tc, result_must_be_number_or_bool);
  tcase_add_test(tc, runaway_loop_hits_budget);
  tcase_add_test(tc, budget_is_per_call_and_exact_enough);
  tcase_add_test(tc, memory_bomb_hits_cap);
  tcase_add_test(tc, small_cap_reports_size);
  tcase_add_test(tc, forbidden_libraries);
  tcase_add_test(tc, no_addresses);
  tcase_add_test(tc, globals_do_not_leak);
  tcase_add_test(tc, pairs_is_sorted);
  tcase_add_test(tc, error_lines);
  tcase_add_test(tc, template_basics);
  tcase_add_test(tc, template_number_formats);
  tcase_add_test(tc, template_errors_report_template_line);
  tcase_add_test(tc, template_globals_do_not_leak);
  suite_add_tcase(s, tc);
  return s;
}
