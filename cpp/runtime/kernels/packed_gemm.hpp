// Small-m products against a weight that stays put (a constant, or an input whose caller gives it
// a version): oneDNN's matmul over the weight reordered once into its blocked layout, kept in the
// instruction's cache and reordered again only when the weight's pointer or version changes.
// OpenBLAS repacks its operands on every call, which at m = 1..64 costs about as much as the
// product itself (32x256x1024 on 2 Zen 4 cores: ~125 GFLOP/s through OpenBLAS split by columns,
// ~215 GFLOP/s packed).
#pragma once

#include <cstdint>
#include <limits>

#include "runtime/kernel.hpp"

namespace glassbox::runtime {

// Products with this many rows go through the packed path when it applies. A single row (a
// matrix-vector product, bound by reading the weight) has its own kernel (gemv.hpp): the MLP at
// batch 1 took 12.8 us through OpenBLAS split by columns, 16 us packed. No upper bound: at 1024
// rows too oneDNN with the weight packed once beat OpenBLAS (tiny BERT at 8x128 tokens, one
// thread: 13.0 ms a call through OpenBLAS, 11.9 ms packed).
constexpr std::int64_t kPackedGemmMinRows = 2;
constexpr std::int64_t kPackedGemmMaxRows = std::numeric_limits<std::int64_t>::max();

// An activation applied to a product's result as it is written (GemmArgs.epilogue of mm and addmm,
// Conv2dArgs.epilogue of conv2d).
enum class Epilogue : std::int64_t { None = 0, Relu = 1, GeluErf = 2, GeluTanh = 3, Silu = 4 };

// oneDNN's alpha for an epilogue's eltwise post-op (swish computes x * sigmoid(alpha x)).
inline float onednn_alpha(Epilogue epilogue) { return epilogue == Epilogue::Silu ? 1.0f : 0.0f; }

// The epilogue over row[n0, n1), in place (gemm.cpp).
void epilogue_row(Epilogue epilogue, float* row, std::int64_t n0, std::int64_t n1);

struct PackedProduct {
  bool ta, tb;  // as in gemm.cpp: the slot of A holds A^T ([k, m]), likewise B
  std::int64_t m, n, k;
  const float* a;
  const float* b;
  std::uint64_t b_version;  // KernelContext::version of B, nonzero
  const float* bias;        // [n], added to every row, or null
  float* out;               // [m, n]
  Epilogue epilogue;
  std::size_t b_input;  // the instruction's input that holds B (released once packed)
};

// Run the product through the packed path and return true, or return false having done nothing
// (no cache, a shape the library refuses): the caller then runs the BLAS path.
bool run_packed_gemm(const KernelContext& c, const PackedProduct& p);

}  // namespace glassbox::runtime
