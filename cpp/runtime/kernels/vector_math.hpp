// Branch-free float32 exp, GELU and friends that compilers vectorise (no libm calls, no table
// lookups, selects instead of branches), for the elementwise and normalization kernels.
//
// Accuracy, measured against double precision (tests/cpp/test_vector_math.cpp):
//   exp_f32        ~2 ulp over the whole float range (inf above 88.72, 0 below -103.97)
//   erf_f32        ~3e-7 relative
//   gelu_erf_f32   x * Phi(x) with Phi from an erfc fit: no cancellation on either side, so the
//                  relative error stays below 1e-6 where the result is a normal float
//   gelu_tanh_f32  x * sigmoid(2 y), the tanh form without its cancellation: ~1e-6 relative,
//                  up to 2e-5 in the far negative tail (the exponent is rounded once)
//   tanh_f32       ~4e-7 relative
#pragma once

#include <cstdint>
#include <cstring>

namespace glassbox::runtime::vmath {

// Inlined into the caller's loop even when the inliner would rather not: a call stops
// vectorisation.
#define GBX_VMATH inline __attribute__((always_inline))

// A loop function compiled once per x86-64 level (AVX-512, AVX2, baseline) and picked at load time
// by the dynamic linker, so that its loops use the widest vectors the machine has.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define GBX_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GBX_CLONES
#endif

// Reductions in float over 16 independent partial results held in one vector value (GCC/Clang
// vector extensions: a plain float sum loop stays scalar unless -ffast-math, and an array of
// partial sums compiles to a loop through memory that was ten times slower on rows of 32).
typedef float f32x16 __attribute__((vector_size(64)));
typedef std::int32_t i32x16 __attribute__((vector_size(64)));
constexpr int kLanes = 16;

GBX_VMATH f32x16 load16(const float* p) {
  f32x16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

GBX_VMATH f32x16 splat16(float x) {
  f32x16 v;
  for (int l = 0; l < kLanes; ++l) v[l] = x;
  return v;
}

// Lanes of a where mask is set, of b elsewhere.
GBX_VMATH f32x16 select16(i32x16 mask, f32x16 a, f32x16 b) {
  return reinterpret_cast<f32x16>((reinterpret_cast<i32x16>(a) & mask) |
                                  (reinterpret_cast<i32x16>(b) & ~mask));
}

GBX_VMATH float sum_lanes(f32x16 v) {
  float s = 0.0f;
  for (int l = 0; l < kLanes; ++l) s += v[l];
  return s;
}

// The same sum as a tree of halves (4 dependent additions instead of 16): for code that reduces a
// vector per short row, where the chain of sum_lanes is the cost (a 512x512 matrix-vector product
// on one core, four rows at a time: ~14.9 us with sum_lanes, ~13.0 us with this).
typedef float f32x8 __attribute__((vector_size(32)));
typedef float f32x4 __attribute__((vector_size(16)));

GBX_VMATH float sum_lanes_tree(f32x16 v) {
  f32x8 lo8, hi8;
  std::memcpy(&lo8, &v, sizeof lo8);
  std::memcpy(&hi8, reinterpret_cast<const char*>(&v) + sizeof lo8, sizeof hi8);
  f32x8 s8 = lo8 + hi8;
  f32x4 lo4, hi4;
  std::memcpy(&lo4, &s8, sizeof lo4);
  std::memcpy(&hi4, reinterpret_cast<const char*>(&s8) + sizeof lo4, sizeof hi4);
  f32x4 s4 = lo4 + hi4;
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

// Sum of x - c (c = 0: the sum). Near c, the differences are exact (Sterbenz), so a c taken from
// the data keeps a large common offset from swamping the sum.
GBX_VMATH float sum_f32(const float* x, std::int64_t n, float c = 0.0f) {
  f32x16 acc = {}, cv = splat16(c);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc += load16(x + i) - cv;
  float s = 0.0f;
  for (; i < n; ++i) s += x[i] - c;
  return s + sum_lanes(acc);
}

// Sum of ((x - c) - d)^2: the squared deviations from the mean c + d, with c from the data
// (x - c exact near c) and d small.
GBX_VMATH float sum_sq_dev_f32(const float* x, std::int64_t n, float c, float d) {
  f32x16 acc = {}, cv = splat16(c), dv = splat16(d);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    f32x16 v = (load16(x + i) - cv) - dv;
    acc += v * v;
  }
  float s = 0.0f;
  for (; i < n; ++i) s += ((x[i] - c) - d) * ((x[i] - c) - d);
  return s + sum_lanes(acc);
}

// The largest element (NaN if any is NaN, as torch's max), -inf for none.
GBX_VMATH float max_f32(const float* x, std::int64_t n) {
  f32x16 acc = splat16(-__builtin_inff());
  i32x16 nan = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    f32x16 v = load16(x + i);
    acc = select16(v > acc, v, acc);
    nan |= v != v;
  }
  float m = -__builtin_inff();
  bool any_nan = false;
  for (; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    any_nan |= x[i] != x[i];
  }
  for (int l = 0; l < kLanes; ++l) {
    m = acc[l] > m ? acc[l] : m;
    any_nan |= nan[l] != 0;
  }
  return any_nan ? __builtin_nanf("") : m;
}

GBX_VMATH float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// e^(hi + lo), |lo| small next to |hi| or both small: hi + lo = n ln2 + r with |r| <= ln2 / 2,
// e^r by a degree-6 polynomial (Cephes' expf), 2^n built in two halves so that n down to -150
// (subnormal results) stays exact. hi - n ln2_hi is exact when hi has at most 24 significant
// bits at a scale of 2^-17 or coarser (true of any float >= 64 in magnitude, and of the exact
// squares gelu_erf_f32 passes), which keeps the reduction exact where e^x is tiny.
GBX_VMATH float exp_hilo_f32(float hi, float lo) {
  const float max_arg = 88.72283905f, min_arg = -103.97f;  // e^max_arg is FLT_MAX
  float x = hi + lo;
  // Written as min/max patterns (NaN takes the bound: finite, and the NaN still reaches r).
  float c = x < max_arg ? x : max_arg;
  c = c > min_arg ? c : min_arg;
  const float shifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  float n = (c * 1.44269504088896341f + shifter) - shifter;
  float r = (hi - n * 0.693359375f) + (lo - n * -2.12194440e-4f);  // NaN in, NaN out
  float r2 = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r2 + r + 1.0f;
  // 2^n = 2^(n/2 rounded down) * 2^(rest): each factor's exponent stays in the normal range.
  std::int32_t ni = static_cast<std::int32_t>(n);
  std::int32_t half = ni >> 1;
  float s1 = bits_to_float(static_cast<std::uint32_t>(half + 127) << 23);
  float s2 = bits_to_float(static_cast<std::uint32_t>(ni - half + 127) << 23);
  float result = p * s1 * s2;
  result = x > max_arg ? __builtin_inff() : result;
  return x < min_arg ? 0.0f : result;
}

GBX_VMATH float exp_f32(float x) { return exp_hilo_f32(x, 0.0f); }

// The 12 leading significant bits of x (its square is exact in float).
GBX_VMATH float leading_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return bits_to_float(u & 0xFFFFF000u);
}

