#include <algorithm>
#include <cstdint>

#include "runtime/kernel.hpp"
#include "runtime/kernels/vector_math.hpp"

namespace glassbox::runtime {

void KernelContext::release_input(std::size_t i, std::size_t offset, std::size_t bytes) const {
  if (!pages_) return;
  const ValueDesc* v = &values_[instr_.inputs[i]];
  if (v->kind == ValueKind::Alias) v = &values_[v->index];
  if (v->kind != ValueKind::Constant || offset >= v->nbytes()) return;
  const auto* data = static_cast<const std::uint8_t*>(slots_[instr_.inputs[i]]);
  pages_->release(data + offset, std::min(bytes, v->nbytes() - offset));
}

void VerifyContext::require(bool ok, const std::string& what) const {
  if (!ok) throw LoadError("instruction '" + instr_.op + "': " + what);
}

void VerifyContext::arity(std::size_t inputs, std::size_t outputs) const {
  require(num_inputs() == inputs && num_outputs() == outputs,
          "expects " + std::to_string(inputs) + " inputs and " + std::to_string(outputs) +
              " outputs, got " + std::to_string(num_inputs()) + " and " +
              std::to_string(num_outputs()));
}

void VerifyContext::arity_range(std::size_t min_in, std::size_t max_in, std::size_t outputs) const {
  require(num_inputs() >= min_in && num_inputs() <= max_in && num_outputs() == outputs,
          "expects " + std::to_string(min_in) + ".." + std::to_string(max_in) + " inputs and " +
              std::to_string(outputs) + " outputs");
}

void VerifyContext::field(const char* name, std::int64_t value, std::int64_t lo,
                          std::int64_t hi) const {
  require(value >= lo && value <= hi, std::string(name) + " is " + std::to_string(value) +
                                          ", must be in [" + std::to_string(lo) + ", " +
                                          std::to_string(hi) + "]");
}

std::int64_t VerifyContext::dim_field(const char* name, std::int64_t dim, std::size_t ndim) const {
  require(ndim > 0, std::string(name) + ": the tensor has no dims");
  const std::int64_t n = static_cast<std::int64_t>(ndim);
  field(name, dim, -n, n - 1);
  return dim < 0 ? dim + n : dim;
}

void VerifyContext::dtype(const ValueDesc& v, DType dtype, const char* what) const {
  require(v.dtype == dtype,
          std::string(what) + " must be " + dtype_name(dtype) + ", is " + dtype_name(v.dtype));
}

void VerifyContext::shape(const ValueDesc& v, const Shape& expected, const char* what) const {
  require(v.shape == expected, std::string(what) + " has shape " + shape_str(v.shape) +
                                   ", expected " + shape_str(expected));
}

const KernelRegistry& KernelRegistry::builtin() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    register_gemm_kernels(r);
    register_elementwise_kernels(r);
    register_reduction_kernels(r);
    register_normalization_kernels(r);
    register_conv_kernels(r);
    register_indexing_kernels(r);
    register_view_kernels(r);
    register_attention_kernels(r);
    register_rotary_kernels(r);
    return r;
  }();
  return registry;
}

void KernelRegistry::add(KernelDef def) { kernels_[def.name] = def; }

const KernelDef* KernelRegistry::find(std::string_view name) const {
  auto it = kernels_.find(std::string(name));
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : kernels_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

// A function of its own compiled per x86-64 level: as a template instance the loop stayed scalar.
GBX_CLONES void bools_to_floats(const bool* from, float* to, std::int64_t n) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(from);
  for (std::int64_t i = 0; i < n; ++i) to[i] = bytes[i] != 0 ? 1.0f : 0.0f;
}

void verify_view_bounds(const VerifyContext& c, const Shape& view, std::int64_t numel) {
  const auto& a = c.args_as<StridedArgs>();
  c.require(a.strides.size() == view.size(),
            "StridedArgs.strides has " + std::to_string(a.strides.size()) + " strides for " +
                std::to_string(view.size()) + " dims");
  if (numel_of(view) == 0) return;
  c.field("StridedArgs.offset", a.offset, 0, numel - 1);
  // The nearest and furthest elements reached so far: each step is checked against the room
  // left before it is taken, so lo stays >= 0, hi < numel, and no product overflows.
  std::int64_t lo = a.offset, hi = a.offset;
  for (std::size_t d = 0; d < view.size(); ++d) {
    const std::int64_t s = a.strides[d], span = view[d] - 1;
    c.field("StridedArgs.strides", s, -(std::int64_t{1} << 40), std::int64_t{1} << 40);
    if (s > 0) {
      c.require(span <= (numel - 1 - hi) / s, "the view reaches outside its base");
      hi += s * span;
    } else if (s < 0) {
      c.require(span <= lo / -s, "the view reaches outside its base");
      lo += s * span;
    }
  }
}

bool broadcast_strides(const Shape& in, const Shape& out, std::vector<std::int64_t>& strides) {
  if (in.size() > out.size()) return false;
  strides.assign(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < in.size(); ++k) {
    std::size_t di = in.size() - 1 - k, dout = out.size() - 1 - k;
    if (in[di] == out[dout]) {
      strides[dout] = in[di] == 1 ? 0 : stride;
    } else if (in[di] != 1) {
      return false;
    }
    stride *= in[di];
  }
  return true;
}

std::int64_t normalize_dim(std::int64_t dim, std::size_t ndim) {
  auto n = static_cast<std::int64_t>(ndim);
  if (dim < -n || dim >= n) return -1;
  return dim < 0 ? dim + n : dim;
}

}  // namespace glassbox::runtime
