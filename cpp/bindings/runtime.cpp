// glassbox._core bindings for the native runtime, over the C ABI (include/glassbox/runtime.h).
// Inputs arrive as nb::ndarray (NumPy buffers or DLPack: torch tensors) and are passed to the
// runtime without copies; outputs come back as NumPy arrays viewing buffers the run result owns.
#include "glassbox/runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/serializer.hpp"

namespace nb = nanobind;
namespace rt = glassbox::runtime;

namespace {

struct ArtifactError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Array = nb::ndarray<nb::device::cpu>;

int dtype_code(const Array& a, std::size_t i) {
  nb::dlpack::dtype d = a.dtype();
  if (d == nb::dtype<float>()) return GBX_FLOAT32;
  if (d == nb::dtype<std::int64_t>()) return GBX_INT64;
  if (d == nb::dtype<bool>()) return GBX_BOOL;
  throw InputError("input " + std::to_string(i) + ": unsupported dtype (code " +
                   std::to_string(d.code) + ", " + std::to_string(d.bits) +
                   " bits); glassbox runs float32, int64 and bool");
}

class RuntimeProgram {
 public:
  explicit RuntimeProgram(gbx_program* p) : program_(p, gbx_program_free) {
    if (!p) throw ArtifactError(gbx_last_error());
    std::size_t n = gbx_num_inputs(p);
    in_shapes_.resize(n);
    in_specs_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      gbx_tensor t;
      gbx_input_info(p, i, &t);
      in_shapes_[i].assign(t.shape, t.shape + t.ndim);
      in_specs_[i] = gbx_tensor{nullptr, t.dtype, t.ndim, nullptr, nullptr};
    }
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

  // Fast path for callers that already checked the inputs against input_info() (the compiled
  // callable of torch.compile, whose inputs Dynamo guards): C-contiguous buffers given by address,
  // shapes and dtypes taken from the program itself.
  nb::list run_ptrs(const std::vector<std::uintptr_t>& ptrs) const {
    std::vector<gbx_tensor> tensors = declared_at(ptrs);
    return wrap(run_raw(tensors.data(), tensors.size()));
  }

  // The same inputs, each with a version (0: unknown; see gbx_run_into), and the outputs written
  // into caller memory given by address (of each output's declared dtype and shape).
  void run_ptrs_into(const std::vector<std::uintptr_t>& ptrs,
                     const std::vector<std::uint64_t>& versions,
                     const std::vector<std::uintptr_t>& outputs) const {
    std::vector<gbx_tensor> tensors = declared_at(ptrs);
    if (versions.size() != ptrs.size()) {
      throw InputError("expected a version per input, got " + std::to_string(versions.size()));
    }
    std::vector<void*> outs(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) outs[i] = reinterpret_cast<void*>(outputs[i]);
    int status;
    {
      nb::gil_scoped_release release;
      status = gbx_run_into(program_.get(), tensors.data(), versions.data(), tensors.size(),
                            outs.data(), outs.size());
    }
    if (status != 0) throw InputError(gbx_last_error());
  }

 private:
  // The declared inputs, at the given addresses.
  std::vector<gbx_tensor> declared_at(const std::vector<std::uintptr_t>& ptrs) const {
    if (ptrs.size() != in_specs_.size()) {
      throw InputError("expected " + std::to_string(in_specs_.size()) + " inputs, got " +
                       std::to_string(ptrs.size()));
    }
    std::vector<gbx_tensor> tensors(in_specs_);
    for (std::size_t i = 0; i < ptrs.size(); ++i) {
      tensors[i].data = reinterpret_cast<void*>(ptrs[i]);
      tensors[i].shape = in_shapes_[i].data();  // set here: stays right if the object is copied
    }
    return tensors;
  }

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
  std::vector<std::vector<std::int64_t>> in_shapes_;
  std::vector<gbx_tensor> in_specs_;
};

using ValueTuple = std::tuple<int, std::vector<std::int64_t>, int, std::int64_t>;
using InstrTuple = std::tuple<std::string, std::vector<std::int32_t>, std::vector<std::int32_t>,
                              std::vector<std::int64_t>, std::vector<double>>;

nb::bytes serialize(const std::vector<ValueTuple>& values, const std::vector<std::int32_t>& inputs,
                    const std::vector<std::int32_t>& outputs,
                    const std::vector<InstrTuple>& instructions,
                    const std::vector<nb::bytes>& constants, std::uint64_t arena_size) {
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
  for (const auto& [op, ins, outs, ints, floats] : instructions) {
    spec.instructions.push_back(rt::InstrDesc{op, ins, outs, ints, floats});
  }
  for (const nb::bytes& c : constants) spec.constants.emplace_back(c.c_str(), c.size());
  spec.arena_size = arena_size;
  std::string bytes = rt::serialize_program(spec);
  return nb::bytes(bytes.data(), bytes.size());
}

}  // namespace

void bind_runtime(nb::module_& m) {
  nb::exception<ArtifactError>(m, "ArtifactError", PyExc_ValueError);
  nb::exception<InputError>(m, "RunError", PyExc_ValueError);
  nb::class_<RuntimeProgram>(m, "RuntimeProgram",
                             "A verified glassbox program (.gbx), ready to run.")
      .def_static("from_file", &RuntimeProgram::from_file, nb::arg("path"))
      .def_static("from_bytes", &RuntimeProgram::from_bytes, nb::arg("data"))
      .def_prop_ro("num_inputs", &RuntimeProgram::num_inputs)
      .def_prop_ro("num_outputs", &RuntimeProgram::num_outputs)
      .def("input_info", &RuntimeProgram::input_info, "(dtype code, shape) of each input")
      .def("output_info", &RuntimeProgram::output_info, "(dtype code, shape) of each output")
      .def("run", &RuntimeProgram::run, nb::arg("inputs"),
           "Run on arrays (NumPy or DLPack, any strides); returns NumPy arrays.")
      .def("run_ptrs", &RuntimeProgram::run_ptrs, nb::arg("ptrs"),
           "Run on C-contiguous buffers given by address, already checked against input_info(); "
           "returns NumPy arrays.")
      .def("run_ptrs_into", &RuntimeProgram::run_ptrs_into, nb::arg("ptrs"), nb::arg("versions"),
           nb::arg("outputs"),
           "As run_ptrs, each input with a version (nonzero: the same address with the same "
           "version holds the same values, so packed weights are reused; 0: unknown), writing "
           "each output into caller memory of its declared dtype and shape, given by address.");
  m.def("serialize_program", &serialize, nb::arg("values"), nb::arg("inputs"), nb::arg("outputs"),
        nb::arg("instructions"), nb::arg("constants"), nb::arg("arena_size"),
        "Build the bytes of a .gbx artifact from a lowered program.");
}
