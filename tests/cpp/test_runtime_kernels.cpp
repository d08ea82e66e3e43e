// Kernels through one-instruction programs: results against direct computations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/serializer.hpp"
#include "runtime/team_stalls.hpp"

namespace rt = glassbox::runtime;

namespace {

rt::ValueDesc v(rt::Shape shape, rt::ValueKind kind, std::int64_t index,
                rt::DType d = rt::DType::Float32) {
  rt::ValueDesc x;
  x.dtype = d;
  x.shape = std::move(shape);
  x.kind = kind;
  x.index = index;
  return x;
}

std::vector<float> run1(const std::string& op, std::vector<rt::ValueDesc> ins, rt::ValueDesc out,
                        std::vector<std::vector<float>> data, rt::KernelArgs args = {}) {
  rt::ProgramSpec s;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    s.values.push_back(ins[i]);
    s.inputs.push_back(static_cast<std::int32_t>(i));
  }
  out.kind = rt::ValueKind::Arena;
  out.index = 0;
  s.values.push_back(out);
  std::int32_t o = static_cast<std::int32_t>(ins.size());
  s.outputs = {o};
  std::vector<std::int32_t> in_slots(ins.size());
  for (std::size_t i = 0; i < ins.size(); ++i) in_slots[i] = static_cast<std::int32_t>(i);
  s.instructions.push_back({op, in_slots, {o}, args});
  s.arena_size =
      (static_cast<std::uint64_t>(rt::numel_of(out.shape)) * rt::element_size(out.dtype) + 63) /
      64 * 64;
  std::string bytes = rt::serialize_program(s);
  rt::Executor ex(rt::Program::load_buffer(bytes.data(), bytes.size()));
  std::vector<rt::InputTensor> inputs;
  for (std::size_t i = 0; i < ins.size(); ++i)
    inputs.push_back({data[i].data(), ins[i].dtype, ins[i].shape, {}});
  auto outs = ex.run(inputs);
  const float* p = static_cast<const float*>(outs[0].data());
  return std::vector<float>(p, p + rt::numel_of(outs[0].shape));
}

}  // namespace

TEST(RuntimeKernels, SoftmaxRowsSumToOne) {
  auto y = run1("softmax", {v({2, 3}, rt::ValueKind::Input, 0)}, v({2, 3}, rt::ValueKind::Arena, 0),
                {{1, 2, 3, 0, 0, 0}}, rt::DimArgs{1});
  EXPECT_NEAR(y[0] + y[1] + y[2], 1.0f, 1e-6);
  EXPECT_NEAR(y[3], 1.0f / 3, 1e-6);
}

