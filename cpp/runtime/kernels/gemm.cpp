// GEMM family through OpenBLAS sgemm: mm, addmm, bmm. No hand-written loops for the products.
//   mm     (a, b) -> out                 GemmArgs: trans_a, trans_b, epilogue
//   addmm  (bias, a, b) -> out           GemmArgs: trans_a, trans_b, epilogue, beta, alpha
//   bmm    (a, b) -> out                 GemmArgs: trans_a, trans_b
// The epilogue is an activation applied to the result as it is written (see Epilogue).
// With trans_a the slot a holds A^T (shape [k, m]); likewise b. This lets the lowering fold a
// transpose of a weight into the product instead of copying it. Short, wide products are split
// by columns over OpenMP threads (see column_blocks); the rest use OpenBLAS's own threads.
// Short products against a weight that stays put go through oneDNN instead, with the weight packed
// once (kernels/packed_gemm.hpp); one-row products through kernels/gemv.hpp.
#include <cblas.h>

#include <algorithm>

#include "runtime/kernel.hpp"
#include "runtime/kernels/blas.hpp"
#include "runtime/kernels/gemv.hpp"
#include "runtime/kernels/packed_gemm.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {

// The epilogue of one row's columns [n0, n1), while they are in cache.
GBX_CLONES void epilogue_row(Epilogue epilogue, float* row, std::int64_t n0, std::int64_t n1) {
  switch (epilogue) {
    case Epilogue::None:
      break;
    case Epilogue::Relu:  // NaN stays NaN, as torch.relu
      for (std::int64_t j = n0; j < n1; ++j) row[j] = row[j] < 0.0f ? 0.0f : row[j];
      break;
    case Epilogue::GeluErf:
      for (std::int64_t j = n0; j < n1; ++j) row[j] = vmath::gelu_erf_f32(row[j]);
      break;
    case Epilogue::GeluTanh:
      for (std::int64_t j = n0; j < n1; ++j) row[j] = vmath::gelu_tanh_f32(row[j]);
      break;
    case Epilogue::Silu:
      for (std::int64_t j = n0; j < n1; ++j) row[j] = vmath::silu_f32(row[j]);
      break;
  }
}

namespace {

// The epilogue of columns [n0, n1) of a row-major [m, ldc] result; rows over OpenMP threads when
// large (inside a column block's thread this runs on that thread).
[[maybe_unused]] constexpr std::int64_t kParallelElements = 1 << 16;

void apply_epilogue(Epilogue epilogue, float* c, std::int64_t m, std::int64_t ldc, std::int64_t n0,
                    std::int64_t n1) {
  if (epilogue == Epilogue::None) return;
  run_team(m * (n1 - n0) >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    for (std::int64_t i = m * part / parts; i < m * (part + 1) / parts; ++i) {
      epilogue_row(epilogue, c + i * ldc, n0, n1);
    }
  });
}

struct MatDims {
  std::int64_t m, k, n;
};

// Check a, b, out of a (batched) product; `batch` dims are the leading ones.
// The GemmArgs every product carries (the loader has checked that it does).
const GemmArgs& gemm_args(const KernelContext& c) { return std::get<GemmArgs>(c.args()); }

// GemmArgs' fields: a known epilogue (none for bmm); alpha and beta 1 but for addmm.
const GemmArgs& verify_gemm_args(const VerifyContext& c, bool batched, bool scaled) {
  const auto* g = &c.args_as<GemmArgs>();
  c.require(g->epilogue >= 0 && g->epilogue <= static_cast<std::int64_t>(Epilogue::Silu),
            "unknown epilogue " + std::to_string(g->epilogue));
  c.require(!batched || g->epilogue == 0, "takes no epilogue");
  c.require(scaled || (g->alpha == 1.0 && g->beta == 1.0), "takes no alpha or beta");
  return *g;
}

MatDims verify_product(const VerifyContext& c, const ValueDesc& a, const ValueDesc& b,
                       const ValueDesc& out, std::size_t batch_dims, bool scaled) {
  const GemmArgs& g = verify_gemm_args(c, batch_dims > 0, scaled);
  bool ta = g.trans_a, tb = g.trans_b;
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

// Row-major C[m, n0:n1] = alpha op(A) op(B)[:, n0:n1] + beta C[m, n0:n1]; ldc is the full n.
void sgemm_columns(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                   std::int64_t n0, std::int64_t n1, float alpha, const float* a, const float* b,
                   float beta, float* c) {
  // Column n of op(B) starts at b + n * k when B is stored transposed ([n, k]), else at b + n.
  const float* bj = b + (tb ? n0 * k : n0);
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n1 - n0), static_cast<blasint>(k),
              alpha, a, static_cast<blasint>(ta ? m : k), bj, static_cast<blasint>(tb ? k : n),
              beta, c + n0, static_cast<blasint>(n));
}

