// Scaled dot-product attention as one kernel (aten._scaled_dot_product_flash_attention_for_cpu's
// output 0), instead of a product, a mask, a softmax and a second product each through memory.
//   attention (q, k, v, [mask]) -> out, [logsumexp]    AttentionArgs
// Logical shapes: q [B, H, L, E], k and v [B, Hk, S, E] (H a multiple of Hk: grouped-query
// attention, head h reads k/v head h / (H / Hk)), out [B, H, L, E]. Each of q, k, v and out is a
// contiguous slot holding either that shape or [B, tokens, heads, E] (its `*_tokens_first` flag),
// which is how projections lay heads out: their transposes are then read and written in place.
// q, k and v may instead each be a strided view of their slot (`*_view`: an offset and the batch,
// head and token strides, 1 along E), as when they are split from one fused projection; the
// verifier proves every element such a view reaches lies inside its slot.
// The scores are scale * q k^T, plus the mask (float32, 4 dims, each dim full or 1, the last one
// full), with keys j > i hidden from query i when causal (top-left aligned, as torch). A row whose
// keys are all hidden (-inf) gives zeros, as torch's CPU flash attention does. With has_logsumexp,
// output 1 ([B, L, H]) holds each row's log-sum-exp of its scores (0 where every key is hidden),
// as CPU flash attention saves it for its backward.
// Work is split by (batch, head, block of query rows); each block's products run on one thread
// through OpenBLAS with its scores in cache.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "runtime/kernel.hpp"
#include "runtime/kernels/blas.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

constexpr std::int64_t kBlockRows = 64;  // query rows per work item (scores: rows x S floats)
// Work items are shared out when the products hold at least this many multiply-adds in all.
[[maybe_unused]] constexpr std::int64_t kParallelMacs = 1 << 18;

// One operand as the kernel reads it: its logical [B, heads, tokens, width], and element
// (b, h, t, e) at offset + b * batch_stride + h * head_stride + t * token_stride + e of its slot.
struct Operand {
  Shape shape;
  std::int64_t offset, batch_stride, head_stride, token_stride;
  // Where row `t` of head `h` of batch `b` starts; its rows lie token_stride apart.
  std::int64_t at(std::int64_t b, std::int64_t h, std::int64_t t) const {
    return offset + b * batch_stride + h * head_stride + t * token_stride;
  }
};

// The operand a slot holds, given its layout flag, or its view where it has one.
Operand operand_of(const Shape& slot, bool tokens_first, const std::optional<AttentionView>& view) {
  if (view) {
    return {{view->batch, view->heads, view->tokens, view->width},
            view->offset,
            view->batch_stride,
            view->head_stride,
            view->token_stride};
  }
  if (slot.size() != 4) return {slot, 0, 0, 0, 0};  // refused by the verifier
  if (!tokens_first) return {slot, 0, slot[1] * slot[2] * slot[3], slot[2] * slot[3], slot[3]};
  return {{slot[0], slot[2], slot[1], slot[3]},
          0,
          slot[1] * slot[2] * slot[3],
          slot[3],
          slot[2] * slot[3]};
}

struct Dims {
  std::int64_t batch, heads, kv_heads, queries, keys, width;
};

void verify_mask(const VerifyContext& c, const Dims& d) {
  const ValueDesc& m = c.in(3);
  c.dtype(m, DType::Float32, "mask");
  c.require(m.shape.size() == 4, "mask must have 4 dims, got " + shape_str(m.shape));
  const std::int64_t full[4] = {d.batch, d.heads, d.queries, d.keys};
  for (std::size_t i = 0; i < 4; ++i) {
    c.require(m.shape[i] == full[i] || (m.shape[i] == 1 && i < 3),
              "mask " + shape_str(m.shape) + " does not broadcast to the scores");
  }
}

// A view reads only inside its slot of `numel` elements, by rows BLAS takes (a token stride of at
// least the width, within blasint). Every step keeps `last` (the furthest element reached) below
// numel, so no sum or product overflows.
void verify_view(const VerifyContext& c, const std::string& name, const AttentionView& v,
                 std::int64_t numel) {
  const std::int64_t sizes[] = {v.batch, v.heads, v.tokens}, width = v.width;
  const std::int64_t strides[] = {v.batch_stride, v.head_stride, v.token_stride};
  for (std::int64_t n : {v.batch, v.heads, v.tokens, v.width}) {
    c.require(n >= 0 && n <= (std::int64_t{1} << 40), name + " has a size out of range");
  }
  for (std::int64_t s : strides) c.require(s >= 0, name + " has a negative stride");
  c.require(v.token_stride >= std::max<std::int64_t>(width, 1) &&
                v.token_stride <= std::numeric_limits<blasint>::max(),
            name + ": its token stride " + std::to_string(v.token_stride) +
                " is below its width or beyond BLAS's");
  if (v.batch == 0 || v.heads == 0 || v.tokens == 0 || width == 0) return;  // reads nothing
  const std::string outside = name + " reaches outside its slot of " + std::to_string(numel);
  c.require(v.offset >= 0 && v.offset < numel && width - 1 < numel - v.offset, outside);
  std::int64_t last = v.offset + width - 1;
  for (std::size_t d = 0; d < 3; ++d) {
    const std::int64_t room = numel - 1 - last;
    c.require(strides[d] == 0 || sizes[d] - 1 <= room / strides[d], outside);
    last += (sizes[d] - 1) * strides[d];
  }
}

