// Plan: a verified Program with every instruction's kernel resolved to a function pointer, once,
// at load. Executing a plan does no lookups.
#pragma once

#include <memory>
#include <vector>

#include "runtime/kernel.hpp"
#include "runtime/program.hpp"

namespace glassbox::runtime {

struct PlannedInstruction {
  KernelFn run;
  const InstrDesc* instr;
  PartFn run_part = nullptr;  // set where the kernel runs this instruction as a team's parts
};

class Plan {
 public:
  explicit Plan(std::shared_ptr<const Program> program,
                const KernelRegistry& registry = KernelRegistry::builtin());
  const Program& program() const { return *program_; }
  const std::vector<PlannedInstruction>& steps() const { return steps_; }

 private:
  std::shared_ptr<const Program> program_;
  std::vector<PlannedInstruction> steps_;
};

}  // namespace glassbox::runtime