TEST(RuntimeKernels, SumOverMiddleDim) {
  auto y = run1("sum", {v({2, 3, 2}, rt::ValueKind::Input, 0)}, v({2, 2}, rt::ValueKind::Arena, 0),
                {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, rt::ReduceArgs{{1}, false, 0.0});
  EXPECT_EQ(y, (std::vector<float>{6, 9, 24, 27}));
}

TEST(RuntimeKernels, CopyStridedTransposes) {
  auto y =
      run1("copy_strided", {v({2, 3}, rt::ValueKind::Input, 0)}, v({3, 2}, rt::ValueKind::Arena, 0),
           {{0, 1, 2, 3, 4, 5}}, rt::StridedArgs{0, {1, 3}, -1, {}});
  EXPECT_EQ(y, (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(RuntimeKernels, CopyStridedRejectsOutOfBoundsViews) {
  EXPECT_THROW(
      run1("copy_strided", {v({2, 3}, rt::ValueKind::Input, 0)}, v({3, 2}, rt::ValueKind::Arena, 0),
           {{0, 1, 2, 3, 4, 5}}, rt::StridedArgs{1, {1, 3}, -1, {}}),
      rt::LoadError);
  // Steps whose product overflows 64 bits (2^40 x (2^24 - 1), either sign) must not wrap into
  // the base: the verifier checks each step against the room left before taking it.
  for (std::int64_t stride : {std::int64_t{1} << 40, -(std::int64_t{1} << 40)}) {
    EXPECT_THROW(run1("copy_strided", {v({2, 3}, rt::ValueKind::Input, 0)},
                      v({std::int64_t{1} << 24}, rt::ValueKind::Arena, 0), {{0, 1, 2, 3, 4, 5}},
                      rt::StridedArgs{stride < 0 ? 5 : 0, {stride}, -1, {}}),
                 rt::LoadError);
  }
}

TEST(RuntimeKernels, Conv2dMatchesDirectSum) {
  // 1 image, 1 channel 3x3, one 2x2 kernel of ones, padding 0: sums of 2x2 windows.
  auto y =
      run1("conv2d",
           {v({1, 1, 3, 3}, rt::ValueKind::Input, 0), v({1, 1, 2, 2}, rt::ValueKind::Input, 1)},
           v({1, 1, 2, 2}, rt::ValueKind::Arena, 0), {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 1, 1}},
           rt::Conv2dArgs{});
  EXPECT_EQ(y, (std::vector<float>{12, 16, 24, 28}));
}

TEST(RuntimeKernels, Conv2dFoldedBatchNormOnTheIm2colPath) {
  // No input channels: oneDNN is not asked, and the output of each channel is its bias, then the
  // folded batch norm relu((bias - mean) / sqrt(var + eps) * weight + shift) over every position.
  const std::vector<float> bias{1, -2, 3}, weight{2, 1, -1}, shift{0.5f, 0, 1}, mean{0, 1, 2},
      var{4, 0.25f, 1};
  const double eps = 1e-5;
  std::vector<rt::ValueDesc> ins{v({2, 0, 2, 2}, rt::ValueKind::Input, 0),
                                 v({3, 0, 1, 1}, rt::ValueKind::Input, 1)};
  for (int i = 0; i < 5; ++i) ins.push_back(v({3}, rt::ValueKind::Input, 2 + i));
  rt::Conv2dArgs args;
  args.has_bias = args.batch_norm = args.batch_norm_weight = args.batch_norm_bias = true;
  args.epilogue = 1;  // relu
  args.batch_norm_eps = eps;
  auto y = run1("conv2d", ins, v({2, 3, 2, 2}, rt::ValueKind::Arena, 0),
                {{}, {}, bias, weight, shift, mean, var}, args);
  ASSERT_EQ(y.size(), 24u);
  for (std::size_t i = 0; i < y.size(); ++i) {
    std::size_t o = i / 4 % 3;
    double expected = (bias[o] - mean[o]) / std::sqrt(var[o] + eps) * weight[o] + shift[o];
    EXPECT_NEAR(y[i], std::max(expected, 0.0), 1e-5) << i;
  }
}

TEST(RuntimeKernels, EmbeddingIndexOutOfRangeIsRunError) {
  EXPECT_THROW(
      run1("embedding",
           {v({3, 2}, rt::ValueKind::Input, 0), v({1}, rt::ValueKind::Input, 1, rt::DType::Int64)},
           v({1, 2}, rt::ValueKind::Arena, 0), {{0, 1, 2, 3, 4, 5}, {1e30f, 1e30f}}),
      rt::RunError);
}

// One-row products (the matrix-vector kernel): both layouts of B, bias broadcast or per column,
// alpha and beta, each epilogue, lengths that are not multiples of the vector width, and sizes
// that split over threads; against a direct sum in double.
TEST(RuntimeKernels, OneRowProductsMatchDirectSums) {
  struct Case {
    std::int64_t n, k;
    bool tb;
    int bias;  // 0 none (mm), 1 one value, 2 per column
    double beta, alpha;
    std::int64_t epilogue;
  };
  const Case cases[] = {
      {5, 3, true, 0, 1, 1, 0},
      {37, 19, true, 2, 1, 1, 1},
      {37, 19, false, 2, 1, 1, 1},
      {64, 33, false, 1, 0.5, 2, 0},
      {16, 48, true, 2, 0, 1, 2},
      {7, 0, true, 2, 1, 1, 0},
      {1, 70, true, 1, 1, 1, 3},
      {45, 70, true, 2, 1, 1, 4},
      {530, 260, true, 2, 1, 1, 1},
      {530, 260, false, 2, 1, 1, 0},
      {1000, 131, false, 0, 1, 1, 2},
      {300, 513, true, 1, 2, 0.5, 0},
      // x held in registers (k a multiple of 256), four-row groups with remainders.
      {515, 512, true, 2, 1, 1, 1},
      {6, 256, true, 0, 1, 1, 0},
      {3, 768, true, 1, 1, 1, 2},
      {600, 300, false, 0, 1, 1, 4}};
  for (const Case& c : cases) {
    std::vector<float> a(static_cast<std::size_t>(c.k)), b(static_cast<std::size_t>(c.n * c.k)),
        bias(static_cast<std::size_t>(c.bias == 2 ? c.n : 1));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 11) - 5.0f;
    for (std::size_t i = 0; i < b.size(); ++i)
      b[i] = static_cast<float>((i * 5) % 13) * 0.25f - 1.5f;
    for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i % 3) - 1.0f;
    rt::Shape b_shape = c.tb ? rt::Shape{c.n, c.k} : rt::Shape{c.k, c.n};
    std::vector<rt::ValueDesc> ins = {v({1, c.k}, rt::ValueKind::Input, 0),
                                      v(b_shape, rt::ValueKind::Input, 1)};
    std::vector<std::vector<float>> data = {a, b};
    rt::GemmArgs args{false, c.tb, c.epilogue, 1.0, 1.0};
    std::string op = "mm";
    if (c.bias) {
      op = "addmm";
      ins.insert(ins.begin(),
                 v(c.bias == 2 ? rt::Shape{c.n} : rt::Shape{1}, rt::ValueKind::Input, 0));
      data.insert(data.begin(), bias);
      args.beta = c.beta, args.alpha = c.alpha;
    }
    for (std::size_t i = 0; i < ins.size(); ++i) ins[i].index = static_cast<std::int64_t>(i);
    auto y = run1(op, ins, v({1, c.n}, rt::ValueKind::Arena, 0), data, args);
    for (std::int64_t j = 0; j < c.n; ++j) {
      double s = 0;
      for (std::int64_t i = 0; i < c.k; ++i) {
        s += static_cast<double>(a[i]) * (c.tb ? b[j * c.k + i] : b[i * c.n + j]);
      }
      if (c.bias) {
        s = c.alpha * s + (c.beta != 0 ? c.beta * bias[c.bias == 2 ? j : 0] : 0.0);
      }
      if (c.epilogue == 1) s = std::max(s, 0.0);
      if (c.epilogue == 2) s = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
      if (c.epilogue == 3) {
        s = 0.5 * s * (1 + std::tanh(std::sqrt(2 / M_PI) * (s + 0.044715 * s * s * s)));
      }
      if (c.epilogue == 4) s = s / (1 + std::exp(-s));  // silu
      EXPECT_NEAR(y[j], s, 1e-4 * (1 + std::abs(s))) << "n " << c.n << " k " << c.k << " j " << j;
    }
  }
}

// A product split into column blocks gives the same bits whether a team runs the blocks or the
// calling thread runs them in turn after a stall (OpenBLAS's last bits depend on the column range
// it is given: 16x256x128 with B transposed differs whole and in halves).
TEST(TeamStalls, BackingOffKeepsTheProductsBits) {
  using rt::TeamStalls;
  const std::int64_t m = 16, k = 256, n = 128;
  std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(n * k));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.11f * static_cast<float>(i));
  auto product = [&] {
    return run1("mm", {v({m, k}, rt::ValueKind::Input, 0), v({n, k}, rt::ValueKind::Input, 1)},
                v({m, n}, rt::ValueKind::Arena, 0), {a, b}, rt::GemmArgs{false, true});
  };
  while (!TeamStalls::may_fork()) {  // whatever earlier tests left
  }
  std::vector<float> team = product();
  TeamStalls::record(10e-6, 5e-3);  // a stall: the next regions run on the calling thread
  ASSERT_FALSE(TeamStalls::may_fork());
  EXPECT_EQ(product(), team);
  while (!TeamStalls::may_fork()) {
  }
}

