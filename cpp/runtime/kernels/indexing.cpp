// Indexing: embedding and index_select. Indices are int64 and checked at run time; an index out of
// range is a RunError, never a wild read.
//   embedding (weight [V, D], indices int64 [...]) -> out [..., D]
//   index_select (x, indices int64 [n]) -> out       ints [dim]
#include <cstring>
#include <string>

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
  c.num_ints(1);
  const ValueDesc &x = c.in(0), &idx = c.in(1);
  c.dtype(idx, DType::Int64, "indices");
  c.require(idx.shape.size() <= 1, "indices must be 0-d or 1-d");
  std::int64_t dim = normalize_dim(c.ints()[0], x.shape.size());
  c.require(dim >= 0, "dim out of range");
  Shape s = x.shape;
  s[dim] = idx.numel;
  c.shape(c.out(0), s, "output");
  c.require(c.out(0).dtype == x.dtype, "dtypes differ");
}

void run_index_select(const KernelContext& c) {
  TensorRef x = c.in(0), idx = c.in(1), out = c.out(0);
  std::int64_t dim = normalize_dim(c.ints()[0], x.ndim());
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

}  // namespace

void register_indexing_kernels(KernelRegistry& registry) {
  registry.add({"embedding", verify_embedding, run_embedding});
  registry.add({"index_select", verify_index_select, run_index_select});
}

}  // namespace glassbox::runtime
