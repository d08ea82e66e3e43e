#include "bindings/signature.hpp"

#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

namespace glassbox::bindings {

namespace {

// Mirrors CPython's own flag values (Include/cpython/code.h).
constexpr int kVarargs = 0x04;
constexpr int kVarkeywords = 0x08;
constexpr int kMaxReadBackDepth = 20;  // _reads_back's

// `function.__annotations__` is unset or an empty dict (the tuple MAKE_FUNCTION may leave there
// is taken as annotations).
bool without_annotations(PyObject* function) {
  PyObject* annotations = PyFunction_GET_ANNOTATIONS(function);
  return annotations == nullptr ||
         (PyDict_CheckExact(annotations) && PyDict_GET_SIZE(annotations) == 0);
}

// `function.__defaults__ or function.__kwdefaults__` is true.
bool has_defaults(PyObject* function) {
  PyObject* defaults = PyFunction_GET_DEFAULTS(function);
  PyObject* kwdefaults = PyFunction_GET_KW_DEFAULTS(function);
  return (defaults != nullptr && PyTuple_GET_SIZE(defaults) > 0) ||
         (kwdefaults != nullptr && PyDict_GET_SIZE(kwdefaults) > 0);
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

// Every co_freevars name is an ASCII identifier.
bool plain_free_variables(PyCodeObject* code) {
  if (PyCode_GetNumFree(code) == 0) return true;
  PyObject* names = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_freevars");
  if (names == nullptr) {
    PyErr_Clear();
    return false;
  }
  bool plain = PyTuple_Check(names);
  for (Py_ssize_t i = 0; plain && i < PyTuple_GET_SIZE(names); ++i) {
    plain = ascii_identifier(PyTuple_GET_ITEM(names, i));
  }
  Py_DECREF(names);
  return plain;
}

bool utf8(PyObject* text, std::string& out) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &size) : nullptr;
  if (data == nullptr) {
    PyErr_Clear();
    return false;
  }
  out.assign(data, static_cast<std::size_t>(size));
  return true;
}

// _reads_back, for scalars and tuples and lists of them (false for sets and dicts: the Python
// side decides those).
bool reads_back(PyObject* value, int depth) {
  if (value == Py_None || PyBool_Check(value) || PyLong_CheckExact(value) ||
      PyUnicode_CheckExact(value) || PyBytes_CheckExact(value)) {
    return true;
  }
  if (PyFloat_CheckExact(value)) return std::isfinite(PyFloat_AS_DOUBLE(value));
  if (depth >= kMaxReadBackDepth || !(PyTuple_CheckExact(value) || PyList_CheckExact(value))) {
    return false;
  }
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(value); ++i) {
    if (!reads_back(PySequence_Fast_GET_ITEM(value, i), depth + 1)) return false;
  }
  return true;
}

// _literal's text for a value that reads back: its repr.
bool literal(PyObject* value, std::string& out) {
  if (!reads_back(value, 0)) return false;
  PyObject* text = PyObject_Repr(value);
  if (text == nullptr) {  // an int with more digits than str() allows
    PyErr_Clear();
    return false;
  }
  const bool read = utf8(text, out);
  Py_DECREF(text);
  return read;
}

// _join_parameters: `texts` holds the positional, keyword-only, *args and **kwargs parameters'.
std::string join_parameters(PyCodeObject* code, const std::vector<std::string>& texts) {
  const int positional = code->co_argcount;
  const int posonly = code->co_posonlyargcount;
  const int kwonly = code->co_kwonlyargcount;
  std::string out;
  bool first = true;
  auto add = [&](std::string_view prefix, std::string_view text) {
    if (!first) out += ", ";
    first = false;
    out.append(prefix).append(text);
  };
  for (int k = 0; k < positional; ++k) {
    if (k == posonly && posonly > 0) add("/", "");
    add("", texts[static_cast<std::size_t>(k)]);
  }
  if (posonly > 0 && posonly >= positional) add("/", "");  // list.insert past the end appends
  std::size_t next = static_cast<std::size_t>(positional + kwonly);
  if ((code->co_flags & kVarargs) != 0) {
    add("*", texts[next++]);
  } else if (kwonly > 0) {
    add("*", "");
  }
  for (int k = 0; k < kwonly; ++k) add("", texts[static_cast<std::size_t>(positional + k)]);
  if ((code->co_flags & kVarkeywords) != 0) add("**", texts[next]);
  return out;
}