// Team regions back off after a stall (a wait far longer than the calling thread's own work),
// for 256 regions the first time, and fork again after.
TEST(TeamStalls, BackOffAfterAStall) {
  using rt::TeamStalls;
  while (!TeamStalls::may_fork()) {  // whatever earlier tests left
  }
  for (int i = 0; i < 20; ++i) TeamStalls::record(10e-6, 5e-6);  // normal regions
  EXPECT_TRUE(TeamStalls::may_fork());
  TeamStalls::record(10e-6, 900e-6);  // under the floor (a slow wake): not a stall
  EXPECT_TRUE(TeamStalls::may_fork());
  TeamStalls::record(400e-6, 2e-3);  // over the floor, but only 5 times the work
  EXPECT_TRUE(TeamStalls::may_fork());
  TeamStalls::record(10e-6, 5e-3);  // a stall
  int skipped = 0;
  while (!TeamStalls::may_fork()) ++skipped;
  EXPECT_EQ(skipped, 256);
  TeamStalls::record(10e-6, 5e-6);  // a clean region: the next backoff is 256 again
}

namespace {

// Attention operands and a direct computation of softmax(scale q k^T + mask, causal) v, with q,
// k and v held tokens first ([B, T, H, E]) and the output heads first ([B, H, L, E]).
struct AttentionCase {
  std::int64_t b = 2, h = 4, hk = 2, l = 70, s = 9, e = 8;
  bool causal = false, masked = false;
  bool row_mask = false;  // a [b, 1, l, s] mask: keys after the query hidden, as HF's causal masks
  std::vector<float> q, k, val, mask;
  AttentionCase() { fill_data(); }
  void fill_data() {
    auto fill = [](std::vector<float>& x, std::int64_t n, float f) {
      x.resize(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(f * static_cast<float>(i + 1));
    };
    fill(q, b * l * h * e, 0.37f), fill(k, b * s * hk * e, 0.11f), fill(val, b * s * hk * e, 0.23f);
    fill(mask, b * s, 0.7f);
    for (std::int64_t j = 0; j < s; ++j) mask[static_cast<std::size_t>(s + j)] = -INFINITY;
    if (row_mask) fill_row_mask();
  }
  // Query i sees keys j <= i; batch 1 also hides its last 3 keys (right padding) and its first
  // key, so that its row 0 sees none.
  void fill_row_mask() {
    mask.assign(static_cast<std::size_t>(b * l * s), 0.0f);
    for (std::int64_t bi = 0; bi < b; ++bi)
      for (std::int64_t i = 0; i < l; ++i)
        for (std::int64_t j = 0; j < s; ++j) {
          bool hidden = j > i || (bi == 1 && (j >= s - 3 || j == 0));
          mask[static_cast<std::size_t>((bi * l + i) * s + j)] =
              hidden ? -INFINITY : 0.1f * std::sin(static_cast<float>(i + 3 * j));
        }
  }
  float mask_at(std::int64_t bi, std::int64_t i, std::int64_t j) const {
    return mask[static_cast<std::size_t>(row_mask ? (bi * l + i) * s + j : bi * s + j)];
  }
  std::vector<float> expected(float scale) const {
    std::vector<float> out(static_cast<std::size_t>(b * h * l * e), 0.0f);
    for (std::int64_t bi = 0; bi < b; ++bi)
      for (std::int64_t hi = 0; hi < h; ++hi)
        for (std::int64_t i = 0; i < l; ++i) row(bi, hi, i, scale, out);
    return out;
  }
  void row(std::int64_t bi, std::int64_t hi, std::int64_t i, float scale,
           std::vector<float>& out) const {
    std::int64_t g = hi / (h / hk);
    std::vector<double> w(static_cast<std::size_t>(s), -INFINITY);
    double mx = -INFINITY;
    for (std::int64_t j = 0; j < s && (!causal || j <= i); ++j) {
      double dot = 0;
      for (std::int64_t d = 0; d < e; ++d)
        dot += q[((bi * l + i) * h + hi) * e + d] * k[((bi * s + j) * hk + g) * e + d];
      w[j] = scale * dot + (masked ? mask_at(bi, i, j) : 0.0f);
      mx = std::max(mx, w[j]);
    }
    if (mx == -INFINITY) return;  // every key hidden: zeros
    double sum = 0;
    for (auto& x : w) sum += (x = std::exp(x - mx));
    for (std::int64_t d = 0; d < e; ++d) {
      double acc = 0;
      for (std::int64_t j = 0; j < s; ++j) acc += w[j] / sum * val[((bi * s + j) * hk + g) * e + d];
      out[((bi * h + hi) * l + i) * e + d] = static_cast<float>(acc);
    }
  }
  std::vector<float> run(float scale) const {
    std::vector<rt::ValueDesc> ins = {v({b, l, h, e}, rt::ValueKind::Input, 0),
                                      v({b, s, hk, e}, rt::ValueKind::Input, 1),
                                      v({b, s, hk, e}, rt::ValueKind::Input, 2)};
    std::vector<std::vector<float>> data = {q, k, val};
    if (masked) {
      ins.push_back(v({b, 1, row_mask ? l : 1, s}, rt::ValueKind::Input, 3));
      data.push_back(mask);
    }
    rt::AttentionArgs args{scale, causal, masked, true, true, true, false};
    return run1("attention", ins, v({b, h, l, e}, rt::ValueKind::Arena, 0), data, args);
  }
};

void expect_near(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5) << "at " << i;
}

}  // namespace

