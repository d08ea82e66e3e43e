// glassbox._core: thin nanobind bindings over the C++ core. The logic lives in plain C++.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "bindings/live_code.hpp"
#include "bindings/signature.hpp"
#include "bytecode/disassembler.hpp"
#include "bytecode/marshal.hpp"
#include "decompiler/decompiler.hpp"

namespace nb = nanobind;
namespace bc = glassbox::bytecode;
namespace dc = glassbox::decompiler;

void bind_runtime(nb::module_& m);

namespace {

std::string_view as_view(const nb::bytes& data) {
  return std::string_view(static_cast<const char*>(data.data()), data.size());
}

std::string disassemble_marshal(const nb::bytes& data, int minor) {
  bc::ObjectRef obj = bc::read_marshal(as_view(data), minor);
  if (obj->kind != bc::ObjectKind::Code) {
    throw bc::BytecodeError("marshalled object is not a code object", 0);
  }
  return bc::disassemble(*obj->code);
}

std::string disassemble_pyc(const nb::bytes& data, std::optional<int> minor) {
  return bc::disassemble(*bc::read_pyc(as_view(data), minor).code);
}

// (source, [(code_name, first_line, reason), ...]): what Python receives from a DecompileResult.
using FallbackTuple = std::tuple<std::string, int, std::string>;
using DecompiledPair = std::pair<std::string, std::vector<FallbackTuple>>;

DecompiledPair to_pair(dc::DecompileResult result) {
  std::vector<FallbackTuple> fallbacks;
  for (dc::Fallback& fallback : result.fallbacks) {
    fallbacks.emplace_back(std::move(fallback.code_name), fallback.first_line,
                           std::move(fallback.reason));
  }
  return {std::move(result.source), std::move(fallbacks)};
}

DecompiledPair decompile_marshal(const nb::bytes& data, int minor, bool as_function,
                                 bool readable) {
  bc::ObjectRef obj = bc::read_marshal(as_view(data), minor);
  if (obj->kind != bc::ObjectKind::Code) {
    throw bc::BytecodeError("marshalled object is not a code object", 0);
  }
  dc::Output output = readable ? dc::Output::Readable : dc::Output::Exact;
  return to_pair(as_function ? dc::decompile_function(*obj->code, output)
                             : dc::decompile_module(*obj->code, output));
}

// decompile_marshal(marshal.dumps(code), running minor, code is a function's (CO_NEWLOCALS),
// readable) without the marshal round trip: None where read_live_code declines.
constexpr int kCoNewLocals = 0x2;

nb::object decompile_code(nb::handle code, bool readable) {
  std::shared_ptr<const bc::CodeObject> model = glassbox::bindings::read_live_code(code.ptr());
  if (!model) return nb::none();
  dc::Output output = readable ? dc::Output::Readable : dc::Output::Exact;
  return nb::cast(to_pair((model->flags & kCoNewLocals) != 0
                              ? dc::decompile_function(*model, output)
                              : dc::decompile_module(*model, output)));
}

// decompile_code(function.__code__) for a function object, with a third item: whether the source
// is final (no fallbacks, and glassbox.decompiler's signature step made here: the source is then
// what that step returns, see write_final_signature). None where read_live_code declines.
nb::object decompile_function(nb::handle function) {
  if (!PyFunction_Check(function.ptr())) return nb::none();
  PyObject* code = PyFunction_GET_CODE(function.ptr());
  std::shared_ptr<const bc::CodeObject> model = glassbox::bindings::read_live_code(code);
  if (!model) return nb::none();
  dc::DecompileResult result = (model->flags & kCoNewLocals) != 0 ? dc::decompile_function(*model)
                                                                  : dc::decompile_module(*model);
  const bool final = result.fallbacks.empty() &&
                     glassbox::bindings::write_final_signature(function.ptr(), result.source);
  auto [source, fallbacks] = to_pair(std::move(result));
  return nb::make_tuple(source, fallbacks, final);
}

// glassbox.decompile(function)'s common call in one crossing: for a plain function (exactly a
// function, with no attribute of its own, so neither `__wrapped__` nor `__func__`), its final
// source as a str where decompile_function finds it final, else what decompile_function returns
// (its tuple, or None where the live reader declines). False for any other object: the caller
// then takes its general path.
nb::object decompile_plain_function(nb::handle function) {
  PyObject* object = function.ptr();
  if (!PyFunction_Check(object)) return nb::bool_(false);
  PyObject* attributes = reinterpret_cast<PyFunctionObject*>(object)->func_dict;
  if (attributes != nullptr && (!PyDict_Check(attributes) || PyDict_GET_SIZE(attributes) > 0)) {
    return nb::bool_(false);
  }
  PyObject* code = PyFunction_GET_CODE(object);
  std::shared_ptr<const bc::CodeObject> model = glassbox::bindings::read_live_code(code);
  if (!model) return nb::none();
  dc::DecompileResult result = (model->flags & kCoNewLocals) != 0 ? dc::decompile_function(*model)
                                                                  : dc::decompile_module(*model);
  if (result.fallbacks.empty() && glassbox::bindings::write_final_signature(object, result.source))
    return nb::str(result.source.data(), result.source.size());
  auto [source, fallbacks] = to_pair(std::move(result));
  return nb::make_tuple(source, fallbacks, false);
}

DecompiledPair decompile_pyc(const nb::bytes& data, std::optional<int> minor) {
  return to_pair(dc::decompile_module(*bc::read_pyc(as_view(data), minor).code));
}

// In-process timing of the decompiler, for bench/bench_decompile.py. `data` is marshal.dumps of a
// code object or of a tuple of code objects; each is decompiled as a function `repeat` times and
// its median wall time is returned. Only decompile_function is inside the clock: reading the
// marshal bytes (once, before timing) and converting the result to Python are not.
using Timing = std::pair<std::string, double>;

double median_seconds_to_decompile(const bc::CodeObject& code, int repeat) {
  std::vector<double> seconds;
  for (int k = 0; k < std::max(repeat, 1); ++k) {
    const auto start = std::chrono::steady_clock::now();
    dc::DecompileResult result = dc::decompile_function(code);
    const auto stop = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

std::vector<Timing> decompile_timings(const nb::bytes& data, int minor, int repeat) {
  bc::ObjectRef obj = bc::read_marshal(as_view(data), minor);
  std::vector<bc::ObjectRef> codes =
      obj->kind == bc::ObjectKind::Tuple ? obj->items : std::vector<bc::ObjectRef>{obj};
  std::vector<Timing> timings;
  for (const bc::ObjectRef& item : codes) {
    if (!item || item->kind != bc::ObjectKind::Code) {
      throw bc::BytecodeError("marshalled object is not a code object or a tuple of them", 0);
    }
    timings.emplace_back(item->code->qualname, median_seconds_to_decompile(*item->code, repeat));
  }
  return timings;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "glassbox native core";
  // Compiled programs stay reachable from torch at exit (Dynamo keeps each compiled graph in the
  // user module's globals and in the cache on the code object, which the interpreter does not
  // free at shutdown), so nanobind's leak report would name our objects in every script that
  // compiled under no_grad. It is about objects left to the OS at exit, not a leak while running.
  nb::set_leak_warnings(false);
  bind_runtime(m);
  // BytecodeError surfaces as glassbox.errors.BytecodeError(reason, offset).
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const bc::BytecodeError& e) {
      nb::object cls = nb::module_::import_("glassbox.errors").attr("BytecodeError");
      nb::object offset = nb::none();
      if (e.offset() != bc::BytecodeError::npos) offset = nb::int_(e.offset());
      PyErr_SetObject(cls.ptr(), nb::make_tuple(e.reason(), offset).ptr());
    }
  });

