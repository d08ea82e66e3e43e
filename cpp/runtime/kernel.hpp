// The kernel interface and registry. Every kernel is a pair of functions: `verify` checks at load
// time that an instruction's operands and arguments make sense for it (arity, dtypes, shapes), and
// `run` executes it. Names are resolved to these function pointers once, when a plan is built.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "runtime/tensor.hpp"

namespace glassbox::runtime {

// A value slot bound to memory for one run.
struct TensorRef {
  void* data;
  const ValueDesc* desc;
  float* f32() const { return static_cast<float*>(data); }
  std::int64_t* i64() const { return static_cast<std::int64_t*>(data); }
  bool* b8() const { return static_cast<bool*>(data); }
  std::int32_t* i32() const { return static_cast<std::int32_t*>(data); }
  const Shape& shape() const { return desc->shape; }
  std::int64_t numel() const { return desc->numel; }
  std::size_t ndim() const { return desc->shape.size(); }
  std::int64_t dim(std::size_t i) const { return desc->shape[i]; }
  DType dtype() const { return desc->dtype; }
};

// What a kernel keeps from one run to the next, per instruction and per arena (so never shared
// by two runs at once): a GEMM's weights packed for its micro-kernels.
struct KernelCache {
  virtual ~KernelCache() = default;
};

// Where constants live, for kernels that keep what they derive from one (a packed weight): the
// pages of a constant in a read-only file mapping can be handed back once it is derived, and are
// read again from the file if anything touches them (program.cpp). Elsewhere release does nothing.
class ConstantPages {
 public:
  virtual void release(const void* data, std::size_t bytes) const = 0;

 protected:
  ~ConstantPages() = default;
};

class KernelContext {
 public:
  KernelContext(const InstrDesc& instr, const std::vector<ValueDesc>& values, void* const* slots,
                const std::uint64_t* versions = nullptr,
                std::unique_ptr<KernelCache>* cache = nullptr, const ConstantPages* pages = nullptr)
      : instr_(instr),
        values_(values),
        slots_(slots),
        versions_(versions),
        cache_(cache),
        pages_(pages) {}
  std::size_t num_inputs() const { return instr_.inputs.size(); }
  std::size_t num_outputs() const { return instr_.outputs.size(); }
  TensorRef in(std::size_t i) const { return ref(instr_.inputs[i]); }
  TensorRef out(std::size_t i) const { return ref(instr_.outputs[i]); }
  const KernelArgs& args() const { return instr_.args; }
  // The family's arguments, which the loader has checked this instruction carries.
  template <typename Family>
  const Family& args_as() const {
    return std::get<Family>(instr_.args);
  }
  // The version of input i's memory: nonzero when the same data pointer with the same version
  // is known to hold the same values (a constant, or a program input whose caller said so), so
  // work derived from it may be kept in cache(); 0 when nothing is known.
  std::uint64_t version(std::size_t i) const { return versions_ ? versions_[instr_.inputs[i]] : 0; }
  // This instruction's cache, or null when the caller keeps none.
  std::unique_ptr<KernelCache>* cache() const { return cache_; }
  // The kernel keeps what it derived from input i and reads input i again only when its version
  // changes: when input i is a constant, its memory (or `bytes` of it from byte `offset`) may
  // leave the process's resident set.
  void release_input(std::size_t i, std::size_t offset = 0,
                     std::size_t bytes = static_cast<std::size_t>(-1)) const;

 private:
  TensorRef ref(std::int32_t slot) const { return TensorRef{slots_[slot], &values_[slot]}; }
  const InstrDesc& instr_;
  const std::vector<ValueDesc>& values_;
  void* const* slots_;
  const std::uint64_t* versions_;
  std::unique_ptr<KernelCache>* cache_;
  const ConstantPages* pages_;
};

// What a kernel's verify function sees: descriptions only, no memory.
class VerifyContext {
 public:
  VerifyContext(const InstrDesc& instr, const std::vector<ValueDesc>& values)
      : instr_(instr), values_(values) {}
  std::size_t num_inputs() const { return instr_.inputs.size(); }
  std::size_t num_outputs() const { return instr_.outputs.size(); }
  const ValueDesc& in(std::size_t i) const { return values_[instr_.inputs[i]]; }
  const ValueDesc& out(std::size_t i) const { return values_[instr_.outputs[i]]; }
  const KernelArgs& args() const { return instr_.args; }
  // The family's arguments, which the loader has checked this instruction carries.
  template <typename Family>
  const Family& args_as() const {
    return std::get<Family>(instr_.args);
  }

