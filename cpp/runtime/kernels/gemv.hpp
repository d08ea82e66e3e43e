// Matrix-vector products: mm and addmm with one row, y = epilogue(beta bias + alpha a op(B)). At
// one row a product reads each weight once and does two flops per weight, so it is bound by how
// fast the weights stream in (1.6 MB of MLP weights: ~17 us from L3 on one Zen 4 core); what
// matters is keeping several independent streams in flight, touching the output once, and splitting
// the weights over the cores when there is enough to share. OpenBLAS's small-matrix path (the one a
// one-row sgemm takes) reached ~75% of that rate, and its bias and epilogue were separate passes.
#pragma once

#include <cstdint>

#include "runtime/kernels/packed_gemm.hpp"

namespace glassbox::runtime {

struct MatVec {
  bool tb;  // as in gemm.cpp: the slot of B holds B^T ([n, k]): output j is a dot product
  std::int64_t n, k;
  const float* a;            // [k]
  const float* b;            // [k, n], or [n, k] with tb
  const float* bias;         // element j at bias[j * bias_stride], or null
  std::int64_t bias_stride;  // 0 (one value for all) or 1
  float alpha, beta;         // beta 0: the bias is not read
  float* y;                  // [n], not overlapping a, b or the bias
  Epilogue epilogue;
};

// Products smaller than this many weights run on the calling thread: splitting costs a fork and a
// join of the OpenMP team (~1-3 us), as long as streaming this many from L3 on one core.
constexpr std::int64_t kMatVecParallelWeights = 1 << 17;

void run_matvec(const MatVec& p);
// Whether a product is worth sharing out as parts (a PartFn, see kernel.hpp): as for splitting.
bool matvec_shares(std::int64_t n, std::int64_t k);
// Part `part` of `parts` of the product (a share of the outputs; parts past the outputs do
// nothing). Does not throw.
void run_matvec_part(const MatVec& p, int part, int parts);

}  // namespace glassbox::runtime
