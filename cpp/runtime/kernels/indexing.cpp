// Indexing: embedding, index_select, gather and advanced indexing. Indices are int64 and checked at
// run time; an index out of range is a RunError, never a wild read.
//   embedding (weight [V, D], indices int64 [...]) -> out [..., D]
//   index_select (x, indices int64 [n]) -> out       DimArgs
//   gather (x, index int64) -> out [index's shape]  DimArgs: out[i] = x[i with index[i] at dim]
//                                                    (no negative indices, as torch)
//   index (x, idx_0, ..., idx_k-1 int64) -> out       IndexArgs, dims d_0 < ... < d_k-1:
//          x[..., idx, ...]
//          with the index tensors broadcast to one shape B, read at dims d_j of x. As torch: B
//          takes the place of the indexed dims when they are adjacent, else comes first.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/kernel.hpp"

namespace glassbox::runtime {
namespace {

void verify_embedding(const VerifyContext& c) {
  c.arity(2, 1);
  const ValueDesc &w = c.in(0), &idx = c.in(1);
  c.require(w.shape.size() == 2, "weight must be 2-d");
  c.dtype(idx, DType::Int64, "indices");
  Shape s = idx.shape;
  s.push_back(w.shape[1]);
  c.shape(c.out(0), s, "output");
  c.require(c.out(0).dtype == w.dtype, "output dtype differs from weight");
}

void check_index(std::int64_t i, std::int64_t size, const char* op) {
  if (i < -size || i >= size) {
    throw RunError(std::string(op) + ": index " + std::to_string(i) + " is out of range for size " +
                   std::to_string(size));
  }
}

void run_embedding(const KernelContext& c) {
  TensorRef w = c.in(0), idx = c.in(1), out = c.out(0);
  std::int64_t V = w.dim(0), D = w.dim(1);
  std::size_t row = static_cast<std::size_t>(D) * element_size(w.dtype());
  const auto* src = static_cast<const std::uint8_t*>(w.data);
  auto* dst = static_cast<std::uint8_t*>(out.data);
  for (std::int64_t i = 0; i < idx.numel(); ++i) {
    std::int64_t k = idx.i64()[i];
    check_index(k, V, "embedding");
    if (k < 0) k += V;
    if (row) std::memcpy(dst + i * row, src + k * row, row);
  }
}

void verify_index_select(const VerifyContext& c) {
  c.arity(2, 1);
  const ValueDesc &x = c.in(0), &idx = c.in(1);
  c.dtype(idx, DType::Int64, "indices");
  c.require(idx.shape.size() <= 1, "indices must be 0-d or 1-d");
  std::int64_t dim = c.dim_field("DimArgs.dim", c.args_as<DimArgs>().dim, x.shape.size());
  Shape s = x.shape;
  s[dim] = idx.numel;
  c.shape(c.out(0), s, "output");
  c.require(c.out(0).dtype == x.dtype, "dtypes differ");
}

void run_index_select(const KernelContext& c) {
  TensorRef x = c.in(0), idx = c.in(1), out = c.out(0);
  std::int64_t dim = normalize_dim(c.args_as<DimArgs>().dim, x.ndim());
  std::int64_t outer = 1, inner = 1, size = x.dim(dim);
  for (std::int64_t d = 0; d < dim; ++d) outer *= x.dim(d);
  for (std::size_t d = dim + 1; d < x.ndim(); ++d) inner *= x.dim(d);
  std::size_t elem = element_size(x.dtype()), chunk = static_cast<std::size_t>(inner) * elem;
  std::int64_t n = idx.numel();
  const auto* src = static_cast<const std::uint8_t*>(x.data);
  auto* dst = static_cast<std::uint8_t*>(out.data);
  for (std::int64_t j = 0; j < n; ++j) check_index(idx.i64()[j], size, "index_select");
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t k = idx.i64()[j];
      if (k < 0) k += size;
      if (chunk) std::memcpy(dst + (o * n + j) * chunk, src + (o * size + k) * chunk, chunk);
    }
  }
}

