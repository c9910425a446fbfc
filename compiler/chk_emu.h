/* compiler stage: the CUDA emulation backend of `ssmc check` (--backend cuda-emu). A kernel's CUDA
 * module is compiled as C++ for this CPU (the system's c++, compiler/emu_cuda.h in front) and its
 * stages run as the runtime runs them on a GPU (same order, grids, workspace), every CUDA thread a
 * fiber: the oracle checks what the CUDA kernels compute on a machine without a GPU. */
#ifndef SSMC_CHK_EMU_H
#define SSMC_CHK_EMU_H
#include <stddef.h>
#include "chk.h"

typedef struct chk_emu chk_emu;
/* cache_dir: where the compiled modules are kept (keyed by a hash of what is compiled); NULL with err
 * set when no C++ compiler runs. */
chk_emu *chk_emu_open(const char *cache_dir, char *err, size_t n);
void chk_emu_close(chk_emu *g);
const chk_backend *chk_emu_backend(chk_emu *g);

#endif