TEST(RuntimeKernels, AttentionMatchesADirectComputation) {
  for (bool causal : {false, true}) {
    for (bool masked : {false, true}) {
      AttentionCase a;
      a.causal = causal, a.masked = masked;
      SCOPED_TRACE(std::string(causal ? "causal" : "") + (masked ? " masked" : ""));
      expect_near(a.run(0.5f), a.expected(0.5f));
    }
  }
}

// Causal blocks of 64 queries read only the keys before their last query.
TEST(RuntimeKernels, AttentionCausalBlocksSeeTheirPrefix) {
  AttentionCase a;
  a.l = 150, a.s = 140, a.causal = true, a.masked = true;
  a.fill_data();
  expect_near(a.run(0.25f), a.expected(0.25f));
}

// Keys a whole block of rows cannot see through the mask are left out of both products.
TEST(RuntimeKernels, AttentionLeavesOutKeysTheMaskHidesFromABlock) {
  AttentionCase a;
  a.l = 150, a.s = 150, a.masked = true, a.row_mask = true;
  a.fill_data();
  std::vector<float> out = a.run(0.25f);
  expect_near(out, a.expected(0.25f));
  const std::size_t batch1_row0 = static_cast<std::size_t>(a.h * a.l * a.e);
  for (std::size_t d = 0; d < static_cast<std::size_t>(a.e); ++d)
    EXPECT_EQ(out[batch1_row0 + d], 0.0f);
}

