#include "runtime/executor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <string>

#include "runtime/team_stalls.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

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
  return std::make_unique<Arena>();  // memory is allocated by the first run
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
  auto where = [i] { return "input " + std::to_string(i); };
  if (given.dtype != declared.dtype) {
    throw RunError(where() + ": expected dtype " + dtype_name(declared.dtype) + ", got " +
                   dtype_name(given.dtype));
  }
  if (given.shape != declared.shape) {
    throw RunError(where() + ": expected shape " + shape_str(declared.shape) + ", got " +
                   shape_str(given.shape));
  }
  if (!given.strides.empty() && given.strides.size() != given.shape.size()) {
    throw RunError(where() + ": strides and shape differ in length");
  }
  for (std::int64_t s : given.strides) {
    if (s < 0) throw RunError(where() + ": negative strides are not supported");
  }
  if (given.data == nullptr && declared.numel != 0) throw RunError(where() + ": null data");
}

// GLASSBOX_PROFILE=1: time spent per step of each program (by step number and op), printed to
// stderr at exit: the total, the number of calls and the median of one call (on a shared
// machine the median is the figure to trust: totals carry every preemption).
class Profile {
 public:
  static Profile* get() {
    static Profile* profile = std::getenv("GLASSBOX_PROFILE") ? new Profile() : nullptr;
    return profile;
  }
  void add(const void* program, std::size_t step, const std::string& op, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, fresh] = programs_.emplace(program, programs_.size());
    char key[64];
    std::snprintf(key, sizeof key, "p%zu #%03zu %s", it->second, step, op.c_str());
    samples_[key].push_back(seconds);
  }

 private:
  Profile() {
    std::atexit([] { get()->print(); });
  }
  void print() {
    std::lock_guard<std::mutex> lock(mutex_);
    double total = 0;
    for (const auto& [key, s] : samples_) total += std::accumulate(s.begin(), s.end(), 0.0);
    std::fprintf(stderr, "[glassbox profile] %-26s %10s %8s %6s %10s\n", "step", "ms", "calls",
                 "share", "median us");
    for (auto& [key, s] : samples_) {
      double sum = std::accumulate(s.begin(), s.end(), 0.0);
      std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
      std::fprintf(stderr, "[glassbox profile] %-26s %10.3f %8zu %5.1f%% %10.2f\n", key.c_str(),
                   sum * 1e3, s.size(), total > 0 ? 100.0 * sum / total : 0.0,
                   s[s.size() / 2] * 1e6);
    }
  }
  std::mutex mutex_;
  std::map<const void*, std::size_t> programs_;
  std::map<std::string, std::vector<double>> samples_;
};

}  // namespace

// Constants never change while the program lives: one version for all of them (their pointers
// tell them apart).
constexpr std::uint64_t kConstantVersion = ~std::uint64_t{0};

const Plan& Executor::plan_for(const std::vector<std::int64_t>& binding) {
  if (!plan_.program().has_symbols()) return plan_;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = bound_plans_.find(binding);
  if (it == bound_plans_.end()) {
    auto plan = std::make_unique<Plan>(plan_.program().specialize(binding));
    it = bound_plans_.emplace(binding, std::move(plan)).first;
  }
  return *it->second;
}

const Plan& Executor::plan_for_inputs(const std::vector<InputTensor>& inputs) {
  const Program& p = plan_.program();
  if (!p.has_symbols()) return plan_;
  std::vector<const Shape*> shapes;
  for (const InputTensor& in : inputs) shapes.push_back(&in.shape);
  if (shapes.size() != p.inputs().size()) {
    throw RunError("expected " + std::to_string(p.inputs().size()) + " inputs, got " +
                   std::to_string(inputs.size()));
  }
  return plan_for(p.bind(shapes));
}

