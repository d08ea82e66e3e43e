#include "runtime/plan.hpp"

namespace glassbox::runtime {

Plan::Plan(std::shared_ptr<const Program> program, const KernelRegistry& registry)
    : program_(std::move(program)) {
  for (const InstrDesc& instr : program_->instructions()) {
    const KernelDef* kernel = registry.find(instr.op);
    if (!kernel) throw LoadError("no kernel '" + instr.op + "' in this runtime");
    PartFn part = nullptr;
    if (kernel->shares && kernel->run_part &&
        kernel->shares(VerifyContext(instr, program_->values()))) {
      part = kernel->run_part;
    }
    steps_.push_back(PlannedInstruction{kernel->run, &instr, part});
  }
}

}  // namespace glassbox::runtime
