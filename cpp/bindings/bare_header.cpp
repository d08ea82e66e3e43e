#include "bindings/bare_header.hpp"

namespace glassbox::bindings {

namespace {

// Mirrors CPython's own flag values (Include/cpython/code.h).
constexpr int kVarargs = 0x04;
constexpr int kVarkeywords = 0x08;

// `function.__defaults__ or function.__kwdefaults__ or function.__annotations__` is false: each
// unset or empty. (Annotations may still be the tuple MAKE_FUNCTION left: unsure, so false.)
bool without_defaults_or_annotations(PyObject* function) {
  PyObject* defaults = PyFunction_GET_DEFAULTS(function);
  PyObject* kwdefaults = PyFunction_GET_KW_DEFAULTS(function);
  PyObject* annotations = PyFunction_GET_ANNOTATIONS(function);
  return (defaults == nullptr || (PyTuple_Check(defaults) && PyTuple_GET_SIZE(defaults) == 0)) &&
         (kwdefaults == nullptr ||
          (PyDict_Check(kwdefaults) && PyDict_GET_SIZE(kwdefaults) == 0)) &&
         (annotations == nullptr ||
          (PyDict_Check(annotations) && PyDict_GET_SIZE(annotations) == 0));
}

// An ASCII identifier (str.isidentifier() holds for it).
bool ascii_identifier(PyObject* text) {
  if (!PyUnicode_Check(text) || !PyUnicode_IS_ASCII(text)) return false;
  const auto* chars = static_cast<const unsigned char*>(PyUnicode_DATA(text));
  const Py_ssize_t size = PyUnicode_GET_LENGTH(text);
  for (Py_ssize_t i = 0; i < size; ++i) {
    const unsigned char c = chars[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return size > 0;
}

bool append_utf8(PyObject* text, std::string& out) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &size) : nullptr;
  if (data == nullptr) {
    PyErr_Clear();
    return false;
  }
  out.append(data, static_cast<std::size_t>(size));
  return true;
}

// "def NAME(P1, P2, ...):" from the code's first co_argcount co_varnames, as
// _with_bare_signature writes it; false where a name cannot be read.
bool bare_header(PyCodeObject* code, std::string& header) {
  PyObject* varnames = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_varnames");
  if (varnames == nullptr) {
    PyErr_Clear();
    return false;
  }
  bool ok = PyTuple_Check(varnames) && PyTuple_GET_SIZE(varnames) >= code->co_argcount;
  header = "def ";
  ok = ok && append_utf8(code->co_name, header);
  header += '(';
  for (int i = 0; ok && i < code->co_argcount; ++i) {
    if (i > 0) header += ", ";
    ok = append_utf8(PyTuple_GET_ITEM(varnames, i), header);
  }
  header += "):";
  Py_DECREF(varnames);
  return ok;
}

}  // namespace

bool bare_header_as_written(PyObject* function, const std::string& source) {
  if (!PyFunction_Check(function) || !without_defaults_or_annotations(function)) return false;
  auto* code = reinterpret_cast<PyCodeObject*>(PyFunction_GET_CODE(function));
  if (code->co_posonlyargcount != 0 || code->co_kwonlyargcount != 0 ||
      (code->co_flags & (kVarargs | kVarkeywords)) != 0 || PyCode_GetNumFree(code) != 0 ||
      !ascii_identifier(code->co_name)) {
    return false;
  }
  std::string header;
  if (!bare_header(code, header)) return false;
  // source.startswith(header) and source.find("\n", 0, len(header) + 1) == len(header).
  return source.size() > header.size() && source.compare(0, header.size(), header) == 0 &&
         source[header.size()] == '\n' && header.find('\n') == std::string::npos;
}

}  // namespace glassbox::bindings