void Executor::bind_inputs(const Plan& plan, Arena& arena, const std::vector<InputTensor>& inputs) {
  const Program& p = plan.program();
  if (inputs.size() != p.inputs().size()) {
    throw RunError("expected " + std::to_string(p.inputs().size()) + " inputs, got " +
                   std::to_string(inputs.size()));
  }
  arena.input_data.resize(inputs.size());
  arena.input_versions.resize(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputTensor& in = inputs[i];
    check_input(p.values()[p.inputs()[i]], in, i);
    arena.input_data[i] = in.data;
    arena.input_versions[i] = in.version;
    if (!is_contiguous(in.shape, in.strides)) {
      auto staged =
          aligned_buffer(static_cast<std::size_t>(numel_of(in.shape)) * element_size(in.dtype));
      copy_strided(in.data, staged.get(), in.shape, in.strides, element_size(in.dtype));
      arena.input_data[i] = staged.get();
      arena.input_versions[i] = 0;  // a fresh copy: its address says nothing
      arena.staging.push_back(std::move(staged));
    }
  }
}

void Executor::execute(const Plan& plan, Arena& arena, const void* const* inputs,
                       const std::uint64_t* in_versions, void* const* into) {
  const Program& p = plan.program();
  if (arena.capacity < p.arena_size() || !arena.memory) {
    arena.memory = aligned_buffer(p.arena_size());
    arena.capacity = p.arena_size();
  }
  auto* base = static_cast<std::uint8_t*>(arena.memory.get());
  const auto& values = p.values();
  std::vector<void*>& slots = arena.slots;
  std::vector<std::uint64_t>& versions = arena.versions;
  slots.assign(values.size(), nullptr);
  versions.assign(values.size(), 0);
  for (std::size_t i = 0; i < p.inputs().size(); ++i) {
    slots[p.inputs()[i]] = const_cast<void*>(inputs[i]);
    versions[p.inputs()[i]] = in_versions ? in_versions[i] : 0;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const ValueDesc& v = values[i];
    if (v.kind == ValueKind::Constant) {
      slots[i] = const_cast<void*>(p.constant_data(static_cast<std::size_t>(v.index)));
      versions[i] = kConstantVersion;
    } else if (v.kind == ValueKind::Arena) {
      slots[i] = base + v.index;
    }
  }
  // Outputs computed in the arena are computed in the caller's memory instead (the first time a
  // slot is named; a slot named twice is copied for the second).
  if (into) {
    for (std::size_t o = 0; o < p.outputs().size(); ++o) {
      std::int32_t s = p.outputs()[o];
      const ValueDesc& v = values[s];
      if (v.kind == ValueKind::Arena && slots[s] == base + v.index && v.nbytes())
        slots[s] = into[o];
    }
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == ValueKind::Alias) {
      slots[i] = slots[values[i].index];
      versions[i] = versions[values[i].index];
    }
  }

  const auto& steps = plan.steps();
  std::vector<std::unique_ptr<KernelCache>>& caches = arena.caches[&plan];
  if (caches.size() != steps.size()) caches.resize(steps.size());
  Profile* profile = Profile::get();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const PlannedInstruction& step = steps[k];
    std::size_t end = k;
    while (end < steps.size() && steps[end].run_part) ++end;
    if (end - k >= 2 && !profile && run_as_team(plan, arena, caches, k, end)) {
      k = end - 1;
      continue;
    }
    KernelContext context(*step.instr, values, slots.data(), versions.data(), &caches[k], &p);
    if (profile) {
      auto t0 = std::chrono::steady_clock::now();
      step.run(context);
      profile->add(&p, k, step.instr->op,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    } else {
      step.run(context);
    }
  }
}

bool Executor::run_as_team(const Plan& plan, Arena& arena,
                           std::vector<std::unique_ptr<KernelCache>>& caches, std::size_t first,
                           std::size_t end) {
#ifdef _OPENMP
  const int team = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (team < 2 || !TeamStalls::may_fork()) return false;
  const auto& steps = plan.steps();
  const auto& values = plan.program().values();
  {
    TeamRegion region;
#pragma omp parallel num_threads(team)
    {
      const int part = omp_get_thread_num(), parts = omp_get_num_threads();
      for (std::size_t k = first; k < end; ++k) {
        if (k > first) {
#pragma omp barrier
        }
        KernelContext context(*steps[k].instr, values, arena.slots.data(), arena.versions.data(),
                              &caches[k]);
        region.part(part, [&] { steps[k].run_part(context, part, parts); });
      }
    }
  }
  return true;
#else
  (void)plan, (void)arena, (void)caches, (void)first, (void)end;
  return false;
#endif
}

