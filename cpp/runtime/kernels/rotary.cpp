// The rotary position embedding (glassbox::rotary, written by the backend's patterns pass from
// the formula Llama and most decoders spell out):
//   rotary (x, cos, sin) -> out   StridedArgs: x is read at offset + i . strides (i over out's
//                                 shape), in place through the view it is (a transposed q or k);
//                                 cos and sin broadcast to out, with out's last dim.
// Over the last dim, of 2h elements:
//   out[j]     = x[j] * cos[j] - x[j + h] * sin[j]        (j < h)
//   out[j + h] = x[j + h] * cos[j + h] + x[j] * sin[j + h]
// which is x * cos + cat(-x[h:], x[:h]) * sin with each product and the sum rounded on its own,
// as the formula computes them: this file is compiled without contracting them into FMAs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/kernel.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

// Output elements from which the rows are split across a team.
[[maybe_unused]] constexpr std::int64_t kParallelElements = 1 << 16;

void verify_rotary(const VerifyContext& c) {
  c.arity(3, 1);
  const ValueDesc& out = c.out(0);
  for (std::size_t i = 0; i < 3; ++i) c.dtype(c.in(i), DType::Float32, "input");
  c.dtype(out, DType::Float32, "output");
  c.require(!out.shape.empty() && out.shape.back() % 2 == 0, "the last dim is not of even size");
  std::vector<std::int64_t> strides;
  for (std::size_t i = 1; i < 3; ++i) {
    const Shape& table = c.in(i).shape;
    c.require(broadcast_strides(table, out.shape, strides), "cos or sin does not broadcast");
    c.require(!table.empty() && table.back() == out.shape.back(),
              "cos or sin is not of the last dim's size");
  }
  verify_view_bounds(c, out.shape, c.in(0).numel);
}

// Rows (every dim but the last) of out, each with where its x, cos and sin rows start.
struct RotaryRows {
  const float *x, *cos, *sin;
  float* out;
  Shape outer;                 // out's shape without its last dim ({1} for a 1-d out: never empty)
  std::int64_t width, x_step;  // the last dim's size; x's stride along it
  std::int64_t x_offset;       // where x's first row starts
  std::vector<std::int64_t> strides[3];  // per outer dim: x's, cos's and sin's element strides

  // Where row r0's x, cos and sin start (r0 unravelled over the outer dims).
  void start(std::int64_t r0, std::int64_t* index, std::int64_t* at) const {
    at[0] = x_offset, at[1] = at[2] = 0;
    for (std::size_t k = outer.size(), rest = static_cast<std::size_t>(r0); k-- > 0;) {
      index[k] = static_cast<std::int64_t>(rest) % outer[k];
      rest /= static_cast<std::size_t>(outer[k]);
      for (int t = 0; t < 3; ++t) at[t] += index[k] * strides[t][k];
    }
  }

  // The next row: next_strided's step, for the three operands at once.
  void advance(std::int64_t* index, std::int64_t* at) const {
    for (std::size_t k = outer.size(); k-- > 0;) {
      const bool carry = ++index[k] == outer[k];
      for (int t = 0; t < 3; ++t) at[t] += carry ? -strides[t][k] * (outer[k] - 1) : strides[t][k];
      if (!carry) return;
      index[k] = 0;
    }
  }
};

// One row: out = x * cos + rotate_half(x) * sin over 2h elements, x's a stride `st` apart.
GBX_VMATH void rotate_row(const float* __restrict__ x, const float* __restrict__ c,
                          const float* __restrict__ s, float* __restrict__ o, std::int64_t h,
                          std::int64_t st) {
  if (st == 1) {
    for (std::int64_t j = 0; j < h; ++j) o[j] = x[j] * c[j] - x[j + h] * s[j];
    for (std::int64_t j = 0; j < h; ++j) o[j + h] = x[j + h] * c[j + h] + x[j] * s[j + h];
    return;
  }
  for (std::int64_t j = 0; j < h; ++j) o[j] = x[j * st] * c[j] - x[(j + h) * st] * s[j];
  for (std::int64_t j = 0; j < h; ++j) o[j + h] = x[(j + h) * st] * c[j + h] + x[j * st] * s[j + h];
}

// Rows [r0, r1), compiled per x86-64 level with the row loop inlined (rows are short: Llama's are
// 32 wide, and a call or a general index step per row cost as much as the row). Along the
// innermost outer dim the three row pointers step by their strides; only there does the index
// over the other dims move.
GBX_CLONES void rotary_rows(const RotaryRows& a, std::int64_t r0, std::int64_t r1) {
  std::int64_t index[16] = {0}, at[3];
  a.start(r0, index, at);
  const std::int64_t h = a.width / 2, st = a.x_step, last = a.outer.back();
  const std::size_t k = a.outer.size() - 1;
  const std::int64_t step[3] = {a.strides[0][k], a.strides[1][k], a.strides[2][k]};
  for (std::int64_t r = r0; r < r1;) {
    const std::int64_t run = std::min(r1 - r, last - index[k]);  // rows left along that dim
    for (std::int64_t i = 0; i < run; ++i) {
      rotate_row(a.x + at[0] + i * step[0], a.cos + at[1] + i * step[1],
                 a.sin + at[2] + i * step[2], a.out + (r + i) * a.width, h, st);
    }
    r += run;
    if (r == r1) break;
    index[k] += run - 1;  // to the run's last row, then one step on (with its carry)
    for (int t = 0; t < 3; ++t) at[t] += step[t] * (run - 1);
    a.advance(index, at);
  }
}

void run_rotary(const KernelContext& c) {
  TensorRef x = c.in(0), out = c.out(0);
  if (out.numel() == 0) return;
  const auto& args = c.args_as<StridedArgs>();
  const Shape& shape = out.shape();
  RotaryRows rows{x.f32(),
                  c.in(1).f32(),
                  c.in(2).f32(),
                  out.f32(),
                  shape.size() > 1 ? Shape(shape.begin(), shape.end() - 1) : Shape{1},
                  shape.back(),
                  args.strides.back(),
                  args.offset,
                  {}};
  std::vector<std::int64_t> full[3] = {args.strides, {}, {}};
  for (int t = 1; t < 3; ++t) broadcast_strides(c.in(t).shape(), shape, full[t]);  // verified
  for (int t = 0; t < 3; ++t) {
    rows.strides[t].assign(full[t].begin(), full[t].end() - 1);
    if (rows.strides[t].empty()) rows.strides[t].push_back(0);  // the 1-d out's outer dim
  }
  const std::int64_t count = out.numel() / rows.width;
  run_team(out.numel() >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    rotary_rows(rows, count * part / parts, count * (part + 1) / parts);
  });
}

}  // namespace

void register_rotary_kernels(KernelRegistry& registry) {
  registry.add({"rotary", verify_rotary, run_rotary});
}

}  // namespace glassbox::runtime