void verify_gather(const VerifyContext& c) {
  c.arity(2, 1);
  const ValueDesc &x = c.in(0), &idx = c.in(1), &out = c.out(0);
  c.dtype(idx, DType::Int64, "index");
  c.require(out.dtype == x.dtype, "dtypes differ");
  c.shape(out, idx.shape, "output");
  std::size_t nd = x.shape.size();
  c.require(idx.shape.size() == nd || (nd == 0 && idx.shape.size() <= 1),
            "index and input ranks differ");
  std::int64_t dim = nd ? c.dim_field("DimArgs.dim", c.args_as<DimArgs>().dim, nd) : 0;
  for (std::size_t d = 0; d < nd; ++d) {
    if (static_cast<std::int64_t>(d) != dim)
      c.require(idx.shape[d] <= x.shape[d], "index is larger than the input outside dim");
  }
}

void run_gather(const KernelContext& c) {
  TensorRef x = c.in(0), idx = c.in(1), out = c.out(0);
  std::size_t nd = x.ndim(), elem = element_size(x.dtype());
  std::int64_t dim = nd ? normalize_dim(c.args_as<DimArgs>().dim, nd) : 0;
  std::int64_t size = nd ? x.dim(dim) : 1;
  Shape strides(nd, 1);  // x's strides, with dim's replaced by 0 (its index comes from idx)
  for (std::size_t d = nd; d-- > 1;) strides[d - 1] = strides[d] * x.dim(d);
  std::int64_t dim_stride = nd ? strides[dim] : 0;
  if (nd) strides[dim] = 0;
  const auto* src = static_cast<const std::uint8_t*>(x.data);
  auto* dst = static_cast<std::uint8_t*>(out.data);
  for_each_strided(idx.shape(), strides.data(), 0, [&](std::int64_t i, std::int64_t at) {
    std::int64_t k = idx.i64()[i];
    if (k < 0 || k >= size) {
      throw RunError("gather: index " + std::to_string(k) + " is out of range for size " +
                     std::to_string(size));
    }
    std::memcpy(dst + i * elem, src + (at + k * dim_stride) * elem, elem);
  });
}

// Where each output dim of `index` comes from: a dim of x (>= 0) or dim b of the broadcast index
// shape (-1 - b). Not ok when the index shapes do not broadcast.
struct IndexLayout {
  bool ok = false;
  Shape broadcast;          // B
  std::vector<int> source;  // per output dim
  Shape out_shape;
};

bool broadcast_shape(const Shape& a, Shape& into) {
  if (a.size() > into.size()) into.insert(into.begin(), a.size() - into.size(), 1);
  for (std::size_t k = 0; k < a.size(); ++k) {
    std::int64_t& d = into[into.size() - a.size() + k];
    if (d == 1) {
      d = a[k];
    } else if (a[k] != 1 && a[k] != d) {
      return false;
    }
  }
  return true;
}

IndexLayout index_layout(const Shape& x, const std::vector<Shape>& indices,
                         const std::vector<std::int64_t>& dims) {
  IndexLayout l;
  for (const Shape& s : indices) {
    if (!broadcast_shape(s, l.broadcast)) return {};
  }
  l.ok = true;
  bool adjacent = dims.back() - dims.front() == static_cast<std::int64_t>(dims.size()) - 1;
  auto add_broadcast = [&] {
    for (std::size_t b = 0; b < l.broadcast.size(); ++b) {
      l.source.push_back(-1 - static_cast<int>(b));
      l.out_shape.push_back(l.broadcast[b]);
    }
  };
  if (!adjacent) add_broadcast();
  for (std::size_t d = 0; d < x.size(); ++d) {
    auto at = static_cast<std::int64_t>(d);
    if (std::count(dims.begin(), dims.end(), at)) {
      if (adjacent && at == dims.front()) add_broadcast();
      continue;
    }
    l.source.push_back(static_cast<int>(d));
    l.out_shape.push_back(x[d]);
  }
  return l;
}