// How many column blocks a product is split into, each run by one OpenMP thread calling
// single-threaded OpenBLAS. OpenBLAS's own threading does not pay for short, wide products (the
// encoder's 32-token linears; one-row products, which no longer come here, had the same split):
// it gains nothing at m = 32. Measured on 2 cores (Zen 4, OpenBLAS 0.3.21): 32x256x1024 from
// 170-220 us to ~135 us; the encoder block at batch 1 from ~780 us to ~650 us. Other shapes keep
// OpenBLAS's own threading.
int column_blocks(std::int64_t m, std::int64_t n, std::int64_t k, int blas_threads) {
#ifdef _OPENMP
  if (blas_threads < 2 || m > 64 || m * n * k < (1 << 17) || n < 64 * blas_threads) return 1;
  return blas_threads;
#else
  (void)m, (void)n, (void)k, (void)blas_threads;
  return 1;
#endif
}

// Row-major C = epilogue(alpha op(A) op(B) + beta C), C is [m, n]. `prepare(n0, n1)` runs first
// on each column block (addmm writes the bias there).
template <typename Prepare>
void sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
           const float* a, const float* b, float beta, float* c, Epilogue epilogue,
           Prepare prepare) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    prepare(0, n);
    if (beta == 0.0f)
      std::fill(c, c + m * n, 0.0f);
    else
      for (std::int64_t i = 0; i < m * n; ++i) c[i] *= beta;
    apply_epilogue(epilogue, c, m, n, 0, n);
    return;
  }
  const int blocks = column_blocks(m, n, k, blas_threads());
  if (blocks == 1) {
    prepare(0, n);
    sgemm_columns(ta, tb, m, n, k, 0, n, alpha, a, b, beta, c);
    apply_epilogue(epilogue, c, m, n, 0, n);
    return;
  }
  // Blocks of whole 16-column groups (one AVX-512 register of output) where possible.
  const std::int64_t groups = (n + 15) / 16;
  auto block = [&](int j) {
    std::int64_t n0 = std::min(n, groups * j / blocks * 16);
    std::int64_t n1 = std::min(n, groups * (j + 1) / blocks * 16);
    if (n1 > n0) {
      prepare(n0, n1);
      sgemm_columns(ta, tb, m, n, k, n0, n1, alpha, a, b, beta, c);
      apply_epilogue(epilogue, c, m, n, n0, n1);
    }
  };
  BlasOnCallers on_callers;
  // A team whose workers stalled recently (other processes on the cores) backs off to the
  // calling thread, as the matrix-vector kernel and the executor's teams do. It runs the same
  // blocks in turn: OpenBLAS's last bits depend on the column range it is given (16x256x128
  // with B transposed, whole or in two halves), so the result must not depend on who runs them.
  if (!TeamStalls::may_fork()) {
    for (int j = 0; j < blocks; ++j) block(j);
    return;
  }
  TeamRegion region;
#ifdef _OPENMP
#pragma omp parallel for num_threads(blocks) schedule(static)
#endif
  for (int j = 0; j < blocks; ++j) region.part(j, [&] { block(j); });
}

void sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
           const float* a, const float* b, float beta, float* c, Epilogue epilogue) {
  sgemm(ta, tb, m, n, k, alpha, a, b, beta, c, epilogue, [](std::int64_t, std::int64_t) {});
}

Epilogue epilogue_of(const KernelContext& c) {
  return static_cast<Epilogue>(gemm_args(c).epilogue);
}

bool try_packed(const KernelContext& c, const PackedProduct& p) {
  return p.m >= kPackedGemmMinRows && p.m <= kPackedGemmMaxRows && p.b_version != 0 &&
         run_packed_gemm(c, p);
}

void verify_mm(const VerifyContext& c) {
  c.arity(2, 1);
  verify_product(c, c.in(0), c.in(1), c.out(0), 0, false);
}

// The one-row product of mm (m == 1): A is k contiguous floats whether its slot holds A or A^T.
MatVec matvec_of_mm(const KernelContext& c) {
  TensorRef a = c.in(0), b = c.in(1), out = c.out(0);
  bool ta = gemm_args(c).trans_a, tb = gemm_args(c).trans_b;
  std::int64_t n = out.dim(1), k = ta ? a.dim(0) : a.dim(1);
  return {tb, n, k, a.f32(), b.f32(), nullptr, 0, 1.0f, 0.0f, out.f32(), epilogue_of(c)};
}

void run_mm(const KernelContext& c) {
  TensorRef a = c.in(0), b = c.in(1), out = c.out(0);
  bool ta = gemm_args(c).trans_a, tb = gemm_args(c).trans_b;
  std::int64_t m = out.dim(0), n = out.dim(1), k = ta ? a.dim(0) : a.dim(1);
  Epilogue epilogue = epilogue_of(c);
  if (m == 1) {
    run_matvec(matvec_of_mm(c));
    return;
  }
  if (try_packed(
          c, {ta, tb, m, n, k, a.f32(), b.f32(), c.version(1), nullptr, out.f32(), epilogue, 1})) {
    return;
  }
  sgemm(ta, tb, m, n, k, 1.0f, a.f32(), b.f32(), 0.0f, out.f32(), epilogue);
}

void part_mm(const KernelContext& c, int part, int parts) {
  run_matvec_part(matvec_of_mm(c), part, parts);
}