// The parameter list as the decompiler writes it (`bare`) and with the literal defaults
// (`params`, as _signature_parts writes it without annotations), from co_varnames; false where a
// name or default cannot be read or a default is not a literal.
bool parameter_lists(PyObject* function, PyCodeObject* code, PyObject* varnames, std::string& bare,
                     std::string& params) {
  const int positional = code->co_argcount;
  const int kwonly = code->co_kwonlyargcount;
  const Py_ssize_t count = positional + kwonly + ((code->co_flags & kVarargs) != 0) +
                           ((code->co_flags & kVarkeywords) != 0);
  PyObject* defaults = PyFunction_GET_DEFAULTS(function);
  PyObject* kwdefaults = PyFunction_GET_KW_DEFAULTS(function);
  const Py_ssize_t first_default = positional - (defaults ? PyTuple_GET_SIZE(defaults) : 0);
  if (!PyTuple_Check(varnames) || PyTuple_GET_SIZE(varnames) < count || first_default < 0 ||
      (kwdefaults != nullptr && !PyDict_CheckExact(kwdefaults))) {
    return false;
  }
  std::vector<std::string> names(static_cast<std::size_t>(count));
  std::vector<std::string> texts(names.size());
  std::string text;
  for (Py_ssize_t k = 0; k < count; ++k) {
    auto at = static_cast<std::size_t>(k);
    if (!utf8(PyTuple_GET_ITEM(varnames, k), names[at])) return false;
    texts[at] = names[at];
    PyObject* value = nullptr;
    if (k >= first_default && k < positional) {
      value = PyTuple_GET_ITEM(defaults, k - first_default);
    } else if (k >= positional && k < positional + kwonly && kwdefaults != nullptr) {
      value = PyDict_GetItemWithError(kwdefaults, PyTuple_GET_ITEM(varnames, k));
      if (value == nullptr && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
    }
    if (value != nullptr && !literal(value, text)) return false;
    if (value != nullptr) texts[at] += "=" + text;
  }
  bare = join_parameters(code, names);
  params = join_parameters(code, texts);
  return true;
}

struct DefLine {
  std::size_t start = 0;
  std::size_t end = 0;
  std::string opening;  // "{indent}{async }def NAME("
};

// _def_line: the first line `{indent}{async }def NAME(...):` (or `...) -> ...:`) of `source`.
std::optional<DefLine> def_line(const std::string& source, const std::string& name) {
  const std::string needle = "def " + name + "(";
  for (std::size_t at = source.find(needle); at != std::string::npos;
       at = source.find(needle, at + 1)) {
    const std::size_t newline = at == 0 ? std::string::npos : source.rfind('\n', at - 1);
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    std::string_view indent(source.data() + start, at - start);
    const bool is_async = indent.size() >= 6 && indent.substr(indent.size() - 6) == "async ";
    if (is_async) indent.remove_suffix(6);
    if (indent.find_first_not_of(" \t") != std::string_view::npos) continue;
    std::size_t end = source.find('\n', at + needle.size());
    end = end == std::string::npos ? source.size() : end;
    std::string_view rest(source.data() + at + needle.size(), end - at - needle.size());
    const bool arrow = rest.size() >= 1 && rest.back() == ':' &&
                       rest.substr(0, rest.size() - 1).find(") -> ") != std::string_view::npos;
    if ((rest.size() >= 2 && rest.substr(rest.size() - 2) == "):") || arrow) {
      return DefLine{start, end, source.substr(start, at - start) + needle};
    }
  }
  return std::nullopt;
}

// The signature step on `source`, given the function's name (an ASCII identifier, its free
// variables too), its parameter lists and whether it has defaults.
bool write_signature(std::string& source, const std::string& name, const std::string& bare,
                     const std::string& params, bool defaults) {
  if (!defaults) {  // _with_bare_signature's first test: the source begins with its header
    const std::string header = "def " + name + "(" + bare + "):";
    if (source.size() > header.size() && source.compare(0, header.size(), header) == 0 &&
        source[header.size()] == '\n' && header.find('\n') == std::string::npos) {
      return true;
    }
  }
  std::optional<DefLine> found = def_line(source, name);
  if (!found) return true;  // both steps return the source as it is
  const std::size_t length = found->end - found->start;
  if (source.compare(found->start, length, found->opening + bare + "):") != 0) return false;
  if (defaults) source.replace(found->start, length, found->opening + params + "):");
  return true;
}

// A new reference to a tuple whose first entries are co_varnames' (the parameters come first),
// or null with an error set. 3.11+: co_localsplusnames itself where its first entries are all
// plain locals, as the compiler lays them out (the parameters, then the other locals, then the
// cells and free variables); `co_varnames` builds a fresh tuple on each read.
PyObject* parameter_names(PyCodeObject* code) {
#if PY_VERSION_HEX >= 0x030B0000
  constexpr unsigned char kFastLocal = 0x20;  // CO_FAST_LOCAL (Include/internal/pycore_code.h)
  const Py_ssize_t count = code->co_argcount + code->co_kwonlyargcount +
                           ((code->co_flags & kVarargs) != 0) +
                           ((code->co_flags & kVarkeywords) != 0);
  PyObject* names = code->co_localsplusnames;
  PyObject* kinds = code->co_localspluskinds;
  bool leading_locals = PyTuple_Check(names) && PyBytes_Check(kinds) &&
                        PyTuple_GET_SIZE(names) >= count && PyBytes_GET_SIZE(kinds) >= count;
  for (Py_ssize_t k = 0; leading_locals && k < count; ++k) {
    leading_locals = (static_cast<unsigned char>(PyBytes_AS_STRING(kinds)[k]) & kFastLocal) != 0;
  }
  if (leading_locals) {
    Py_INCREF(names);
    return names;
  }
#endif
  return PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_varnames");
}

}  // namespace

bool write_final_signature(PyObject* function, std::string& source) {
  if (!PyFunction_Check(function) || !without_annotations(function)) return false;
  auto* code = reinterpret_cast<PyCodeObject*>(PyFunction_GET_CODE(function));
  std::string name;
  if (!ascii_identifier(code->co_name) || !plain_free_variables(code) ||
      !utf8(code->co_name, name)) {
    return false;
  }
  PyObject* varnames = parameter_names(code);
  if (varnames == nullptr) {
    PyErr_Clear();
    return false;
  }
  std::string bare;
  std::string params;
  const bool read = parameter_lists(function, code, varnames, bare, params);
  Py_DECREF(varnames);
  return read && write_signature(source, name, bare, params, has_defaults(function));
}

}  // namespace glassbox::bindings