void verify_index(const VerifyContext& c) {
  c.require(c.num_inputs() >= 2 && c.num_outputs() == 1, "expects x, index tensors and one output");
  std::size_t k = c.num_inputs() - 1;
  const std::vector<std::int64_t>& dims = c.args_as<IndexArgs>().dims;
  c.require(dims.size() == k, "IndexArgs.dims must name one dim per index tensor");
  const ValueDesc &x = c.in(0), &out = c.out(0);
  std::vector<Shape> shapes;
  for (std::size_t j = 0; j < k; ++j) {
    c.dtype(c.in(1 + j), DType::Int64, "index");
    c.field("IndexArgs.dims", dims[j], j == 0 ? 0 : dims[j - 1] + 1,
            static_cast<std::int64_t>(x.shape.size()) - 1);
    shapes.push_back(c.in(1 + j).shape);
  }
  IndexLayout l = index_layout(x.shape, shapes, dims);
  c.require(l.ok, "index shapes do not broadcast");
  c.require(l.out_shape.size() <= 16, "too many output dims");
  c.shape(out, l.out_shape, "output");
  c.require(out.dtype == x.dtype, "dtypes differ");
}

// Rows of the output (all dims but x's trailing ones after the last indexed dim, which are copied
// as one contiguous chunk), each located through its coordinates.
void run_index(const KernelContext& c) {
  TensorRef x = c.in(0), out = c.out(0);
  const std::vector<std::int64_t>& dims = c.args_as<IndexArgs>().dims;
  std::size_t k = dims.size(), nd = x.ndim(), elem = element_size(x.dtype());
  std::vector<Shape> shapes;
  for (std::size_t j = 0; j < k; ++j) shapes.push_back(c.in(1 + j).shape());
  IndexLayout l = index_layout(x.shape(), shapes, dims);
  Shape xs(nd, 1);
  for (std::size_t d = nd; d-- > 1;) xs[d - 1] = xs[d] * x.dim(d);
  std::vector<std::vector<std::int64_t>> bs(k);
  for (std::size_t j = 0; j < k; ++j) broadcast_strides(shapes[j], l.broadcast, bs[j]);
  std::size_t trailing = nd - static_cast<std::size_t>(dims.back()) - 1;
  std::size_t row_dims = l.out_shape.size() - trailing;
  std::size_t bytes = static_cast<std::size_t>(xs[dims.back()]) * elem;  // x's trailing dims
  Shape row_shape(l.out_shape.begin(), l.out_shape.begin() + static_cast<std::ptrdiff_t>(row_dims));
  std::vector<std::int64_t> unused(row_dims, 0);
  const auto* src = static_cast<const std::uint8_t*>(x.data);
  auto* dst = static_cast<std::uint8_t*>(out.data);
  std::int64_t coord[16] = {0};
  std::vector<std::int64_t> picked(k);  // each index tensor's element for this row
  for_each_strided(row_shape, unused.data(), 0, [&](std::int64_t r, std::int64_t) {
    std::int64_t at = 0;
    std::fill(picked.begin(), picked.end(), 0);
    for (std::size_t o = 0; o < row_dims; ++o) {
      int s = l.source[o];
      if (s >= 0) {
        at += coord[o] * xs[s];
      } else {
        for (std::size_t j = 0; j < k; ++j) picked[j] += coord[o] * bs[j][-1 - s];
      }
    }
    for (std::size_t j = 0; j < k; ++j) {
      std::int64_t size = x.dim(dims[j]), v = c.in(1 + j).i64()[picked[j]];
      check_index(v, size, "index");
      at += (v < 0 ? v + size : v) * xs[dims[j]];
    }
    if (bytes) std::memcpy(dst + r * bytes, src + at * elem, bytes);
    for (std::size_t o = row_dims; o-- > 0;) {  // the next row's coordinates
      if (++coord[o] < row_shape[o]) break;
      coord[o] = 0;
    }
  });
}

}  // namespace

void register_indexing_kernels(KernelRegistry& registry) {
  registry.add({"embedding", verify_embedding, run_embedding});
  registry.add({"index_select", verify_index_select, run_index_select});
  registry.add({"gather", verify_gather, run_gather});
  registry.add({"index", verify_index, run_index});
}

}  // namespace glassbox::runtime
