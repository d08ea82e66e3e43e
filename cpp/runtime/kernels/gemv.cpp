#include "runtime/kernels/gemv.hpp"

#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

using vmath::f32x16;
using vmath::kLanes;
using vmath::load16;
using vmath::splat16;

GBX_VMATH void store16(float* p, f32x16 v) { std::memcpy(p, &v, sizeof v); }

// Clang 14 rejects the row loops' clones (it sees the always-inlined vector helpers pass 64-byte
// vectors by value across the clone's calling convention): with clang they are compiled once,
// for the baseline (the fuzz build; the package is built with GCC).
#if defined(__clang__)
#define GBX_ROW_CLONES
#else
#define GBX_ROW_CLONES GBX_CLONES
#endif

// y[j] = sum_i b[j k + i] a[i] for rows j in [j0, j1) of a row-major [n, k] matrix: two rows at a
// time, two weight streams in flight and each load of a used twice (four rows measured ~1 us
// slower on the MLP at batch 1: more streams than the prefetchers follow well, and twice the
// horizontal sums at the end of each group).
GBX_ROW_CLONES void dot_rows(const float* b, const float* a, std::int64_t k, std::int64_t j0,
                             std::int64_t j1, float* y) {
  std::int64_t j = j0;
  for (; j + 2 <= j1; j += 2) {
    const float* r0 = b + j * k;
    const float* r1 = r0 + k;
    // Two sums a row: four independent chains of multiply-adds keep the vector units busy
    // (two chains wait on the multiply-add's latency).
    f32x16 s0 = {}, s1 = {}, u0 = {}, u1 = {};
    std::int64_t i = 0;
    for (; i + 2 * kLanes <= k; i += 2 * kLanes) {
      f32x16 x = load16(a + i), z = load16(a + i + kLanes);
      s0 += load16(r0 + i) * x;
      s1 += load16(r1 + i) * x;
      u0 += load16(r0 + i + kLanes) * z;
      u1 += load16(r1 + i + kLanes) * z;
    }
    for (; i + kLanes <= k; i += kLanes) {
      f32x16 x = load16(a + i);
      s0 += load16(r0 + i) * x;
      s1 += load16(r1 + i) * x;
    }
    s0 += u0;
    s1 += u1;
    float t0 = 0.0f, t1 = 0.0f;
    for (; i < k; ++i) {
      t0 += r0[i] * a[i];
      t1 += r1[i] * a[i];
    }
    y[j] = vmath::sum_lanes_tree(s0) + t0;
    y[j + 1] = vmath::sum_lanes_tree(s1) + t1;
  }
  if (j < j1) {
    const float* r = b + j * k;
    f32x16 s = {};
    std::int64_t i = 0;
    for (; i + kLanes <= k; i += kLanes) s += load16(r + i) * load16(a + i);
    float t = 0.0f;
    for (; i < k; ++i) t += r[i] * a[i];
    y[j] = vmath::sum_lanes_tree(s) + t;
  }
}

// dot_rows for k a multiple of kResident: x is read in chunks of kResident floats held in
// registers (16 vectors) while four rows at a time stream past them, so that each load of the
// weight feeds one multiply-add (dot_rows loads x again for every two rows: a third of its loads).
constexpr std::int64_t kResident = 16 * kLanes;

GBX_ROW_CLONES void dot_rows_resident(const float* b, const float* a, std::int64_t k,
                                      std::int64_t j0, std::int64_t j1, float* y) {
  for (std::int64_t i0 = 0; i0 < k; i0 += kResident) {
    f32x16 x[16];
#pragma GCC unroll 16
    for (int v = 0; v < 16; ++v) x[v] = load16(a + i0 + v * kLanes);
    const bool first = i0 == 0;
    std::int64_t j = j0;
    for (; j + 4 <= j1; j += 4) {
      const float* r0 = b + j * k + i0;
      const float *r1 = r0 + k, *r2 = r1 + k, *r3 = r2 + k;
      f32x16 s0 = {}, s1 = {}, s2 = {}, s3 = {};
#pragma GCC unroll 16
      for (int v = 0; v < 16; ++v) {
        s0 += load16(r0 + v * kLanes) * x[v];
        s1 += load16(r1 + v * kLanes) * x[v];
        s2 += load16(r2 + v * kLanes) * x[v];
        s3 += load16(r3 + v * kLanes) * x[v];
      }
      float t0 = vmath::sum_lanes_tree(s0), t1 = vmath::sum_lanes_tree(s1),
            t2 = vmath::sum_lanes_tree(s2), t3 = vmath::sum_lanes_tree(s3);
      y[j] = first ? t0 : y[j] + t0;
      y[j + 1] = first ? t1 : y[j + 1] + t1;
      y[j + 2] = first ? t2 : y[j + 2] + t2;
      y[j + 3] = first ? t3 : y[j + 3] + t3;
    }
    for (; j < j1; ++j) {
      const float* r = b + j * k + i0;
      f32x16 s = {};
#pragma GCC unroll 16
      for (int v = 0; v < 16; ++v) s += load16(r + v * kLanes) * x[v];
      float t = vmath::sum_lanes_tree(s);
      y[j] = first ? t : y[j] + t;
    }
  }
}

