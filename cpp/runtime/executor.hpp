// Executor: runs a plan (a verified program, kernels resolved) over a planned arena. Inputs are
// checked against the declared count, dtypes and shapes; strided inputs are copied to contiguous
// memory first. Outputs are copied into buffers the result owns, so they outlive the arena.
#pragma once

#include <cstdint>
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

 private:
  struct Arena {
    std::shared_ptr<void> memory;
    std::vector<std::shared_ptr<void>> staging;  // contiguous copies of strided inputs
  };
  std::unique_ptr<Arena> take_arena();
  void give_back(std::unique_ptr<Arena> arena);

  Plan plan_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Arena>> free_arenas_;
};

std::shared_ptr<void> aligned_buffer(std::size_t nbytes);

}  // namespace glassbox::runtime