TEST(RuntimeKernels, AttentionRowsThatSeeNoKeyAreZeros) {
  AttentionCase a;
  a.masked = true;  // batch 1's keys are all hidden
  std::vector<float> out = a.run(1.0f);
  const std::size_t per_batch = static_cast<std::size_t>(a.h * a.l * a.e);
  EXPECT_TRUE(std::all_of(out.begin() + per_batch, out.end(), [](float x) { return x == 0.0f; }));
}

TEST(RuntimeKernels, AttentionRefusesWhatItCannotCompute) {
  using rt::ValueKind;
  auto load = [](rt::Shape q, rt::Shape k, rt::Shape out, rt::KernelArgs args,
                 std::vector<rt::Shape> extra = {}) {
    std::vector<rt::ValueDesc> ins = {v(q, ValueKind::Input, 0), v(k, ValueKind::Input, 1),
                                      v(k, ValueKind::Input, 2)};
    for (auto& s : extra) ins.push_back(v(s, ValueKind::Input, 3));
    std::vector<std::vector<float>> data(ins.size());
    return run1("attention", ins, v(out, ValueKind::Arena, 0), data, args);
  };
  rt::AttentionArgs plain{1.0, false, false, false, false, false, false};
  EXPECT_THROW(load({1, 3, 4, 8}, {1, 2, 4, 8}, {1, 3, 4, 8}, plain), rt::LoadError);  // heads
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 4, 6}, {1, 2, 4, 8}, plain), rt::LoadError);  // widths
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 5, 8}, {1, 2, 4, 5}, plain), rt::LoadError);  // output
  rt::AttentionArgs masked = plain;
  masked.has_mask = true;
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 5, 8}, {1, 2, 4, 8}, masked, {{1, 1, 4, 1}}),
               rt::LoadError);  // the mask's last dim must be the keys'
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 5, 8}, {1, 2, 4, 8}, plain, {{1, 1, 4, 5}}),
               rt::LoadError);  // a fourth input without has_mask
  rt::AttentionArgs nan_scale = plain;
  nan_scale.scale = NAN;
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 5, 8}, {1, 2, 4, 8}, nan_scale), rt::LoadError);
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 5, 8}, {1, 2, 4, 8}, rt::GemmArgs{}), rt::LoadError);
  EXPECT_THROW(load({1, 2, 4, 8}, {1, 2, 5, 8}, {1, 2, 4, 8}, std::monostate{}), rt::LoadError);
}