// The logical shapes of q, k and v ([B, heads, tokens, width]), each slot or view verified.
std::vector<Shape> verify_operands(const VerifyContext& c, const AttentionArgs& a) {
  const char* names[] = {"query", "key", "value"};
  const bool flags[] = {a.q_tokens_first, a.k_tokens_first, a.v_tokens_first};
  const std::optional<AttentionView>* views[] = {&a.q_view, &a.k_view, &a.v_view};
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < 3; ++i) {
    c.dtype(c.in(i), DType::Float32, names[i]);
    if (*views[i]) {
      verify_view(c, std::string("AttentionArgs: the ") + names[i] + " view", **views[i],
                  c.in(i).numel);
    } else {
      c.require(c.in(i).shape.size() == 4, std::string(names[i]) + " must have 4 dims");
    }
    shapes.push_back(operand_of(c.in(i).shape, flags[i], *views[i]).shape);
  }
  return shapes;
}

void verify_attention(const VerifyContext& c) {
  const auto* a = &c.args_as<AttentionArgs>();
  c.arity(a->has_mask ? 4 : 3, a->has_logsumexp ? 2 : 1);
  c.require(std::isfinite(a->scale), "AttentionArgs.scale must be finite");
  const std::vector<Shape> operands = verify_operands(c, *a);
  c.dtype(c.out(0), DType::Float32, "output");
  const Shape &q = operands[0], &k = operands[1], &v = operands[2];
  c.require(k == v, "key " + shape_str(k) + " and value " + shape_str(v) + " differ");
  c.require(q[0] == k[0] && q[3] == k[3],
            "query " + shape_str(q) + " and key " + shape_str(k) + " differ in batch or head size");
  c.require(k[1] > 0 && q[1] % k[1] == 0, "query heads are not a multiple of key heads");
  Shape out = a->out_tokens_first ? Shape{q[0], q[2], q[1], q[3]} : q;
  c.shape(c.out(0), out, "output");
  if (a->has_mask) verify_mask(c, {q[0], q[1], k[1], q[2], k[2], q[3]});
  if (a->has_logsumexp) {
    c.dtype(c.out(1), DType::Float32, "logsumexp");
    c.shape(c.out(1), {q[0], q[2], q[1]}, "logsumexp");
  }
}

struct Attention {
  const float *q_data, *k_data, *v_data;
  Operand q, k, v;
  float* out;
  Operand o;
  float* logsumexp;  // [B, L, H], or null
  const float* mask;
  Shape mask_shape;
  Dims d;
  float scale;
  bool causal;
  std::int64_t blocks_per_head() const { return (d.queries + kBlockRows - 1) / kBlockRows; }
  std::int64_t items() const { return d.batch * d.heads * blocks_per_head(); }
};

// What a row of weights leaves to be applied: the reciprocal of its sum, by which the row's output
// is scaled once it is a product (fewer values than the row), and its log-sum-exp.
struct RowSum {
  float inv, lse;
};

// Row `i` of the scores of (b, h), over its first `keys` keys, made into unnormalised weights in
// place: masked, exponentiated against the row's max; zeros when every key is hidden (inv 0, lse
// 0).
// Row `i` of the mask of (b, h): d.keys values.
const float* mask_row(const Attention& a, std::int64_t b, std::int64_t h, std::int64_t i) {
  const Shape& ms = a.mask_shape;
  return a.mask +
         (((ms[0] > 1 ? b : 0) * ms[1] + (ms[1] > 1 ? h : 0)) * ms[2] + (ms[2] > 1 ? i : 0)) *
             a.d.keys;
}

// How many leading keys rows [i0, i1) of (b, h) can see through the mask (at least 1): keys
// that every row's mask hides (-inf), a causal mask's upper triangle or right padding, weigh
// exactly 0 and are left out of both products.
std::int64_t keys_in_mask(const Attention& a, std::int64_t b, std::int64_t h, std::int64_t i0,
                          std::int64_t i1, std::int64_t keys) {
  std::int64_t seen = 1;
  for (std::int64_t i = i0; i < i1 && seen < keys; ++i) {
    const float* m = mask_row(a, b, h, i);
    std::int64_t end = keys;
    while (end > seen && m[end - 1] == -INFINITY) --end;
    seen = end;
  }
  return seen;
}

