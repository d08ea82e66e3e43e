#include "runtime/kernels/packed_gemm.hpp"

#include <dnnl.hpp>
#include <unordered_map>

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

// One instruction's primitive and packed weight. Built at its first run; `weight` holds B in the
// primitive's layout.
struct PackedGemm : KernelCache {
  bool refused = false;
  dnnl::matmul primitive;
  memory src, bias, dst;
  ReorderedWeight weight;

  explicit PackedGemm(const PackedProduct& p) {
    try {
      dnnl::engine& engine = onednn_engine();
      memory::desc src_md = matrix(p.m, p.k, p.ta), dst_md = matrix(p.m, p.n, false);
      memory::desc plain_md = matrix(p.k, p.n, p.tb);
      memory::desc any_md({p.k, p.n}, memory::data_type::f32, Tag::any);
      memory::desc bias_md({1, p.n}, memory::data_type::f32, Tag::ab);
      auto desc = p.bias ? dnnl::matmul::desc(src_md, any_md, bias_md, dst_md)
                         : dnnl::matmul::desc(src_md, any_md, dst_md);
      dnnl::primitive_attr attr;
      if (p.epilogue != Epilogue::None) {
        dnnl::post_ops ops;
        ops.append_eltwise(1.0f, onednn_eltwise(p.epilogue), 0.0f, 0.0f);
        attr.set_post_ops(ops);
      }
      dnnl::matmul::primitive_desc pd(desc, attr, engine);
      primitive = dnnl::matmul(pd);
      src = memory(src_md, engine, nullptr);
      dst = memory(dst_md, engine, nullptr);
      weight.plain = memory(plain_md, engine, nullptr);
      weight.packed = memory(pd.weights_desc(), engine);
      bias = memory(bias_md, engine, nullptr);
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
    case Epilogue::None:
      break;
  }
  return dnnl::algorithm::undef;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

void ReorderedWeight::refresh(dnnl::stream& stream, const float* weight,
                              std::uint64_t weight_version) {
  if (weight_version != 0 && source == weight && version == weight_version) return;
  plain.set_data_handle(const_cast<float*>(weight));
  dnnl::reorder(plain, packed).execute(stream, plain, packed);
  source = weight;
  version = weight_version;
}

bool run_packed_gemm(const KernelContext& c, const PackedProduct& p) {
  std::unique_ptr<KernelCache>* cache = c.cache();
  if (!cache || p.b_version == 0 || p.m == 0 || p.n == 0 || p.k == 0) return false;
  if (!*cache) *cache = std::make_unique<PackedGemm>(p);
  auto* g = dynamic_cast<PackedGemm*>(cache->get());
  if (!g || g->refused) return false;
  dnnl::stream& stream = onednn_stream();
  g->weight.refresh(stream, p.b, p.b_version);
  g->src.set_data_handle(const_cast<float*>(p.a));
  g->dst.set_data_handle(p.out);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, g->src}, {DNNL_ARG_WEIGHTS, g->weight.packed}, {DNNL_ARG_DST, g->dst}};
  if (p.bias) {
    g->bias.set_data_handle(const_cast<float*>(p.bias));
    args.emplace(DNNL_ARG_BIAS, g->bias);
  }
  g->primitive.execute(stream, args);
  stream.wait();
  return true;
}

}  // namespace glassbox::runtime