// y[j] = sum_i a[i] b[i n + j] for columns j in [j0, j1) of a row-major [k, n] matrix: four rows
// of b at a time added into y, which stays in L1.
GBX_ROW_CLONES void axpy_rows(const float* b, const float* a, std::int64_t n, std::int64_t k,
                              std::int64_t j0, std::int64_t j1, float* y) {
  std::fill(y + j0, y + j1, 0.0f);
  std::int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const float* r0 = b + i * n;
    const float *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    f32x16 a0 = splat16(a[i]), a1 = splat16(a[i + 1]), a2 = splat16(a[i + 2]),
           a3 = splat16(a[i + 3]);
    std::int64_t j = j0;
    for (; j + kLanes <= j1; j += kLanes) {
      f32x16 acc = load16(y + j);
      acc += load16(r0 + j) * a0 + load16(r1 + j) * a1 + load16(r2 + j) * a2 + load16(r3 + j) * a3;
      store16(y + j, acc);
    }
    for (; j < j1; ++j) {
      y[j] += r0[j] * a[i] + r1[j] * a[i + 1] + r2[j] * a[i + 2] + r3[j] * a[i + 3];
    }
  }
  for (; i < k; ++i) {
    const float* r = b + i * n;
    f32x16 ai = splat16(a[i]);
    std::int64_t j = j0;
    for (; j + kLanes <= j1; j += kLanes) store16(y + j, load16(y + j) + load16(r + j) * ai);
    for (; j < j1; ++j) y[j] += r[j] * a[i];
  }
}

// y[j] = epilogue(beta bias[j] + alpha y[j]) over [j0, j1), while y is in L1.
GBX_CLONES void finish(const MatVec& p, std::int64_t j0, std::int64_t j1) {
  float* y = p.y;
  if (p.alpha != 1.0f) {
    for (std::int64_t j = j0; j < j1; ++j) y[j] *= p.alpha;
  }
  if (p.bias && p.beta != 0.0f) {
    if (p.bias_stride == 0) {
      float c = p.beta * p.bias[0];
      for (std::int64_t j = j0; j < j1; ++j) y[j] += c;
    } else if (p.beta == 1.0f) {
      for (std::int64_t j = j0; j < j1; ++j) y[j] += p.bias[j];
    } else {
      for (std::int64_t j = j0; j < j1; ++j) y[j] += p.beta * p.bias[j];
    }
  }
  epilogue_row(p.epilogue, y, j0, j1);
}

void columns(const MatVec& p, std::int64_t j0, std::int64_t j1) {
  if (j1 <= j0) return;
  if (p.tb && p.k >= kResident && p.k % kResident == 0)
    dot_rows_resident(p.b, p.a, p.k, j0, j1, p.y);
  else if (p.tb)
    dot_rows(p.b, p.a, p.k, j0, j1, p.y);
  else
    axpy_rows(p.b, p.a, p.n, p.k, j0, j1, p.y);
  finish(p, j0, j1);
}

int team_size(const MatVec& p) {
#ifdef _OPENMP
  if (p.n * p.k < kMatVecParallelWeights || omp_in_parallel()) return 1;
  // At least 16 outputs (one AVX-512 register) a thread.
  return static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), p.n / kLanes));
#else
  (void)p;
  return 1;
#endif
}

}  // namespace

bool matvec_shares(std::int64_t n, std::int64_t k) {
  return n * k >= kMatVecParallelWeights && n >= 2 * kLanes;
}

// Where part `part` of a team of `team` starts, in 16-output groups. The calling thread (part 0)
// takes 9/10 of the others' share: it forks the team, so it starts last, and its caches are cold
// from the interpreter. Measured on the MLP at batch 1 (2 threads): the team's region took ~12.2 us
// split evenly, the calling thread finishing last; ~11 us with 45% for the caller (40%: ~13.5,
// the helper then last).
std::int64_t part_start(std::int64_t groups, std::int64_t part, std::int64_t team) {
  if (part <= 0) return 0;
  if (part >= team) return groups;
  return groups * (9 + 10 * (part - 1)) / (9 + 10 * (team - 1));
}

void run_matvec_part(const MatVec& p, int part, int parts) {
  // Blocks of whole 16-output groups: each thread writes its own cache lines of y.
  const std::int64_t groups = (p.n + kLanes - 1) / kLanes;
  const std::int64_t team = std::min<std::int64_t>(parts, std::max<std::int64_t>(1, p.n / kLanes));
  if (part >= team) return;
  columns(p, std::min(p.n, part_start(groups, part, team) * kLanes),
          std::min(p.n, part_start(groups, part + 1, team) * kLanes));
}

void run_matvec(const MatVec& p) {
  if (p.n == 0) return;
  const int team = team_size(p);
  if (team <= 1 || !TeamStalls::may_fork()) {
    columns(p, 0, p.n);
    return;
  }
  TeamRegion region;
#ifdef _OPENMP
#pragma omp parallel for num_threads(team) schedule(static)
#endif
  for (int t = 0; t < team; ++t) region.part(t, [&] { run_matvec_part(p, t, team); });
}

}  // namespace glassbox::runtime
