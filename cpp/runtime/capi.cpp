// The C ABI over Program and Executor. Exceptions never cross it: they become a NULL or nonzero
// return and a per-thread message.
#include <algorithm>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "glassbox/runtime.h"
#include "runtime/executor.hpp"

using glassbox::runtime::DType;
using glassbox::runtime::Executor;
using glassbox::runtime::OutputTensor;
using glassbox::runtime::Program;

struct gbx_program {
  Executor executor;
};

struct gbx_result {
  std::vector<OutputTensor> outputs;
};

namespace {

thread_local std::string last_error;

template <typename F>
auto guarded(F&& f, decltype(f()) on_error) -> decltype(f()) {
  try {
    last_error.clear();
    return f();
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return on_error;
}

void describe(const glassbox::runtime::ValueDesc& v, gbx_tensor* info) {
  info->data = nullptr;
  info->dtype = static_cast<int32_t>(v.dtype);
  info->ndim = static_cast<int32_t>(v.shape.size());
  info->shape = v.shape.data();
  info->strides = nullptr;
}

// The runtime's view of the caller's tensors, checked for what the executor cannot check.
std::vector<glassbox::runtime::InputTensor> to_inputs(const gbx_tensor* inputs,
                                                      const uint64_t* versions, size_t n) {
  if (n && !inputs) throw std::invalid_argument("null inputs");
  std::vector<glassbox::runtime::InputTensor> ins;
  ins.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const gbx_tensor& t = inputs[i];
    if (!glassbox::runtime::is_valid_dtype(t.dtype)) {
      throw glassbox::runtime::RunError("input " + std::to_string(i) + ": unknown dtype code " +
                                        std::to_string(t.dtype));
    }
    if (t.ndim < 0 || t.ndim > 16 || (t.ndim > 0 && !t.shape)) {
      throw glassbox::runtime::RunError("input " + std::to_string(i) + ": bad ndim or shape");
    }
    glassbox::runtime::InputTensor in{t.data,
                                      static_cast<DType>(t.dtype),
                                      glassbox::runtime::Shape(t.shape, t.shape + t.ndim),
                                      {},
                                      versions ? versions[i] : 0};
    if (t.strides) in.strides.assign(t.strides, t.strides + t.ndim);
    ins.push_back(std::move(in));
  }
  return ins;
}

}  // namespace

