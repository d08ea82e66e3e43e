// GEMM family through OpenBLAS sgemm: mm, addmm, bmm. No hand-written loops for the products.
//   mm     (a, b) -> out                 ints [trans_a, trans_b]
//   addmm  (bias, a, b) -> out           ints [trans_a, trans_b], floats [beta, alpha]
//   bmm    (a, b) -> out                 ints [trans_a, trans_b]
// With trans_a the slot a holds A^T (shape [k, m]); likewise b. This lets the lowering fold a
// transpose of a weight into the product instead of copying it.
#include <cblas.h>

#include <algorithm>

#include "runtime/kernel.hpp"

namespace glassbox::runtime {
namespace {

struct MatDims {
  std::int64_t m, k, n;
};

// Check a, b, out of a (batched) product; `batch` dims are the leading ones.
MatDims verify_product(const VerifyContext& c, const ValueDesc& a, const ValueDesc& b,
                       const ValueDesc& out, std::size_t batch_dims) {
  c.num_ints(2);
  bool ta = c.ints()[0] != 0, tb = c.ints()[1] != 0;
  std::size_t nd = batch_dims + 2;
  c.require(a.shape.size() == nd && b.shape.size() == nd,
            "operands must have " + std::to_string(nd) + " dims");
  c.dtype(a, DType::Float32, "a");
  c.dtype(b, DType::Float32, "b");
  c.dtype(out, DType::Float32, "output");
  std::int64_t m = ta ? a.shape[batch_dims + 1] : a.shape[batch_dims];
  std::int64_t k = ta ? a.shape[batch_dims] : a.shape[batch_dims + 1];
  std::int64_t kb = tb ? b.shape[batch_dims + 1] : b.shape[batch_dims];
  std::int64_t n = tb ? b.shape[batch_dims] : b.shape[batch_dims + 1];
  c.require(k == kb, "inner dimensions differ: " + shape_str(a.shape) + " @ " + shape_str(b.shape));
  Shape expected;
  for (std::size_t d = 0; d < batch_dims; ++d) {
    c.require(a.shape[d] == b.shape[d], "batch dimensions differ");
    expected.push_back(a.shape[d]);
  }
  expected.push_back(m);
  expected.push_back(n);
  c.shape(out, expected, "output");
  return {m, k, n};
}

void sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
           const float* a, const float* b, float beta, float* c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0.0f)
      std::fill(c, c + m * n, 0.0f);
    else
      for (std::int64_t i = 0; i < m * n; ++i) c[i] *= beta;
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, a,
              static_cast<blasint>(ta ? m : k), b, static_cast<blasint>(tb ? k : n), beta, c,
              static_cast<blasint>(n));
}

void verify_mm(const VerifyContext& c) {
  c.arity(2, 1);
  verify_product(c, c.in(0), c.in(1), c.out(0), 0);
}

void run_mm(const KernelContext& c) {
  TensorRef a = c.in(0), b = c.in(1), out = c.out(0);
  bool ta = c.ints()[0] != 0, tb = c.ints()[1] != 0;
  std::int64_t m = out.dim(0), n = out.dim(1), k = ta ? a.dim(0) : a.dim(1);
  sgemm(ta, tb, m, n, k, 1.0f, a.f32(), b.f32(), 0.0f, out.f32());
}

void verify_addmm(const VerifyContext& c) {
  c.arity(3, 1);
  c.num_floats(2);
  verify_product(c, c.in(1), c.in(2), c.out(0), 0);
  c.dtype(c.in(0), DType::Float32, "bias");
  std::vector<std::int64_t> strides;
  c.require(
      broadcast_strides(c.in(0).shape, c.out(0).shape, strides),
      "bias " + shape_str(c.in(0).shape) + " does not broadcast to " + shape_str(c.out(0).shape));
}

void run_addmm(const KernelContext& c) {
  TensorRef bias = c.in(0), a = c.in(1), b = c.in(2), out = c.out(0);
  bool ta = c.ints()[0] != 0, tb = c.ints()[1] != 0;
  float beta = static_cast<float>(c.floats()[0]), alpha = static_cast<float>(c.floats()[1]);
  std::int64_t m = out.dim(0), n = out.dim(1), k = ta ? a.dim(0) : a.dim(1);
  std::vector<std::int64_t> st;
  broadcast_strides(bias.shape(), out.shape(), st);
  const float* bp = bias.f32();
  float* op = out.f32();
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) op[i * n + j] = beta * bp[i * st[0] + j * st[1]];
  }
  sgemm(ta, tb, m, n, k, alpha, a.f32(), b.f32(), 1.0f, op);
}

void verify_bmm(const VerifyContext& c) {
  c.arity(2, 1);
  verify_product(c, c.in(0), c.in(1), c.out(0), 1);
}

void run_bmm(const KernelContext& c) {
  TensorRef a = c.in(0), b = c.in(1), out = c.out(0);
  bool ta = c.ints()[0] != 0, tb = c.ints()[1] != 0;
  std::int64_t batch = out.dim(0), m = out.dim(1), n = out.dim(2), k = ta ? a.dim(1) : a.dim(2);
  for (std::int64_t i = 0; i < batch; ++i) {
    sgemm(ta, tb, m, n, k, 1.0f, a.f32() + i * m * k, b.f32() + i * k * n, 0.0f,
          out.f32() + i * m * n);
  }
}

}  // namespace

void register_gemm_kernels(KernelRegistry& registry) {
  registry.add({"mm", verify_mm, run_mm});
  registry.add({"addmm", verify_addmm, run_addmm});
  registry.add({"bmm", verify_bmm, run_bmm});
}

}  // namespace glassbox::runtime
