/* tests: the emulation suites' one check (emu_check.c). */
#ifndef SSMC_TESTS_EMU_CHECK_H
#define SSMC_TESTS_EMU_CHECK_H
#include <stdint.h>

/* every kernel of the spec rel (a path under the source folder; dtype -1) or those of one dtype (0 f32, 1 bf16), solver
 * iterations iters (0: the spec's); must: text each module's source has, lines of it each on its own ('\n' between;
 * NULL: none); bwd_skip as chk_opts's (0: the backward rows too, 2: none); the shapes of check's own but T = 4096 */
void check_spec_opts(const char *rel, int dtype, int iters, const char *must, int bwd_skip, uint64_t seed);
/* the same with the backward rows, at check's own seed */
void check_spec_with(const char *rel, int dtype, int iters, const char *must);
/* every kernel of the spec, its own iterations */
void check_spec(const char *rel);
#endif