extern "C" {

gbx_program* gbx_load_file(const char* path) {
  return guarded(
      [&]() -> gbx_program* {
        if (!path) throw std::invalid_argument("null path");
        return new gbx_program{Executor(Program::load_file(path))};
      },
      nullptr);
}

gbx_program* gbx_load_buffer(const void* data, size_t size) {
  return guarded(
      [&]() -> gbx_program* { return new gbx_program{Executor(Program::load_buffer(data, size))}; },
      nullptr);
}

void gbx_program_free(gbx_program* program) { delete program; }

size_t gbx_num_inputs(const gbx_program* program) {
  return program ? program->executor.program().inputs().size() : 0;
}

size_t gbx_num_outputs(const gbx_program* program) {
  return program ? program->executor.program().outputs().size() : 0;
}

int gbx_input_info(const gbx_program* program, size_t i, gbx_tensor* info) {
  return guarded(
      [&]() -> int {
        if (!program || !info) throw std::invalid_argument("null argument");
        const Program& p = program->executor.program();
        if (i >= p.inputs().size()) throw std::out_of_range("input index out of range");
        describe(p.values()[p.inputs()[i]], info);
        return 0;
      },
      1);
}

int gbx_memory_info(const gbx_program* program, size_t* constant_bytes, size_t* arena_bytes) {
  return guarded(
      [&]() -> int {
        if (!program || !constant_bytes || !arena_bytes)
          throw std::invalid_argument("null argument");
        *constant_bytes = program->executor.program().constant_bytes();
        *arena_bytes = program->executor.program().arena_size();
        return 0;
      },
      1);
}

size_t gbx_num_arguments(const gbx_program* program) {
  return program ? program->executor.program().arguments().size() : 0;
}

int gbx_argument_info(const gbx_program* program, size_t i, const char** name, int32_t* input,
                      const char** value) {
  return guarded(
      [&]() -> int {
        if (!program || !name || !input || !value) throw std::invalid_argument("null argument");
        const auto& args = program->executor.program().arguments();
        if (i >= args.size()) throw std::out_of_range("argument index out of range");
        *name = args[i].name.c_str();
        *input = args[i].input;
        *value = args[i].input < 0 ? args[i].value.c_str() : nullptr;
        return 0;
      },
      1);
}

int gbx_output_info(const gbx_program* program, size_t i, gbx_tensor* info) {
  return guarded(
      [&]() -> int {
        if (!program || !info) throw std::invalid_argument("null argument");
        const Program& p = program->executor.program();
        if (i >= p.outputs().size()) throw std::out_of_range("output index out of range");
        describe(p.values()[p.outputs()[i]], info);
        return 0;
      },
      1);
}

gbx_result* gbx_run(gbx_program* program, const gbx_tensor* inputs, size_t num_inputs) {
  return guarded(
      [&]() -> gbx_result* {
        if (!program) throw std::invalid_argument("null program");
        return new gbx_result{program->executor.run(to_inputs(inputs, nullptr, num_inputs))};
      },
      nullptr);
}

int gbx_run_into(gbx_program* program, const gbx_tensor* inputs, const uint64_t* versions,
                 size_t num_inputs, void* const* outputs, size_t num_outputs) {
  return guarded(
      [&]() -> int {
        if (!program) throw std::invalid_argument("null program");
        if (num_outputs && !outputs) throw std::invalid_argument("null outputs");
        program->executor.run_into(to_inputs(inputs, versions, num_inputs),
                                   std::vector<void*>(outputs, outputs + num_outputs));
        return 0;
      },
      1);
}

int gbx_run_declared_into(gbx_program* program, const void* const* inputs, const uint64_t* versions,
                          size_t num_inputs, void* const* outputs, size_t num_outputs) {
  return guarded(
      [&]() -> int {
        if (!program) throw std::invalid_argument("null program");
        const Program& p = program->executor.program();
        if (num_inputs != p.inputs().size()) {
          throw glassbox::runtime::RunError("expected " + std::to_string(p.inputs().size()) +
                                            " inputs, got " + std::to_string(num_inputs));
        }
        if (num_outputs != p.outputs().size()) {
          throw glassbox::runtime::RunError("expected " + std::to_string(p.outputs().size()) +
                                            " outputs, got " + std::to_string(num_outputs));
        }
        if ((num_inputs && !inputs) || (num_outputs && !outputs)) {
          throw std::invalid_argument("null inputs or outputs");
        }
        program->executor.run_declared_into(inputs, versions, outputs);
        return 0;
      },
      1);
}

size_t gbx_num_symbols(const gbx_program* program) {
  return program ? program->executor.program().symbols().size() : 0;
}

int gbx_symbol_info(const gbx_program* program, size_t i, int32_t* input, int32_t* dim,
                    int64_t* min, int64_t* max) {
  return guarded(
      [&]() -> int {
        if (!program || !input || !dim || !min || !max) {
          throw std::invalid_argument("null argument");
        }
        const auto& symbols = program->executor.program().symbols();
        if (i >= symbols.size()) throw std::out_of_range("symbol index out of range");
        *input = symbols[i].input;
        *dim = symbols[i].dim;
        *min = symbols[i].min;
        *max = symbols[i].max;
        return 0;
      },
      1);
}

int gbx_bound_shape(gbx_program* program, const int64_t* symbols, size_t num_symbols, int is_output,
                    size_t i, int64_t* shape) {
  return guarded(
      [&]() -> int {
        if (!program || !shape || (num_symbols && !symbols)) {
          throw std::invalid_argument("null argument");
        }
        const Program& p =
            program->executor.plan_for(std::vector<int64_t>(symbols, symbols + num_symbols))
                .program();
        const auto& slots = is_output ? p.outputs() : p.inputs();
        if (i >= slots.size()) throw std::out_of_range("index out of range");
        const auto& s = p.values()[slots[i]].shape;
        std::copy(s.begin(), s.end(), shape);
        return 0;
      },
      1);
}

int gbx_run_bound_into(gbx_program* program, const int64_t* symbols, size_t num_symbols,
                       const void* const* inputs, const uint64_t* versions, size_t num_inputs,
                       void* const* outputs, size_t num_outputs) {
  return guarded(
      [&]() -> int {
        if (!program || (num_symbols && !symbols)) throw std::invalid_argument("null argument");
        const Program& p = program->executor.program();
        if (num_inputs != p.inputs().size() || num_outputs != p.outputs().size()) {
          throw glassbox::runtime::RunError("expected " + std::to_string(p.inputs().size()) +
                                            " inputs and " + std::to_string(p.outputs().size()) +
                                            " outputs");
        }
        if ((num_inputs && !inputs) || (num_outputs && !outputs)) {
          throw std::invalid_argument("null inputs or outputs");
        }
        program->executor.run_bound_into(std::vector<int64_t>(symbols, symbols + num_symbols),
                                         inputs, versions, outputs);
        return 0;
      },
      1);
}

size_t gbx_result_num_outputs(const gbx_result* result) {
  return result ? result->outputs.size() : 0;
}

int gbx_result_output(const gbx_result* result, size_t i, gbx_tensor* out) {
  return guarded(
      [&]() -> int {
        if (!result || !out) throw std::invalid_argument("null argument");
        if (i >= result->outputs.size()) throw std::out_of_range("output index out of range");
        const OutputTensor& t = result->outputs[i];
        out->data = t.data();
        out->dtype = static_cast<int32_t>(t.dtype);
        out->ndim = static_cast<int32_t>(t.shape.size());
        out->shape = t.shape.data();
        out->strides = nullptr;
        return 0;
      },
      1);
}

void gbx_result_free(gbx_result* result) { delete result; }

const char* gbx_last_error(void) { return last_error.c_str(); }

}  // extern "C"
