// glassbox._core bindings for the native runtime, over the C ABI (include/glassbox/runtime.h).
// Inputs arrive as nb::ndarray (NumPy buffers or DLPack: torch tensors) and are passed to the
// runtime without copies; outputs come back as NumPy arrays viewing buffers the run result owns.
#include "glassbox/runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bindings/errors.hpp"
#include "bindings/kernel_args.hpp"
#include "bindings/tensor_call.hpp"
#include "runtime/serializer.hpp"

namespace nb = nanobind;
namespace rt = glassbox::runtime;
using glassbox::bindings::ArtifactError;
using glassbox::bindings::InputError;
using glassbox::bindings::TensorCall;

namespace {

using Array = nb::ndarray<nb::device::cpu>;

int dtype_code(const Array& a, std::size_t i) {
  nb::dlpack::dtype d = a.dtype();
  if (d == nb::dtype<float>()) return GBX_FLOAT32;
  if (d == nb::dtype<std::int64_t>()) return GBX_INT64;
  if (d == nb::dtype<bool>()) return GBX_BOOL;
  if (d == nb::dtype<std::int32_t>()) return GBX_INT32;
  throw InputError("input " + std::to_string(i) + ": unsupported dtype (code " +
                   std::to_string(d.code) + ", " + std::to_string(d.bits) +
                   " bits); glassbox runs float32, int64, int32 and bool");
}

class RuntimeProgram {
 public:
  explicit RuntimeProgram(gbx_program* p) : program_(p, gbx_program_free) {
    if (!p) throw ArtifactError(gbx_last_error());
  }
  static RuntimeProgram from_file(const std::string& path) {
    return RuntimeProgram(gbx_load_file(path.c_str()));
  }
  static RuntimeProgram from_bytes(const nb::bytes& data) {
    return RuntimeProgram(gbx_load_buffer(data.c_str(), data.size()));
  }

  std::size_t num_inputs() const { return gbx_num_inputs(program_.get()); }
  std::size_t num_outputs() const { return gbx_num_outputs(program_.get()); }
  std::vector<std::tuple<int, std::vector<std::int64_t>>> input_info() const { return info(true); }
  std::vector<std::tuple<int, std::vector<std::int64_t>>> output_info() const {
    return info(false);
  }

  nb::list run(const std::vector<Array>& inputs) const {
    std::vector<gbx_tensor> tensors(inputs.size());
    std::vector<std::vector<std::int64_t>> shapes(inputs.size()), strides(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Array& a = inputs[i];
      for (std::size_t d = 0; d < a.ndim(); ++d) {
        shapes[i].push_back(static_cast<std::int64_t>(a.shape(d)));
        strides[i].push_back(static_cast<std::int64_t>(a.stride(d)));
      }
      tensors[i] = gbx_tensor{a.data(), dtype_code(a, i), static_cast<int32_t>(a.ndim()),
                              shapes[i].data(), strides[i].data()};
    }
    return wrap(run_raw(tensors.data(), tensors.size()));
  }

  // The per-call entry of a compiled graph over this program (see TensorCall).
  std::unique_ptr<TensorCall> tensor_call(std::vector<int> arg_positions, std::vector<int> weights,
                                          std::vector<nb::tuple> allocate_args, nb::object allocate,
                                          std::vector<std::pair<int, int>> result_plan,
                                          nb::object fallback,
                                          std::vector<int> dynamic_inputs) const {
    return std::make_unique<TensorCall>(
        program_,
        TensorCall::Spec{std::move(arg_positions), std::move(weights), std::move(allocate_args),
                         std::move(allocate), std::move(result_plan), std::move(fallback),
                         std::move(dynamic_inputs)});
  }

  // (input, dim, min, max) of each symbol (empty for a program of static shapes).
  std::vector<std::tuple<std::int32_t, std::int32_t, std::int64_t, std::int64_t>> symbols() const {
    std::vector<std::tuple<std::int32_t, std::int32_t, std::int64_t, std::int64_t>> out;
    for (std::size_t i = 0; i < gbx_num_symbols(program_.get()); ++i) {
      std::int32_t input = 0, dim = 0;
      std::int64_t lo = 0, hi = 0;
      gbx_symbol_info(program_.get(), i, &input, &dim, &lo, &hi);
      out.emplace_back(input, dim, lo, hi);
    }
    return out;
  }

