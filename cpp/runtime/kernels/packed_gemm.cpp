#include "runtime/kernels/packed_gemm.hpp"

#include <algorithm>
#include <dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "runtime/kernels/onednn.hpp"

namespace glassbox::runtime {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// A row-major [rows, cols] matrix whose slot may hold its transpose.
memory::desc matrix(std::int64_t rows, std::int64_t cols, bool transposed) {
  return memory::desc({rows, cols}, memory::data_type::f32,
                      transposed ? memory::dims{1, rows} : memory::dims{cols, 1});
}

// Weights above this size are packed in column parts of about this size, each with its own
// primitive: a part's source is released once packed (when B is stored transposed, a part is
// a contiguous run of rows), so packing holds one part twice, not the whole weight (GPT-2's
// tied 147 MiB head).
constexpr std::int64_t kPackPartBytes = std::int64_t{16} << 20;

// Columns [n0, n0 + cols) of the product: its primitive and packed weight. B, the output and the
// bias are the whole product's, the part's columns taken by offset and stride.
struct PackedPart {
  std::int64_t n0 = 0, cols = 0;
  dnnl::matmul primitive;
  memory src, bias, dst;
  ReorderedWeight weight;

  PackedPart(const PackedProduct& p, std::int64_t first, std::int64_t count)
      : n0(first), cols(count) {
    dnnl::engine& engine = onednn_engine();
    memory::desc src_md = matrix(p.m, p.k, p.ta);
    memory::desc dst_md({p.m, cols}, memory::data_type::f32, memory::dims{p.n, 1});
    memory::desc plain_md({p.k, cols}, memory::data_type::f32,
                          p.tb ? memory::dims{1, p.k} : memory::dims{p.n, 1});
    memory::desc any_md({p.k, cols}, memory::data_type::f32, Tag::any);
    memory::desc bias_md({1, cols}, memory::data_type::f32, Tag::ab);
    auto desc = p.bias ? dnnl::matmul::desc(src_md, any_md, bias_md, dst_md)
                       : dnnl::matmul::desc(src_md, any_md, dst_md);
    dnnl::primitive_attr attr;
    if (p.epilogue != Epilogue::None) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, onednn_eltwise(p.epilogue), onednn_alpha(p.epilogue), 0.0f);
      attr.set_post_ops(ops);
    }
    dnnl::matmul::primitive_desc pd(desc, attr, engine);
    primitive = dnnl::matmul(pd);
    src = memory(src_md, engine, nullptr);
    dst = memory(dst_md, engine, nullptr);
    weight.plain = memory(plain_md, engine, nullptr);
    weight.packed = memory(pd.weights_desc(), engine);
    bias = memory(bias_md, engine, nullptr);
  }

  // B's first element of this part, and the bytes of B it spans when B is stored transposed.
  const float* b_of(const PackedProduct& p) const { return p.b + (p.tb ? n0 * p.k : n0); }

  void run(dnnl::stream& stream, const PackedProduct& p) {
    src.set_data_handle(const_cast<float*>(p.a));
    dst.set_data_handle(p.out + n0);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weight.packed}, {DNNL_ARG_DST, dst}};
    if (p.bias) {
      bias.set_data_handle(const_cast<float*>(p.bias + n0));
      args.emplace(DNNL_ARG_BIAS, bias);
    }
    primitive.execute(stream, args);
  }
};

// One instruction's parts, built at its first run.
struct PackedGemm : KernelCache {
  bool refused = false;
  std::vector<PackedPart> parts;

  explicit PackedGemm(const PackedProduct& p) {
    std::int64_t cols = p.n;
    if (p.tb && p.k * p.n * 4 > kPackPartBytes)
      cols = std::max<std::int64_t>(64, kPackPartBytes / (4 * p.k) / 64 * 64);
    try {
      for (std::int64_t n0 = 0; n0 < p.n; n0 += cols)
        parts.emplace_back(p, n0, std::min(cols, p.n - n0));
    } catch (const dnnl::error&) {
      refused = true;
    }
  }
};

}  // namespace

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::algorithm onednn_eltwise(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::Relu:
      return dnnl::algorithm::eltwise_relu;
    case Epilogue::GeluErf:
      return dnnl::algorithm::eltwise_gelu_erf;
    case Epilogue::GeluTanh:
      return dnnl::algorithm::eltwise_gelu_tanh;
    case Epilogue::Silu:
      return dnnl::algorithm::eltwise_swish;
    case Epilogue::None:
      break;
  }
  return dnnl::algorithm::undef;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

bool ReorderedWeight::refresh(dnnl::stream& stream, const float* weight,
                              std::uint64_t weight_version) {
  if (weight_version != 0 && source == weight && version == weight_version) return false;
  plain.set_data_handle(const_cast<float*>(weight));
  dnnl::reorder(plain, packed).execute(stream, plain, packed);
  source = weight;
  version = weight_version;
  return true;
}

bool run_packed_gemm(const KernelContext& c, const PackedProduct& p) {
  std::unique_ptr<KernelCache>* cache = c.cache();
  if (!cache || p.b_version == 0 || p.m == 0 || p.n == 0 || p.k == 0) return false;
  if (!*cache) *cache = std::make_unique<PackedGemm>(p);
  auto* g = dynamic_cast<PackedGemm*>(cache->get());
  if (!g || g->refused) return false;
  dnnl::stream& stream = onednn_stream();
  bool packed = false;
  for (PackedPart& part : g->parts) {
    if (!part.weight.refresh(stream, part.b_of(p), p.b_version)) continue;
    stream.wait();
    packed = true;
    // A transposed B's part is its own rows; otherwise B goes once every part is packed.
    std::size_t bytes = static_cast<std::size_t>(part.cols * p.k) * sizeof(float);
    if (p.tb)
      c.release_input(p.b_input, static_cast<std::size_t>(part.n0 * p.k) * sizeof(float), bytes);
  }
  if (packed && !p.tb) c.release_input(p.b_input);
  for (PackedPart& part : g->parts) part.run(stream, p);
  stream.wait();
  return true;
}

}  // namespace glassbox::runtime