// Backing off after a stall runs the same blocks on the calling thread: the same bits.
TEST(TeamStalls, BackingOffKeepsAttentionsBits) {
  using rt::TeamStalls;
  AttentionCase a;
  a.l = 200, a.s = 160, a.e = 32, a.masked = true, a.causal = true;
  a.fill_data();
  while (!TeamStalls::may_fork()) {  // whatever earlier tests left
  }
  std::vector<float> team = a.run(0.2f);
  TeamStalls::record(10e-6, 5e-3);
  ASSERT_FALSE(TeamStalls::may_fork());
  EXPECT_EQ(a.run(0.2f), team);
  while (!TeamStalls::may_fork()) {
  }
}

// Max pooling without indices (a pass per tap over each output row) against the window-by-window
// definition: padding, strides, windows cut by the edges, NaN and -inf inputs.
TEST(RuntimeKernels, MaxPoolWithoutIndicesMatchesItsDefinition) {
  const std::int64_t n = 2, ch = 3, h = 9, w = 11;
  std::vector<float> x(static_cast<std::size_t>(n * ch * h * w));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.7f * static_cast<float>(i));
  x[5] = NAN, x[40] = -INFINITY;
  struct Case {
    std::int64_t kh, kw, sh, sw, ph, pw;
  };
  for (Case k : {Case{3, 3, 2, 2, 1, 1}, Case{2, 3, 1, 2, 0, 1}, Case{3, 2, 3, 1, 1, 0}}) {
    const std::int64_t oh = (h + 2 * k.ph - k.kh) / k.sh + 1, ow = (w + 2 * k.pw - k.kw) / k.sw + 1;
    std::vector<float> got = run1("max_pool2d", {v({n, ch, h, w}, rt::ValueKind::Input, 0)},
                                  v({n, ch, oh, ow}, rt::ValueKind::Arena, 0), {x},
                                  rt::Pool2dArgs{k.kh, k.kw, k.sh, k.sw, k.ph, k.pw});
    for (std::int64_t p = 0; p < n * ch; ++p) {
      for (std::int64_t i = 0; i < oh * ow; ++i) {
        const std::int64_t r = i / ow, c = i % ow;
        float best = -INFINITY;
        for (std::int64_t a = 0; a < k.kh; ++a) {
          for (std::int64_t b = 0; b < k.kw; ++b) {
            const std::int64_t y = r * k.sh - k.ph + a, z = c * k.sw - k.pw + b;
            if (y < 0 || y >= h || z < 0 || z >= w) continue;
            const float t = x[static_cast<std::size_t>((p * h + y) * w + z)];
            best = (t > best || t != t) ? t : best;
          }
        }
        const float g = got[static_cast<std::size_t>(p * oh * ow + i)];
        ASSERT_TRUE(g == best || (g != g && best != best)) << "plane " << p << " output " << i;
      }
    }
  }
}