  m.def("disassemble_marshal", &disassemble_marshal, nb::arg("data"), nb::arg("minor"),
        "dis.dis-equivalent listing of marshal.dumps(code) bytes for CPython 3.<minor>.");
  m.def(
      "disassemble_pyc", &disassemble_pyc, nb::arg("data"), nb::arg("minor") = nb::none(),
      "dis.dis-equivalent listing of a whole .pyc file; the version comes from its magic number.");
  m.def("decompile_marshal", &decompile_marshal, nb::arg("data"), nb::arg("minor"),
        nb::arg("as_function"), nb::arg("readable") = false,
        "Source of marshal.dumps(code) bytes for CPython 3.<minor>: a module, or a `def` when "
        "as_function; readable: without the scaffolding whose only purpose is byte equality. "
        "Returns (source, [(code_name, first_line, reason), ...fallbacks]).");
  m.def("decompile_code", &decompile_code, nb::arg("code"), nb::arg("readable") = false,
        "decompile_marshal(marshal.dumps(code), ...) for a code object of the running "
        "interpreter, read from its fields; None where that reader declines (then marshal).");
  m.def("decompile_function", &decompile_function, nb::arg("function"),
        "decompile_code(function.__code__) for a function object, as (source, fallbacks, final): "
        "final where the source is what decompile(function) returns (no fallbacks; the header "
        "with the function's literal defaults, no annotations). None where that reader "
        "declines.");
  m.def("decompile_plain_function", &decompile_plain_function, nb::arg("function"),
        "decompile(function)'s common call: for a function with no attributes of its own, its "
        "final source as a str where decompile_function finds it final, else what "
        "decompile_function returns; False for any other object.");
  m.def("decompile_pyc", &decompile_pyc, nb::arg("data"), nb::arg("minor") = nb::none(),
        "Source of a whole .pyc file's module; the version comes from its magic number. "
        "Returns (source, [(code_name, first_line, reason), ...fallbacks]).");
  m.def("decompile_timings", &decompile_timings, nb::arg("data"), nb::arg("minor"),
        nb::arg("repeat") = 5,
        "Benchmark aid: marshal.dumps of a code object or a tuple of them for CPython 3.<minor>; "
        "decompiles each as a function `repeat` times, timed in C++ around decompile_function "
        "only. Returns [(qualname, median seconds), ...] in input order.");
  m.def("pyc_minor", [](const nb::bytes& data) {
    auto minor = data.size() >= 2 ? bc::minor_from_magic(static_cast<std::uint16_t>(
                                        static_cast<unsigned char>(as_view(data)[0]) |
                                        (static_cast<unsigned char>(as_view(data)[1]) << 8)))
                                  : std::nullopt;
    if (!minor) throw bc::BytecodeError("unknown or missing .pyc magic number", 0);
    return *minor;
  });
}