  // Throw a LoadError naming the op unless `ok`.
  void require(bool ok, const std::string& what) const;
  void arity(std::size_t inputs, std::size_t outputs) const;
  void arity_range(std::size_t min_in, std::size_t max_in, std::size_t outputs) const;
  // Throw unless lo <= value <= hi, naming the typed argument's field ("Pool2dArgs.kernel_h").
  void field(const char* name, std::int64_t value, std::int64_t lo, std::int64_t hi) const;
  // A dim field: in [-ndim, ndim) of a tensor of ndim > 0 dims; returns it in [0, ndim).
  std::int64_t dim_field(const char* name, std::int64_t dim, std::size_t ndim) const;
  void dtype(const ValueDesc& v, DType dtype, const char* what) const;
  void shape(const ValueDesc& v, const Shape& expected, const char* what) const;

 private:
  const InstrDesc& instr_;
  const std::vector<ValueDesc>& values_;
};

using KernelFn = void (*)(const KernelContext&);
using VerifyFn = void (*)(const VerifyContext&);
// Part `part` of `parts` of an instruction's work, each thread of an OpenMP team running one: the
// executor runs consecutive such steps in one parallel region, a barrier between them, instead of
// a fork and a join per step (~1.5 us each on 2 busy cores). Must not throw.
using PartFn = void (*)(const KernelContext&, int part, int parts);
// Whether an instruction is worth running as parts (decided once, when the plan is built).
using ShareFn = bool (*)(const VerifyContext&);

struct KernelDef {
  std::string name;
  VerifyFn verify;
  KernelFn run;
  ShareFn shares = nullptr;  // null: never run as parts
  PartFn run_part = nullptr;
};

class KernelRegistry {
 public:
  // The registry with every built-in kernel family.
  static const KernelRegistry& builtin();
  void add(KernelDef def);
  const KernelDef* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::unordered_map<std::string, KernelDef> kernels_;
};

// One registration function per kernel family (kernels/<family>.cpp).
void register_gemm_kernels(KernelRegistry& registry);
void register_elementwise_kernels(KernelRegistry& registry);
void register_reduction_kernels(KernelRegistry& registry);
void register_normalization_kernels(KernelRegistry& registry);
void register_conv_kernels(KernelRegistry& registry);
void register_indexing_kernels(KernelRegistry& registry);
void register_view_kernels(KernelRegistry& registry);
void register_attention_kernels(KernelRegistry& registry);
void register_rotary_kernels(KernelRegistry& registry);

// Shared helpers for kernels.
// NumPy broadcasting of `in` against `out`: element strides of `in` per dim of `out` (0 where
// broadcast). Returns false if not broadcastable.
bool broadcast_strides(const Shape& in, const Shape& out, std::vector<std::int64_t>& strides);
// Checks that the instruction's StridedArgs describe a view of `view`'s shape whose every
// element lies within `numel` elements (a LoadError naming the field otherwise).
void verify_view_bounds(const VerifyContext& c, const Shape& view, std::int64_t numel);
// A dim in [-ndim, ndim) made non-negative, or -1 if out of range.
std::int64_t normalize_dim(std::int64_t dim, std::size_t ndim);
// n bools as float32 0 or 1 (any nonzero byte is true), vectorised per x86-64 level.
void bools_to_floats(const bool* from, float* to, std::int64_t n);

// Advances a row-major `index` over `shape` by one element, keeping `offset` equal to
// (the base it started from) + index . strides.
inline void next_strided(const Shape& shape, const std::int64_t* strides, std::int64_t* index,
                         std::int64_t& offset) {
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (++index[k] < shape[k]) {
      offset += strides[k];
      return;
    }
    offset -= strides[k] * (shape[k] - 1);
    index[k] = 0;
  }
}

// Calls fn(i, offset) for each element i (row-major) of `shape` (at most 16 dims, as verified
// at load), where offset = base + (the element's index) . strides.
template <typename Fn>
void for_each_strided(const Shape& shape, const std::int64_t* strides, std::int64_t base, Fn fn) {
  std::int64_t n = numel_of(shape);
  std::int64_t index[16] = {0};
  std::int64_t offset = base;
  for (std::int64_t i = 0; i < n; ++i) {
    fn(i, offset);
    next_strided(shape, strides, index, offset);
  }
}

}  // namespace glassbox::runtime