// An arena taken for one run and given back however the run ends.
class Executor::ArenaLease {
 public:
  explicit ArenaLease(Executor& executor) : executor_(executor), arena_(executor.take_arena()) {}
  ~ArenaLease() { executor_.give_back(std::move(arena_)); }
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  Arena& operator*() const { return *arena_; }

 private:
  Executor& executor_;
  std::unique_ptr<Arena> arena_;
};

namespace {

void check_outputs(const Program& p, void* const* outputs, std::size_t n) {
  if (n != p.outputs().size()) {
    throw RunError("expected " + std::to_string(p.outputs().size()) + " outputs, got " +
                   std::to_string(n));
  }
  for (std::size_t o = 0; o < n; ++o) {
    if (!outputs[o] && p.values()[p.outputs()[o]].nbytes()) {
      throw RunError("output " + std::to_string(o) + ": null data");
    }
  }
}

// Copies the outputs not computed in place into `outputs` (see run_into).
void copy_outputs(const Program& p, const std::vector<void*>& slots, void* const* outputs) {
  for (std::size_t o = 0; o < p.outputs().size(); ++o) {
    std::int32_t s = p.outputs()[o];
    std::size_t nbytes = p.values()[s].nbytes();
    if (nbytes && slots[s] != outputs[o]) std::memcpy(outputs[o], slots[s], nbytes);
  }
}

}  // namespace

std::vector<OutputTensor> Executor::run(const std::vector<InputTensor>& inputs) {
  const Plan& plan = plan_for_inputs(inputs);
  const Program& p = plan.program();
  // The outputs are allocated first and computed in place (no copy out of the arena).
  std::vector<OutputTensor> outputs;
  std::vector<void*> into;
  outputs.reserve(p.outputs().size());
  into.reserve(p.outputs().size());
  for (std::int32_t s : p.outputs()) {
    const ValueDesc& v = p.values()[s];
    outputs.push_back(OutputTensor{v.dtype, v.shape, aligned_buffer(v.nbytes())});
    into.push_back(outputs.back().data());
  }
  ArenaLease arena(*this);
  bind_inputs(plan, *arena, inputs);
  execute(plan, *arena, (*arena).input_data.data(), (*arena).input_versions.data(), into.data());
  copy_outputs(p, (*arena).slots, into.data());
  return outputs;
}

void Executor::run_into(const std::vector<InputTensor>& inputs, const std::vector<void*>& outputs) {
  const Plan& plan = plan_for_inputs(inputs);
  check_outputs(plan.program(), outputs.data(), outputs.size());
  ArenaLease arena(*this);
  bind_inputs(plan, *arena, inputs);
  execute(plan, *arena, (*arena).input_data.data(), (*arena).input_versions.data(), outputs.data());
  copy_outputs(plan.program(), (*arena).slots, outputs.data());
}

void Executor::run_declared_into(const void* const* inputs, const std::uint64_t* versions,
                                 void* const* outputs) {
  if (plan_.program().has_symbols()) {
    throw RunError("a program with symbols runs with a binding (gbx_run_bound_into)");
  }
  run_bound_into({}, inputs, versions, outputs);
}

void Executor::run_bound_into(const std::vector<std::int64_t>& binding, const void* const* inputs,
                              const std::uint64_t* versions, void* const* outputs) {
  const Plan& plan = plan_for(binding);
  const Program& p = plan.program();
  for (std::size_t i = 0; i < p.inputs().size(); ++i) {
    if (!inputs[i] && p.values()[p.inputs()[i]].numel != 0) {
      throw RunError("input " + std::to_string(i) + ": null data");
    }
  }
  check_outputs(p, outputs, p.outputs().size());
  ArenaLease arena(*this);
  execute(plan, *arena, inputs, versions, outputs);
  copy_outputs(p, (*arena).slots, outputs);
}

}  // namespace glassbox::runtime