  // (name, input, value or None) of each recorded argument.
  nb::list arguments() const {
    nb::list out;
    for (std::size_t i = 0; i < gbx_num_arguments(program_.get()); ++i) {
      const char *name = nullptr, *value = nullptr;
      std::int32_t input = -1;
      gbx_argument_info(program_.get(), i, &name, &input, &value);
      out.append(
          nb::make_tuple(nb::str(name), input, value ? nb::object(nb::str(value)) : nb::none()));
    }
    return out;
  }

 private:
  gbx_result* run_raw(const gbx_tensor* tensors, std::size_t n) const {
    gbx_result* raw;
    {
      nb::gil_scoped_release release;
      raw = gbx_run(program_.get(), tensors, n);
    }
    if (!raw) throw InputError(gbx_last_error());
    return raw;
  }

  static nb::list wrap(gbx_result* raw) {
    auto* result = new std::shared_ptr<gbx_result>(raw, gbx_result_free);
    nb::capsule owner_all(
        result, [](void* p) noexcept { delete static_cast<std::shared_ptr<gbx_result>*>(p); });
    nb::list outputs;
    for (std::size_t i = 0; i < gbx_result_num_outputs(raw); ++i) {
      gbx_tensor t;
      gbx_result_output(raw, i, &t);
      std::vector<std::size_t> shape(t.shape, t.shape + t.ndim);
      nb::dlpack::dtype dt = t.dtype == GBX_FLOAT32 ? nb::dtype<float>()
                             : t.dtype == GBX_INT64 ? nb::dtype<std::int64_t>()
                             : t.dtype == GBX_INT32 ? nb::dtype<std::int32_t>()
                                                    : nb::dtype<bool>();
      auto* keep = new std::shared_ptr<gbx_result>(*result);
      nb::capsule owner(
          keep, [](void* p) noexcept { delete static_cast<std::shared_ptr<gbx_result>*>(p); });
      outputs.append(
          nb::ndarray<nb::numpy>(t.data, shape.size(), shape.data(), owner, nullptr, dt).cast());
    }
    return outputs;
  }

 private:
  std::vector<std::tuple<int, std::vector<std::int64_t>>> info(bool inputs) const {
    std::vector<std::tuple<int, std::vector<std::int64_t>>> out;
    std::size_t n = inputs ? num_inputs() : num_outputs();
    for (std::size_t i = 0; i < n; ++i) {
      gbx_tensor t;
      if (inputs)
        gbx_input_info(program_.get(), i, &t);
      else
        gbx_output_info(program_.get(), i, &t);
      out.emplace_back(t.dtype, std::vector<std::int64_t>(t.shape, t.shape + t.ndim));
    }
    return out;
  }
  std::shared_ptr<gbx_program> program_;
};

using ValueTuple = std::tuple<int, std::vector<std::int64_t>, int, std::int64_t>;
// The last element: None, or the kernel family's typed arguments (program.py's dataclasses), read
// by field name (bindings/kernel_args.hpp).
using InstrTuple =
    std::tuple<std::string, std::vector<std::int32_t>, std::vector<std::int32_t>, nb::object>;
using ArgumentTuple = std::tuple<std::string, std::int32_t, std::string>;
// Symbols (input, dim, min, max) and expressions (op, a, b) of a program with symbolic sizes;
// per value, the expression id of each dim (-1: static), or empty. Symbolic kernel arguments
// carry their expression ids in their table (StridedArgs).
using SymbolTuple = std::tuple<std::int32_t, std::int32_t, std::int64_t, std::int64_t>;
using ExprTuple = std::tuple<int, std::int64_t, std::int64_t>;
struct SymbolicSpec {
  std::vector<SymbolTuple> symbols;
  std::vector<ExprTuple> exprs;
  std::vector<std::vector<std::int32_t>> value_dims;
};

void add_symbols(rt::ProgramSpec& spec, const SymbolicSpec& sym) {
  if (sym.symbols.empty()) return;
  if (sym.value_dims.size() != spec.values.size()) {
    throw InputError("expected symbolic dims per value");
  }
  for (const auto& [input, dim, lo, hi] : sym.symbols) spec.symbols.push_back({input, dim, lo, hi});
  for (const auto& [op, a, b] : sym.exprs) {
    spec.exprs.push_back({static_cast<rt::ExprOp>(op), a, b});
  }
  for (std::size_t i = 0; i < spec.values.size(); ++i) spec.values[i].dims = sym.value_dims[i];
}

nb::bytes serialize(const std::vector<ValueTuple>& values, const std::vector<std::int32_t>& inputs,
                    const std::vector<std::int32_t>& outputs,
                    const std::vector<InstrTuple>& instructions,
                    const std::vector<nb::bytes>& constants, std::uint64_t arena_size,
                    const std::vector<ArgumentTuple>& arguments,
                    const std::vector<SymbolTuple>& symbols, const std::vector<ExprTuple>& exprs,
                    const std::vector<std::vector<std::int32_t>>& value_dims) {
  rt::ProgramSpec spec;
  for (const auto& [dtype, shape, kind, index] : values) {
    rt::ValueDesc v;
    v.dtype = static_cast<rt::DType>(dtype);
    v.shape = shape;
    v.kind = static_cast<rt::ValueKind>(kind);
    v.index = index;
    spec.values.push_back(std::move(v));
  }
  spec.inputs = inputs;
  spec.outputs = outputs;
  for (const auto& [op, ins, outs, args] : instructions) {
    spec.instructions.push_back(
        rt::InstrDesc{op, ins, outs, glassbox::bindings::kernel_args_from_python(op, args)});
  }
  for (const nb::bytes& c : constants) spec.constants.emplace_back(c.c_str(), c.size());
  spec.arena_size = arena_size;
  for (const auto& [name, input, value] : arguments) spec.arguments.push_back({name, input, value});
  add_symbols(spec, SymbolicSpec{symbols, exprs, value_dims});
  std::string bytes = rt::serialize_program(spec);
  return nb::bytes(bytes.data(), bytes.size());
}

}  // namespace

