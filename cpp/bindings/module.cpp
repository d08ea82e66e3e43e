// glassbox._core: thin nanobind bindings over the C++ core. The logic lives in plain C++.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <exception>
#include <string>
#include <string_view>

#include "bytecode/disassembler.hpp"
#include "bytecode/marshal.hpp"

namespace nb = nanobind;
namespace bc = glassbox::bytecode;

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

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "glassbox native core";
  // BytecodeError surfaces as glassbox.errors.BytecodeError(reason, offset).
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const bc::BytecodeError& e) {
      nb::object cls = nb::module_::import_("glassbox.errors").attr("BytecodeError");
      nb::object offset = e.offset() == bc::BytecodeError::npos ? nb::none() : nb::int_(e.offset());
      PyErr_SetObject(cls.ptr(), nb::make_tuple(e.reason(), offset).ptr());
    }
  });

  m.def("disassemble_marshal", &disassemble_marshal, nb::arg("data"), nb::arg("minor"),
        "dis.dis-equivalent listing of marshal.dumps(code) bytes for CPython 3.<minor>.");
  m.def("disassemble_pyc", &disassemble_pyc, nb::arg("data"), nb::arg("minor") = nb::none(),
        "dis.dis-equivalent listing of a whole .pyc file; the version comes from its magic number.");
  m.def("pyc_minor", [](const nb::bytes& data) {
    auto minor = data.size() >= 2
                     ? bc::minor_from_magic(static_cast<std::uint16_t>(
                           static_cast<unsigned char>(as_view(data)[0]) |
                           (static_cast<unsigned char>(as_view(data)[1]) << 8)))
                     : std::nullopt;
    if (!minor) throw bc::BytecodeError("unknown or missing .pyc magic number", 0);
    return *minor;
  });
}