// The Chebyshev fit of Numerical Recipes' erfcc: erfc(z) = t e^(-z^2 + P(t)), t = 1 / (1 + z/2),
// fractional error below 1.2e-7 for z >= 0 in exact arithmetic. Here z = |x| / sqrt 2 and -z^2
// goes to exp as an exact head and a small tail, so large |x| keep their relative accuracy.
GBX_VMATH float erfc_scaled_f32(float ax) {
  float z = ax * 0.70710678118654752f;
  float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  ax = ax < 20.0f ? ax : 20.0f;  // erfc(20 / sqrt 2) underflows; also keeps inf - inf away
  float head = leading_bits(ax);
  float hi = -0.5f * head * head;                // exact
  float lo = -0.5f * (ax - head) * (ax + head);  // -x^2/2 = hi + lo
  return t * exp_hilo_f32(hi, lo + p);
}

// erf(x): an odd Taylor series below 0.5 (no cancellation near 0), 1 - erfc above.
GBX_VMATH float erf_f32(float x) {
  float ax = x < 0.0f ? -x : x;
  float x2 = ax * ax;
  float s = -1.0f / 75600.0f;  // sum_k (-1)^k x^(2k+1) / (k! (2k+1)), k = 0..7 (and 2/sqrt pi)
  s = s * x2 + 1.0f / 9360.0f;
  s = s * x2 - 1.0f / 1320.0f;
  s = s * x2 + 1.0f / 216.0f;
  s = s * x2 - 1.0f / 42.0f;
  s = s * x2 + 1.0f / 10.0f;
  s = s * x2 - 1.0f / 3.0f;
  s = s * x2 + 1.0f;
  float small = 1.12837916709551257f * ax * s;
  float large = 1.0f - erfc_scaled_f32(ax * 1.41421356237309505f);
  float e = ax < 0.5f ? small : large;
  e = x < 0.0f ? -e : e;
  return x != x ? x : e;
}

// x * Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2, taken from whichever side has no cancellation.
GBX_VMATH float gelu_erf_f32(float x) {
  float ax = x < 0.0f ? -x : x;
  float tail = 0.5f * erfc_scaled_f32(ax);
  float phi = x < 0.0f ? tail : 1.0f - tail;
  return x * phi;
}

// 0.5 x (1 + tanh(y)) = x / (1 + e^(-2y)), y = sqrt(2/pi) (x + 0.044715 x^3).
GBX_VMATH float gelu_tanh_f32(float x) {
  float y = 0.79788456080286536f * (x + 0.044715f * x * x * x);
  return x / (1.0f + exp_f32(-2.0f * y));
}

GBX_VMATH float sigmoid_f32(float x) { return 1.0f / (1.0f + exp_f32(-x)); }

// x * sigmoid(x), as x / (1 + e^-x): the elementwise op and a product's epilogue alike.
GBX_VMATH float silu_f32(float x) { return x / (1.0f + exp_f32(-x)); }

// tanh. For |x| below 0.55 its odd Taylor series to x^15 (the next term is under 5e-8 of the
// result there); above, (1 - e) / (1 + e) with e = e^(-2|x|) <= 1/3, where 1 - e does not cancel.
// Both are computed on |x| and one is selected, so that loops vectorise; then x's sign bit is set
// (-0 stays -0). NaN takes the second form (the comparison is false) and stays NaN; +-inf give
// +-1.
GBX_VMATH float tanh_f32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  float ax = bits_to_float(bits & 0x7fffffffu);
  float e = exp_f32(-2.0f * ax);
  float large = (1.0f - e) / (1.0f + e);
  float x2 = ax * ax;
  float p = -1.4558344e-3f;  // -929569 / 638512875
  p = p * x2 + 3.5921280e-3f;
  p = p * x2 - 8.8632355e-3f;
  p = p * x2 + 2.1869488e-2f;
  p = p * x2 - 5.3968254e-2f;
  p = p * x2 + 1.3333334e-1f;
  p = p * x2 - 3.3333334e-1f;
  float small = ax + ax * x2 * p;
  float magnitude = ax < 0.55f ? small : large;
  std::uint32_t m;
  std::memcpy(&m, &magnitude, sizeof m);
  return bits_to_float(m | (bits & 0x80000000u));
}

}  // namespace glassbox::runtime::vmath