// Copies and reductions large enough to be split across a team, against direct computations,
// and the same bits when the calling thread runs every part after a stall.
TEST(TeamStalls, SplitCopiesAndReductionsMatchTheirDefinitions) {
  using rt::TeamStalls;
  const std::int64_t b = 31, t = 129, h = 4, e = 33;  // 527868: split; parts end mid-dim
  std::vector<float> x(static_cast<std::size_t>(b * t * h * e));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.013f * static_cast<float>(i));
  auto permuted = [&] {  // [b, t, h, e] -> [b, h, t, e]
    return run1("copy_strided", {v({b, t, h, e}, rt::ValueKind::Input, 0)},
                v({b, h, t, e}, rt::ValueKind::Arena, 0), {x},
                rt::StridedArgs{0, {t * h * e, e, h * e, 1}, -1, {}});
  };
  auto halves = [&] {  // x's two halves, each as [rows, e], side by side: [rows, 2 e]
    const std::int64_t rows = b * t * h, half = x.size() / 2;
    std::vector<float> lo(x.begin(), x.begin() + half), hi(x.begin() + half, x.end());
    return run1(
        "cat",
        {v({rows / 2, e}, rt::ValueKind::Input, 0), v({rows / 2, e}, rt::ValueKind::Input, 1)},
        v({rows / 2, 2 * e}, rt::ValueKind::Arena, 0), {lo, hi}, rt::DimArgs{1});
  };
  auto means = [&] {
    return run1("mean", {v({b * t * h, e}, rt::ValueKind::Input, 0)},
                v({b * t * h, 1}, rt::ValueKind::Arena, 0), {x}, rt::ReduceArgs{{1}, true, 0.0});
  };
  while (!TeamStalls::may_fork()) {  // whatever earlier tests left
  }
  std::vector<float> p = permuted(), c = halves(), m = means();
  for (std::int64_t i = 0; i < b; ++i)
    for (std::int64_t j = 0; j < t; ++j)
      for (std::int64_t k = 0; k < h; ++k)
        for (std::int64_t l = 0; l < e; ++l)
          ASSERT_EQ(p[static_cast<std::size_t>(((i * h + k) * t + j) * e + l)],
                    x[static_cast<std::size_t>(((i * t + j) * h + k) * e + l)]);
  const std::int64_t rows = b * t * h / 2, half = static_cast<std::int64_t>(x.size()) / 2;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t l = 0; l < e; ++l) {
      ASSERT_EQ(c[static_cast<std::size_t>(r * 2 * e + l)], x[static_cast<std::size_t>(r * e + l)]);
      ASSERT_EQ(c[static_cast<std::size_t>(r * 2 * e + e + l)],
                x[static_cast<std::size_t>(half + r * e + l)]);
    }
  for (std::int64_t r = 0; r < b * t * h; ++r) {
    double s = 0;
    for (std::int64_t l = 0; l < e; ++l) s += x[static_cast<std::size_t>(r * e + l)];
    ASSERT_NEAR(m[static_cast<std::size_t>(r)], s / e, 1e-6);
  }
  TeamStalls::record(10e-6, 5e-3);
  ASSERT_FALSE(TeamStalls::may_fork());
  EXPECT_EQ(permuted(), p);
  EXPECT_EQ(halves(), c);
  EXPECT_EQ(means(), m);
  while (!TeamStalls::may_fork()) {
  }
}

// rms_norm over the last dim against a direct computation in double, with and without a weight,
// over rows that split across a team; and what it refuses (a bias, layer_norm's extra outputs).
TEST(RuntimeKernels, RmsNormMatchesItsDefinition) {
  const std::int64_t rows = 700, size = 131;
  std::vector<float> x(static_cast<std::size_t>(rows * size)), w(static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 3.0f * std::sin(0.17f * static_cast<float>(i));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.5f * static_cast<float>(i));
  for (bool weighted : {false, true}) {
    std::vector<rt::ValueDesc> ins = {v({rows, size}, rt::ValueKind::Input, 0)};
    std::vector<std::vector<float>> data = {x};
    if (weighted) ins.push_back(v({size}, rt::ValueKind::Input, 1)), data.push_back(w);
    auto y = run1("rms_norm", ins, v({rows, size}, rt::ValueKind::Arena, 0), data,
                  rt::LayerNormArgs{1, weighted, false, 1e-6});
    for (std::int64_t r = 0; r < rows; ++r) {
      double ms = 0;
      for (std::int64_t i = 0; i < size; ++i) ms += double(x[r * size + i]) * x[r * size + i];
      const double rs = 1.0 / std::sqrt(ms / size + 1e-6);
      for (std::int64_t i = 0; i < size; ++i) {
        const double want = x[r * size + i] * rs * (weighted ? w[i] : 1.0);
        ASSERT_NEAR(y[r * size + i], want, 1e-5 * (1 + std::abs(want))) << r << " " << i;
      }
    }
  }
  std::vector<float> one(static_cast<std::size_t>(size), 1.0f);
  EXPECT_THROW(
      run1("rms_norm", {v({1, size}, rt::ValueKind::Input, 0), v({size}, rt::ValueKind::Input, 1)},
           v({1, size}, rt::ValueKind::Arena, 0), {one, one},
           rt::LayerNormArgs{1, false, true, 1e-6}),
      rt::LoadError);
}