GBX_CLONES RowSum weights_row(const Attention& a, float* row, std::int64_t keys, std::int64_t b,
                              std::int64_t h, std::int64_t i) {
  if (a.mask) {
    const float* m = mask_row(a, b, h, i);
    for (std::int64_t j = 0; j < keys; ++j) row[j] += m[j];
  }
  const std::int64_t seen = a.causal ? std::min(keys, i + 1) : keys;
  const float mx = seen > 0 ? vmath::max_f32(row, seen) : -INFINITY;
  if (mx == -INFINITY) {
    std::fill(row, row + keys, 0.0f);
    return {0.0f, 0.0f};
  }
  for (std::int64_t j = 0; j < seen; ++j) row[j] = vmath::exp_f32(row[j] - mx);
  std::fill(row + seen, row + keys, 0.0f);
  const float sum = vmath::sum_f32(row, seen);
  return {1.0f / sum, mx + std::log(sum)};
}

GBX_CLONES void scale_row(float* row, std::int64_t n, float by) {
  for (std::int64_t j = 0; j < n; ++j) row[j] *= by;
}

// One work item: query rows [i0, i1) of head h of batch b. Causal rows see only keys below i1.
void attend(const Attention& a, std::int64_t item, std::vector<float>& scores,
            std::vector<float>& inv) {
  const std::int64_t per_head = a.blocks_per_head();
  const std::int64_t bh = item / per_head, b = bh / a.d.heads, h = bh % a.d.heads;
  const std::int64_t i0 = item % per_head * kBlockRows, i1 = std::min(a.d.queries, i0 + kBlockRows);
  const std::int64_t m = i1 - i0, width = a.d.width;
  std::int64_t keys = a.causal ? std::min(a.d.keys, i1) : a.d.keys;
  if (a.mask) keys = keys_in_mask(a, b, h, i0, i1, keys);
  const std::int64_t hk = h / (a.d.heads / a.d.kv_heads);
  scores.resize(static_cast<std::size_t>(m * keys));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(m),
              static_cast<blasint>(keys), static_cast<blasint>(width), a.scale,
              a.q_data + a.q.at(b, h, i0), static_cast<blasint>(a.q.token_stride),
              a.k_data + a.k.at(b, hk, 0), static_cast<blasint>(a.k.token_stride), 0.0f,
              scores.data(), static_cast<blasint>(keys));
  inv.resize(static_cast<std::size_t>(m));
  for (std::int64_t r = 0; r < m; ++r) {
    const RowSum s = weights_row(a, scores.data() + r * keys, keys, b, h, i0 + r);
    inv[static_cast<std::size_t>(r)] = s.inv;
    if (a.logsumexp) a.logsumexp[((b * a.d.queries) + i0 + r) * a.d.heads + h] = s.lse;
  }
  const Operand& o = a.o;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
              static_cast<blasint>(width), static_cast<blasint>(keys), 1.0f, scores.data(),
              static_cast<blasint>(keys), a.v_data + a.v.at(b, hk, 0),
              static_cast<blasint>(a.v.token_stride), 0.0f, a.out + o.at(b, h, i0),
              static_cast<blasint>(o.token_stride));
  for (std::int64_t r = 0; r < m; ++r) {
    scale_row(a.out + o.at(b, h, i0 + r), width, inv[static_cast<std::size_t>(r)]);
  }
}

Attention attention_of(const KernelContext& c) {
  const auto& args = std::get<AttentionArgs>(c.args());
  TensorRef q = c.in(0), k = c.in(1), v = c.in(2), out = c.out(0);
  const Operand qo = operand_of(q.shape(), args.q_tokens_first, args.q_view),
                ko = operand_of(k.shape(), args.k_tokens_first, args.k_view);
  Dims d{qo.shape[0], qo.shape[1], ko.shape[1], qo.shape[2], ko.shape[2], qo.shape[3]};
  Attention a{q.f32(),
              k.f32(),
              v.f32(),
              qo,
              ko,
              operand_of(v.shape(), args.v_tokens_first, args.v_view),
              out.f32(),
              operand_of(out.shape(), args.out_tokens_first, std::nullopt),
              args.has_logsumexp ? c.out(1).f32() : nullptr,
              args.has_mask ? c.in(3).f32() : nullptr,
              args.has_mask ? c.in(3).shape() : Shape{},
              d,
              static_cast<float>(args.scale),
              args.causal};
  return a;
}

void run_attention(const KernelContext& c) {
  const Attention a = attention_of(c);
  const std::int64_t items = a.items();
  if (items == 0 || a.d.keys == 0 || a.d.width == 0) {
    for (std::size_t o = 0; o < c.num_outputs(); ++o) {
      std::fill(c.out(o).f32(), c.out(o).f32() + c.out(o).numel(), 0.0f);
    }
    return;
  }
  const std::int64_t macs = 2 * a.d.batch * a.d.heads * a.d.queries * a.d.keys * a.d.width;
  const int team =
      static_cast<int>(std::min<std::int64_t>(items, macs >= kParallelMacs ? max_team() : 1));
  BlasOnCallers on_callers;
  run_team(team, [&](int part, int parts) {
    std::vector<float> scores, inv;
    for (std::int64_t item = items * part / parts; item < items * (part + 1) / parts; ++item) {
      attend(a, item, scores, inv);
    }
  });
}

}  // namespace

void register_attention_kernels(KernelRegistry& registry) {
  registry.add({"attention", verify_attention, run_attention});
}

}  // namespace glassbox::runtime
