// The attention kernel reading q, k and v in place as strided views of their slots
// (AttentionArgs.*_view): a fused projection's split against a direct computation, the same bits
// as the layout flags where a view describes their layout, and the verifier's refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/serializer.hpp"

namespace rt = glassbox::runtime;

namespace {

// One attention instruction over input slots of `shapes` (q, k, v), output [b, l, h, e].
rt::ProgramSpec attention_program(const std::vector<rt::Shape>& shapes, const rt::Shape& out,
                                  const rt::AttentionArgs& args) {
  rt::ProgramSpec s;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    rt::ValueDesc v;
    v.dtype = rt::DType::Float32, v.shape = shapes[i];
    v.kind = rt::ValueKind::Input, v.index = static_cast<std::int64_t>(i);
    s.values.push_back(v), s.inputs.push_back(static_cast<std::int32_t>(i));
  }
  rt::ValueDesc o;
  o.dtype = rt::DType::Float32, o.shape = out, o.kind = rt::ValueKind::Arena, o.index = 0;
  s.values.push_back(o);
  const auto out_slot = static_cast<std::int32_t>(shapes.size());
  s.outputs = {out_slot};
  std::vector<std::int32_t> ins(shapes.size());
  for (std::size_t i = 0; i < ins.size(); ++i) ins[i] = static_cast<std::int32_t>(i);
  s.instructions.push_back({"attention", ins, {out_slot}, args});
  s.arena_size = (static_cast<std::uint64_t>(rt::numel_of(out)) * 4 + 63) / 64 * 64;
  return s;
}

std::vector<float> run(const rt::ProgramSpec& s, const std::vector<std::vector<float>>& data) {
  const std::string bytes = rt::serialize_program(s);
  rt::Executor ex(rt::Program::load_buffer(bytes.data(), bytes.size()));
  std::vector<rt::InputTensor> inputs;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const rt::ValueDesc& v = s.values[static_cast<std::size_t>(s.inputs[i])];
    inputs.push_back({data[i].data(), v.dtype, v.shape, {}});
  }
  auto outs = ex.run(inputs);
  const float* p = static_cast<const float*>(outs[0].data());
  return std::vector<float>(p, p + rt::numel_of(outs[0].shape));
}

std::string load_error(const rt::ProgramSpec& s) {
  const std::string bytes = rt::serialize_program(s);
  try {
    rt::Program::load_buffer(bytes.data(), bytes.size());
  } catch (const rt::LoadError& e) {
    return e.what();
  }
  return "";
}

std::vector<float> filled(std::int64_t n, float f) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(f * static_cast<float>(i + 1));
  return x;
}

// GPT-2's layout: one [b, t, 3 * h * e] projection, q, k and v at feature offsets 0, D and 2D.
struct Fused {
  std::int64_t b = 2, h = 4, t = 70, e = 8;
  std::int64_t d() const { return h * e; }
  rt::AttentionView view(std::int64_t part) const {
    return {part * d(), b, h, t, e, t * 3 * d(), e, 3 * d()};
  }
  float at(const std::vector<float>& x, std::int64_t part, std::int64_t bi, std::int64_t hi,
           std::int64_t ti, std::int64_t ei) const {
    const rt::AttentionView v = view(part);
    return x[static_cast<std::size_t>(v.offset + bi * v.batch_stride + hi * v.head_stride +
                                      ti * v.token_stride + ei)];
  }
  // softmax(scale q k^T, causal) v of head (bi, hi), query i, in double; out is [b, t, h, e].
  void row(const std::vector<float>& x, std::int64_t bi, std::int64_t hi, std::int64_t i,
           double scale, bool causal, std::vector<double>& out) const {
    std::vector<double> w(static_cast<std::size_t>(t), 0.0);
    const std::int64_t seen = causal ? i + 1 : t;
    double mx = -INFINITY, sum = 0;
    for (std::int64_t j = 0; j < seen; ++j) {
      double dot = 0;
      for (std::int64_t c = 0; c < e; ++c) dot += at(x, 0, bi, hi, i, c) * at(x, 1, bi, hi, j, c);
      mx = std::max(mx, w[static_cast<std::size_t>(j)] = scale * dot);
    }
    for (std::int64_t j = 0; j < seen; ++j) sum += (w[j] = std::exp(w[j] - mx));
    for (std::int64_t c = 0; c < e; ++c) {
      double acc = 0;
      for (std::int64_t j = 0; j < seen; ++j) acc += w[j] / sum * at(x, 2, bi, hi, j, c);
      out[static_cast<std::size_t>(((bi * t + i) * h + hi) * e + c)] = acc;
    }
  }
  rt::ProgramSpec program(bool causal) const {
    rt::AttentionArgs a;
    a.scale = 0.3, a.causal = causal, a.out_tokens_first = true;
    a.q_view = view(0), a.k_view = view(1), a.v_view = view(2);
    const rt::Shape base{b, t, 3 * d()};
    return attention_program({base, base, base}, {b, t, h, e}, a);
  }
};

}  // namespace

