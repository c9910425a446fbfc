/* compiler stage: the CPU cost model (see cost.h).
 *
 * In units of one recurrent FLOP's time, per head:
 *   recurrent form, T tokens:    T * Fr,               Fr = 2 (2 + delta) K V
 *   chunk form, one chunk of L:  max(L, C/4) * Fc / rho, Fc = Fr + (1 + delta) (K + V) C
 * Fc adds the chunk's causal products (q k' and A u; the delta rule also k k'
 * and the inverse applied to the values). rho is how much faster the chunk
 * form's tile products run than the recurrent form's state pass, and C/4 the
 * least work a partial chunk costs; both measured on the developers' machine
 * (AMD EPYC, Zen 5, AVX-512, 2 threads, T = 1..4096, H = 4, 2026-11-23;
 * bench/2026-11-23-cpu.md). Per-key decays make the chunk products slower
 * (their sub-block rescaling), the delta rule makes the recurrent pass slower.
 * A sequence shorter than the crossing runs token by token; when a full chunk
 * already costs more than C recurrent steps, every length does. Kernels with a
 * solve are always chunkwise (0). */
#include "cost.h"

#define COST_ALWAYS (1 << 30)

int cost_rec_below(const cls_family *f) {
  const layer_spec *s = f->spec;
  if (f->has_solve) return 0; /* the solve has no recurrent form in the forward: always chunkwise */
  const double K = s->K, V = s->V, C = s->chunk;
  const int delta = f->main.delta != 0, diag = f->main.decay == DECAY_DIAG;
  const double rho = diag ? (delta ? 1.25 : 1.13) : (delta ? 1.7 : 1.5);
  const double fr = 2.0 * (2 + delta) * K * V, fc = fr + (1 + delta) * (K + V) * C;
  if (fr <= fc / rho) return COST_ALWAYS; /* a full chunk costs more than C recurrent steps */
  int t = 1; /* smallest T with T fr >= max(T, C/4) fc / rho */
  while (t < C && t * fr < (t > C / 4 ? t : C / 4) * fc / rho) t++;
  return t;
}