// One-row products large enough to share out (mm: A is input 0; addmm: input 1).
bool shares_one_row(const VerifyContext& c, std::size_t a_input) {
  const ValueDesc &a = c.in(a_input), &out = c.out(0);
  bool ta = std::get<GemmArgs>(c.args()).trans_a;
  return out.shape[0] == 1 && matvec_shares(out.shape[1], ta ? a.shape[0] : a.shape[1]);
}

bool shares_mm(const VerifyContext& c) { return shares_one_row(c, 0); }

void verify_addmm(const VerifyContext& c) {
  c.arity(3, 1);
  verify_product(c, c.in(1), c.in(2), c.out(0), 0, true);
  c.dtype(c.in(0), DType::Float32, "bias");
  std::vector<std::int64_t> strides;
  c.require(
      broadcast_strides(c.in(0).shape, c.out(0).shape, strides),
      "bias " + shape_str(c.in(0).shape) + " does not broadcast to " + shape_str(c.out(0).shape));
}

// The one-row product of addmm (m == 1): the bias broadcasts along the row, stride 0 or 1.
MatVec matvec_of_addmm(const KernelContext& c) {
  TensorRef bias = c.in(0), a = c.in(1), b = c.in(2), out = c.out(0);
  bool ta = gemm_args(c).trans_a, tb = gemm_args(c).trans_b;
  std::int64_t n = out.dim(1), k = ta ? a.dim(0) : a.dim(1);
  std::int64_t bias_stride = bias.ndim() > 0 && bias.shape().back() == n && n != 1 ? 1 : 0;
  float alpha = static_cast<float>(gemm_args(c).alpha),
        beta = static_cast<float>(gemm_args(c).beta);
  return {tb,          n,     k,    a.f32(),   b.f32(),       bias.f32(),
          bias_stride, alpha, beta, out.f32(), epilogue_of(c)};
}

void run_addmm(const KernelContext& c) {
  TensorRef bias = c.in(0), a = c.in(1), b = c.in(2), out = c.out(0);
  bool ta = gemm_args(c).trans_a, tb = gemm_args(c).trans_b;
  float beta = static_cast<float>(gemm_args(c).beta),
        alpha = static_cast<float>(gemm_args(c).alpha);
  std::int64_t m = out.dim(0), n = out.dim(1), k = ta ? a.dim(0) : a.dim(1);
  if (m == 1) {
    run_matvec(matvec_of_addmm(c));
    return;
  }
  std::vector<std::int64_t> st;
  broadcast_strides(bias.shape(), out.shape(), st);
  Epilogue epilogue = epilogue_of(c);
  if (beta == 1.0f && alpha == 1.0f && st[0] == 0 && (st[1] == 1 || n == 1) &&
      try_packed(c, {ta, tb, m, n, k, a.f32(), b.f32(), c.version(2), bias.f32(), out.f32(),
                     epilogue, 2})) {
    return;
  }
  const float* bp = bias.f32();
  float* op = out.f32();
  auto write_bias = [&](std::int64_t n0, std::int64_t n1) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = n0; j < n1; ++j) op[i * n + j] = beta * bp[i * st[0] + j * st[1]];
    }
  };
  sgemm(ta, tb, m, n, k, alpha, a.f32(), b.f32(), 1.0f, op, epilogue, write_bias);
}

void part_addmm(const KernelContext& c, int part, int parts) {
  run_matvec_part(matvec_of_addmm(c), part, parts);
}

bool shares_addmm(const VerifyContext& c) { return shares_one_row(c, 1); }

void verify_bmm(const VerifyContext& c) {
  c.arity(2, 1);
  verify_product(c, c.in(0), c.in(1), c.out(0), 1, false);
}

void run_bmm(const KernelContext& c) {
  TensorRef a = c.in(0), b = c.in(1), out = c.out(0);
  bool ta = gemm_args(c).trans_a, tb = gemm_args(c).trans_b;
  std::int64_t batch = out.dim(0), m = out.dim(1), n = out.dim(2), k = ta ? a.dim(1) : a.dim(2);
  for (std::int64_t i = 0; i < batch; ++i) {
    sgemm(ta, tb, m, n, k, 1.0f, a.f32() + i * m * k, b.f32() + i * k * n, 0.0f,
          out.f32() + i * m * n, Epilogue::None);
  }
}

}  // namespace

int blas_threads() {
  static const int threads = openblas_get_num_threads();
  return threads;
}

bool blas_runs_on_openmp() {
  static const bool openmp = openblas_get_parallel() == 2;
  return openmp;
}

BlasOnCallers::BlasOnCallers() : lowered_(!blas_runs_on_openmp()) {
  if (lowered_) openblas_set_num_threads(1);  // process-wide
}

BlasOnCallers::~BlasOnCallers() {
  if (lowered_) openblas_set_num_threads(blas_threads());
}

void register_gemm_kernels(KernelRegistry& registry) {
  registry.add({"mm", verify_mm, run_mm, shares_mm, part_mm});
  registry.add({"addmm", verify_addmm, run_addmm, shares_addmm, part_addmm});
  registry.add({"bmm", verify_bmm, run_bmm});
}

}  // namespace glassbox::runtime