void bind_runtime(nb::module_& m) {
  nb::exception<ArtifactError>(m, "ArtifactError", PyExc_ValueError);
  nb::exception<InputError>(m, "RunError", PyExc_ValueError);
  glassbox::bindings::bind_tensor_call(m);
  nb::class_<RuntimeProgram>(m, "RuntimeProgram",
                             "A verified glassbox program (.gbx), ready to run.")
      .def_static("from_file", &RuntimeProgram::from_file, nb::arg("path"))
      .def_static("from_bytes", &RuntimeProgram::from_bytes, nb::arg("data"))
      .def_prop_ro("num_inputs", &RuntimeProgram::num_inputs)
      .def_prop_ro("num_outputs", &RuntimeProgram::num_outputs)
      .def("input_info", &RuntimeProgram::input_info, "(dtype code, shape) of each input")
      .def("output_info", &RuntimeProgram::output_info, "(dtype code, shape) of each output")
      .def("arguments", &RuntimeProgram::arguments,
           "(name, input position or -1, fixed value as a Python literal or None) of each "
           "argument of the exported function, in call order")
      .def("symbols", &RuntimeProgram::symbols,
           "(input, dim, min, max) of each symbol: sizes that vary from call to call")
      .def("run", &RuntimeProgram::run, nb::arg("inputs"),
           "Run on arrays (NumPy or DLPack, any strides); returns NumPy arrays.")
      .def(
          "tensor_call", &RuntimeProgram::tensor_call, nb::arg("arg_positions"), nb::arg("weights"),
          nb::arg("allocate_args"), nb::arg("allocate"), nb::arg("result_plan"),
          nb::arg("fallback"), nb::arg("dynamic_inputs") = std::vector<int>(),
          "The per-call entry of a compiled graph: a TensorCall taking the graph's arguments "
          "(argument arg_positions[i] is input i; the inputs listed in weights keep their "
          "versions while they are the same tensors, unwritten), allocating output o as "
          "allocate(*allocate_args[o]), returning the list result_plan describes: (0, o) output o, "
          "(1, k) argument k, (2, 0) None. Calls its guard has not passed go to fallback(*args). A "
          "program with symbols: "
          "dynamic_inputs lists the inputs whose shapes depend on them (checked per call) and "
          "allocate_args[o] is (shape, strides, dtype), shape and strides replaced per call.");
  m.def("serialize_program", &serialize, nb::arg("values"), nb::arg("inputs"), nb::arg("outputs"),
        nb::arg("instructions"), nb::arg("constants"), nb::arg("arena_size"),
        nb::arg("arguments") = std::vector<ArgumentTuple>(),
        nb::arg("symbols") = std::vector<SymbolTuple>(),
        nb::arg("exprs") = std::vector<ExprTuple>(),
        nb::arg("value_dims") = std::vector<std::vector<std::int32_t>>(),
        "Build the bytes of a .gbx artifact from a lowered program.");
}
