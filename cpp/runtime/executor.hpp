// Executor: runs a plan (a verified program, kernels resolved) over a planned arena. Inputs are
// checked against the declared count, dtypes and shapes; strided inputs are copied to contiguous
// memory first. Outputs are written into buffers the caller gives (run_into), or copied into
// buffers the result owns (run), so they outlive the arena.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/plan.hpp"

namespace glassbox::runtime {

struct InputTensor {
  const void* data;
  DType dtype;
  Shape shape;
  std::vector<std::int64_t> strides;  // in elements; empty means contiguous
  // Nonzero: the caller vouches that the same data pointer with the same version holds the same
  // values as on an earlier run, so kernels may reuse what they derived from it (packed weights).
  std::uint64_t version = 0;
};

// An owned, 64-byte aligned, contiguous output.
struct OutputTensor {
  DType dtype;
  Shape shape;
  std::shared_ptr<void> storage;
  void* data() const { return storage.get(); }
};

class Executor {
 public:
  explicit Executor(std::shared_ptr<const Program> program);
  const Program& program() const { return plan_.program(); }
  // Safe to call from several threads: each run takes its own arena.
  std::vector<OutputTensor> run(const std::vector<InputTensor>& inputs);
  // The same, writing output i into outputs[i]: caller memory of the declared output's size
  // (C-contiguous), not overlapping the inputs. Outputs computed in the arena are computed there
  // directly, with no copy.
  void run_into(const std::vector<InputTensor>& inputs, const std::vector<void*>& outputs);
  // run_into for inputs given by address alone: input i is C-contiguous memory of its declared
  // dtype and shape (the caller checked), with versions[i] (null: all 0); outputs as in run_into,
  // one per declared output. No per-input descriptions are built or compared: the path of a
  // caller that checks its tensors itself (the torch.compile backend).
  void run_declared_into(const void* const* inputs, const std::uint64_t* versions,
                         void* const* outputs);
  // run_declared_into for a program with symbols: input i has the shape its declaration has at
  // `binding` (one value per symbol, the caller checked), and so have the outputs.
  void run_bound_into(const std::vector<std::int64_t>& binding, const void* const* inputs,
                      const std::uint64_t* versions, void* const* outputs);
  // The program at `binding` (the program itself where it has no symbols): specialized, verified
  // and planned at the first call with that binding, kept for the executor's life.
  const Plan& plan_for(const std::vector<std::int64_t>& binding);

 private:
  struct Arena {
    std::shared_ptr<void> memory;
    std::size_t capacity = 0;                    // bytes of memory: grows with the binding
    std::vector<std::shared_ptr<void>> staging;  // contiguous copies of strided inputs
    std::map<const Plan*, std::vector<std::unique_ptr<KernelCache>>> caches;  // one per step
    std::vector<void*> slots;             // of the current run, per value
    std::vector<std::uint64_t> versions;  // see KernelContext::version
    std::vector<const void*> input_data;  // contiguous inputs of the current run
    std::vector<std::uint64_t> input_versions;
  };
  // The plan the shapes of these inputs select.
  const Plan& plan_for_inputs(const std::vector<InputTensor>& inputs);
  // Checks the inputs against `plan`'s program and binds them (strided ones copied into
  // arena.staging) to arena.input_data and arena.input_versions.
  void bind_inputs(const Plan& plan, Arena& arena, const std::vector<InputTensor>& inputs);
  // Binds arena.slots to memory and runs every step over contiguous inputs; `into` as in
  // run_into, or null.
  void execute(const Plan& plan, Arena& arena, const void* const* inputs,
               const std::uint64_t* versions, void* const* into);
  // Runs steps [first, end), all with a run_part, in one OpenMP parallel region (see PartFn);
  // false, having run nothing, where there is no team to share them.
  bool run_as_team(const Plan& plan, Arena& arena,
                   std::vector<std::unique_ptr<KernelCache>>& caches, std::size_t first,
                   std::size_t end);
  class ArenaLease;
  std::unique_ptr<Arena> take_arena();
  void give_back(std::unique_ptr<Arena> arena);

  Plan plan_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Arena>> free_arenas_;
  std::map<std::vector<std::int64_t>, std::unique_ptr<Plan>> bound_plans_;  // under mutex_
};

std::shared_ptr<void> aligned_buffer(std::size_t nbytes);

}  // namespace glassbox::runtime