TEST(AttentionViews, FusedProjectionSplitMatchesADirectComputation) {
  Fused f;
  const std::vector<float> x = filled(f.b * f.t * 3 * f.d(), 0.29f);
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    std::vector<float> got = run(f.program(causal), {x, x, x});
    std::vector<double> want(got.size());
    for (std::int64_t bi = 0; bi < f.b; ++bi)
      for (std::int64_t hi = 0; hi < f.h; ++hi)
        for (std::int64_t i = 0; i < f.t; ++i) f.row(x, bi, hi, i, 0.3, causal, want);
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << "at " << i;
  }
}

// A view that describes what a layout flag says reads the same addresses: the same bits.
TEST(AttentionViews, ViewsOfTheFlagLayoutsGiveTheSameBits) {
  const std::int64_t b = 2, h = 3, l = 70, e = 16;
  const std::vector<std::vector<float>> data = {
      filled(b * l * h * e, 0.31f), filled(b * l * h * e, 0.17f), filled(b * l * h * e, 0.23f)};
  for (bool tokens_first : {false, true}) {
    SCOPED_TRACE(tokens_first ? "tokens first" : "heads first");
    const rt::Shape slot = tokens_first ? rt::Shape{b, l, h, e} : rt::Shape{b, h, l, e};
    rt::AttentionArgs flags;
    flags.causal = true, flags.scale = 0.25, flags.out_tokens_first = true;
    flags.q_tokens_first = flags.k_tokens_first = flags.v_tokens_first = tokens_first;
    rt::AttentionArgs views = flags;
    const rt::AttentionView view = tokens_first
                                       ? rt::AttentionView{0, b, h, l, e, l * h * e, e, h * e}
                                       : rt::AttentionView{0, b, h, l, e, h * l * e, l * e, e};
    views.q_view = views.k_view = views.v_view = view;
    views.q_tokens_first = views.k_tokens_first = views.v_tokens_first = false;
    const rt::Shape out{b, l, h, e};
    EXPECT_EQ(run(attention_program({slot, slot, slot}, out, views), data),
              run(attention_program({slot, slot, slot}, out, flags), data));
  }
}

TEST(AttentionViews, ViewsReachingOutsideTheirSlotAreRefused) {
  const Fused f;
  EXPECT_EQ(load_error(f.program(false)), "");
  const std::int64_t numel = f.b * f.t * 3 * f.d();
  auto refused = [&](auto change, const std::string& what) {
    rt::ProgramSpec s = f.program(false);
    change(std::get<rt::AttentionArgs>(s.instructions[0].args));
    const std::string error = load_error(s);
    EXPECT_NE(error.find(what), std::string::npos) << error;
  };
  using A = rt::AttentionArgs;
  const std::string outside = "the value view reaches outside its slot of " + std::to_string(numel);
  refused([](A& a) { a.v_view->offset += 1; }, outside);  // the last row's last element
  refused([](A& a) { a.v_view->offset = -1; }, outside);
  refused([](A& a) { a.v_view->batch_stride += 1; }, outside);
  refused([](A& a) { a.v_view->head_stride = 4 * a.v_view->width; }, outside);
  refused([](A& a) { a.k_view->head_stride = -1; }, "the key view has a negative stride");
  refused([](A& a) { a.q_view->token_stride = a.q_view->width - 1; },
          "the query view: its token stride 7 is below its width");
  refused(
      [](A& a) {
        a.q_view->token_stride = std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1;
      },
      "beyond BLAS's");
  // Products that overflow 64 bits must not wrap around into the slot.
  refused(
      [](A& a) {
        a.q_view->batch = a.k_view->batch = a.v_view->batch = std::int64_t{1} << 40;
        a.q_view->batch_stride = std::int64_t{1} << 40;
      },
      "the query view reaches outside its slot");
  refused([](A& a) { a.k_view->tokens = (std::int64_t{1} << 40) + 1; },
          "the key view has a size out of range");
  // Sizes are the operand's: the output, k and v must agree with them as without views.
  refused([](A& a) { a.q_view->heads = 2; }, "query heads are not a multiple of key heads");
  refused([](A& a) { a.v_view->tokens = 69; }, "key [2, 4, 70, 8] and value [2, 4, 69, 8] differ");
}