// rotary reads x through a view (here the transpose of a [B, T, H, E] projection, as Llama's q),
// broadcasts cos and sin over batch and heads, and rounds each product and the sum as the
// formula x * cos + rotate_half(x) * sin does; it refuses an odd width, tables of another width,
// and a view reaching outside its base.
TEST(RuntimeKernels, RotaryMatchesItsFormulaThroughAView) {
  const std::int64_t b = 2, t = 3, h = 5, e = 8;
  std::vector<float> x(static_cast<std::size_t>(b * t * h * e)), cs(t * e), sn(t * e);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < cs.size(); ++i) {
    cs[i] = std::cos(0.21f * static_cast<float>(i));
    sn[i] = std::sin(0.21f * static_cast<float>(i));
  }
  const std::vector<rt::ValueDesc> ins = {v({b, t, h, e}, rt::ValueKind::Input, 0),
                                          v({1, 1, t, e}, rt::ValueKind::Input, 1),
                                          v({1, 1, t, e}, rt::ValueKind::Input, 2)};
  const rt::StridedArgs transpose{0, {t * h * e, e, h * e, 1}, -1, {}};
  auto y = run1("rotary", ins, v({b, h, t, e}, rt::ValueKind::Arena, 0), {x, cs, sn}, transpose);
  for (std::int64_t i = 0; i < b * h * t; ++i) {
    const std::int64_t bi = i / (h * t), hi = i / t % h, ti = i % t;
    const float* xr = x.data() + bi * t * h * e + ti * h * e + hi * e;
    const float *c = cs.data() + ti * e, *s = sn.data() + ti * e;
    for (std::int64_t j = 0; j < e; ++j) {
      const float rotated = j < e / 2 ? -xr[j + e / 2] : xr[j - e / 2];
      const float first = xr[j] * c[j], second = rotated * s[j];
      ASSERT_EQ(y[i * e + j], first + second) << i << " " << j;
    }
  }
  auto run_rotary = [&](std::int64_t width, std::int64_t table_width, std::int64_t offset) {
    std::vector<float> data(1000, 1.0f);
    return run1("rotary",
                {v({4, width}, rt::ValueKind::Input, 0), v({table_width}, rt::ValueKind::Input, 1),
                 v({table_width}, rt::ValueKind::Input, 2)},
                v({4, width}, rt::ValueKind::Arena, 0), {data, data, data},
                rt::StridedArgs{offset, {width, 1}, -1, {}});
  };
  // A 1-d x is one row: cos 1 and sin 2 give x + 2 * rotate_half(x).
  auto one = run1("rotary",
                  {v({4}, rt::ValueKind::Input, 0), v({4}, rt::ValueKind::Input, 1),
                   v({4}, rt::ValueKind::Input, 2)},
                  v({4}, rt::ValueKind::Arena, 0), {{1, 2, 3, 4}, {1, 1, 1, 1}, {2, 2, 2, 2}},
                  rt::StridedArgs{0, {1}, -1, {}});
  EXPECT_EQ(one, (std::vector<float>{1 - 6, 2 - 8, 3 + 2, 4 + 4}));
  EXPECT_NO_THROW(run_rotary(6, 6, 0));
  EXPECT_THROW(run_rotary(7, 7, 0), rt::LoadError);
  EXPECT_THROW(run_rotary(6, 3, 0), rt::LoadError);
  EXPECT_THROW(run_rotary(6, 6, 1), rt::LoadError);
}
