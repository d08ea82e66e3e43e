#include "runtime/executor.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace glassbox::runtime {

std::shared_ptr<void> aligned_buffer(std::size_t nbytes) {
  std::size_t padded = (nbytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, padded == 0 ? 64 : padded);
  if (!p) throw RunError("out of memory allocating " + std::to_string(nbytes) + " bytes");
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

Executor::Executor(std::shared_ptr<const Program> program) : plan_(std::move(program)) {}

std::unique_ptr<Executor::Arena> Executor::take_arena() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_arenas_.empty()) {
      auto arena = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return arena;
    }
  }
  auto arena = std::make_unique<Arena>();
  arena->memory = aligned_buffer(plan_.program().arena_size());
  return arena;
}

void Executor::give_back(std::unique_ptr<Arena> arena) {
  arena->staging.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  free_arenas_.push_back(std::move(arena));
}

namespace {

bool is_contiguous(const Shape& shape, const std::vector<std::int64_t>& strides) {
  if (strides.empty()) return true;
  std::int64_t expected = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] != 1 && strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

// Gather a strided tensor into contiguous memory.
void copy_strided(const void* src, void* dst, const Shape& shape,
                  const std::vector<std::int64_t>& strides, std::size_t elem) {
  std::int64_t n = numel_of(shape);
  if (n == 0) return;
  std::vector<std::int64_t> index(shape.size(), 0);
  const auto* s = static_cast<const std::uint8_t*>(src);
  auto* d = static_cast<std::uint8_t*>(dst);
  std::int64_t offset = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::memcpy(d + i * elem, s + offset * static_cast<std::int64_t>(elem), elem);
    for (std::size_t k = shape.size(); k-- > 0;) {
      if (++index[k] < shape[k]) {
        offset += strides[k];
        break;
      }
      offset -= strides[k] * (shape[k] - 1);
      index[k] = 0;
    }
  }
}

void check_input(const ValueDesc& declared, const InputTensor& given, std::size_t i) {
  std::string where = "input " + std::to_string(i);
  if (given.dtype != declared.dtype) {
    throw RunError(where + ": expected dtype " + dtype_name(declared.dtype) + ", got " +
                   dtype_name(given.dtype));
  }
  if (given.shape != declared.shape) {
    throw RunError(where + ": expected shape " + shape_str(declared.shape) + ", got " +
                   shape_str(given.shape));
  }
  if (!given.strides.empty() && given.strides.size() != given.shape.size()) {
    throw RunError(where + ": strides and shape differ in length");
  }
  for (std::int64_t s : given.strides) {
    if (s < 0) throw RunError(where + ": negative strides are not supported");
  }
  if (given.data == nullptr && declared.numel != 0) throw RunError(where + ": null data");
}

// GLASSBOX_PROFILE=1: time spent per kernel, summed over the process, printed to stderr at exit.
class Profile {
 public:
  static Profile* get() {
    static Profile* profile = std::getenv("GLASSBOX_PROFILE") ? new Profile() : nullptr;
    return profile;
  }
  void add(const std::string& op, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = totals_[op];
    entry.first += seconds;
    entry.second += 1;
  }

 private:
  Profile() {
    std::atexit([] { get()->print(); });
  }
  void print() {
    std::lock_guard<std::mutex> lock(mutex_);
    double total = 0;
    for (const auto& [op, e] : totals_) total += e.first;
    std::fprintf(stderr, "[glassbox profile] %-22s %10s %8s %6s\n", "kernel", "ms", "calls",
                 "share");
    for (const auto& [op, e] : totals_) {
      std::fprintf(stderr, "[glassbox profile] %-22s %10.3f %8ld %5.1f%%\n", op.c_str(),
                   e.first * 1e3, e.second, total > 0 ? 100.0 * e.first / total : 0.0);
    }
  }
  std::mutex mutex_;
  std::map<std::string, std::pair<double, long>> totals_;
};

}  // namespace

std::vector<OutputTensor> Executor::run(const std::vector<InputTensor>& inputs) {
  const Program& p = plan_.program();
  if (inputs.size() != p.inputs().size()) {
    throw RunError("expected " + std::to_string(p.inputs().size()) + " inputs, got " +
                   std::to_string(inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    check_input(p.values()[p.inputs()[i]], inputs[i], i);

  std::unique_ptr<Arena> arena = take_arena();
  auto* base = static_cast<std::uint8_t*>(arena->memory.get());
  const auto& values = p.values();
  std::vector<void*> slots(values.size(), nullptr);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputTensor& in = inputs[i];
    void* data = const_cast<void*>(in.data);
    if (!is_contiguous(in.shape, in.strides)) {
      auto staged =
          aligned_buffer(static_cast<std::size_t>(numel_of(in.shape)) * element_size(in.dtype));
      copy_strided(in.data, staged.get(), in.shape, in.strides, element_size(in.dtype));
      data = staged.get();
      arena->staging.push_back(std::move(staged));
    }
    slots[p.inputs()[i]] = data;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const ValueDesc& v = values[i];
    if (v.kind == ValueKind::Constant) {
      slots[i] = const_cast<void*>(p.constant_data(static_cast<std::size_t>(v.index)));
    } else if (v.kind == ValueKind::Arena) {
      slots[i] = base + v.index;
    }
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == ValueKind::Alias) slots[i] = slots[values[i].index];
  }

  try {
    Profile* profile = Profile::get();
    for (const PlannedInstruction& step : plan_.steps()) {
      if (profile) {
        auto t0 = std::chrono::steady_clock::now();
        step.run(KernelContext(*step.instr, values, slots.data()));
        profile->add(step.instr->op,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      } else {
        step.run(KernelContext(*step.instr, values, slots.data()));
      }
    }
  } catch (...) {
    give_back(std::move(arena));
    throw;
  }

  std::vector<OutputTensor> outputs;
  outputs.reserve(p.outputs().size());
  for (std::int32_t s : p.outputs()) {
    const ValueDesc& v = values[s];
    OutputTensor out{v.dtype, v.shape, aligned_buffer(v.nbytes())};
    if (v.nbytes()) std::memcpy(out.data(), slots[s], v.nbytes());
    outputs.push_back(std::move(out));
  }
  give_back(std::move(arena));
  return outputs;
}

}  // namespace glassbox::runtime
