// Reads the fields marshal writes for a code object (3.11: argcount, posonlyargcount,
// kwonlyargcount, stacksize, flags, the deoptimized code, consts, names, localsplusnames and
// kinds, filename, name, qualname, firstlineno, linetable, exceptiontable) straight from the
// object, and builds what bytecode/marshal.cpp builds from their marshalled form.
#include "bindings/live_code.hpp"

#include <marshal.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bytecode/marshal.hpp"

namespace glassbox::bindings {

// Enabled where its output was compared with the marshal reader's over the standard library.
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define GLASSBOX_LIVE_CODE 1
#endif

#ifdef GLASSBOX_LIVE_CODE
namespace {

namespace bc = glassbox::bytecode;

// Well inside the marshal reader's bounds (kMaxMarshalDepth levels; at least 2**22 objects and
// bytes): code near them goes through marshal, which decides.
constexpr int kMaxDepth = 400;
constexpr std::uint64_t kMaxWeight = std::uint64_t{1} << 20;

bool marshalled_items(PyObject* set, std::vector<std::pair<std::string, PyObject*>>& out);

class LiveReader {
 public:
  std::shared_ptr<const bc::CodeObject> code(PyCodeObject* co, int depth);

 private:
  bc::ObjectRef value(PyObject* obj, int depth);
  bc::ObjectRef items(bc::ObjectKind kind, PyObject* obj, int depth);
  bool text(PyObject* obj, std::string& out);
  bool bytes(PyObject* obj, std::string& out);
  bool names(PyObject* tuple, std::vector<std::string>& out);

  std::uint64_t weight_ = 0;
  // Constant code objects by identity: marshal writes a code object met twice as a reference,
  // which the reader reads back as the same object (the decompiler compares code objects by
  // address).
  std::unordered_map<PyObject*, std::shared_ptr<const bc::CodeObject>> codes_;
};

bc::ObjectRef make(bc::ObjectKind kind) {
  auto object = std::make_shared<bc::Object>();
  object->kind = kind;
  return object;
}

bool LiveReader::text(PyObject* obj, std::string& out) {
  if (!PyUnicode_CheckExact(obj)) return false;
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(obj, &size);
  if (data == nullptr) {  // lone surrogates: marshal keeps them, UTF-8 cannot
    PyErr_Clear();
    return false;
  }
  out.assign(data, static_cast<std::size_t>(size));
  weight_ += static_cast<std::uint64_t>(size) + 1;
  return true;
}

bool LiveReader::bytes(PyObject* obj, std::string& out) {
  if (!PyBytes_CheckExact(obj)) return false;
  out.assign(PyBytes_AS_STRING(obj), static_cast<std::size_t>(PyBytes_GET_SIZE(obj)));
  weight_ += out.size() + 1;
  return true;
}

bool LiveReader::names(PyObject* tuple, std::vector<std::string>& out) {
  if (!PyTuple_CheckExact(tuple)) return false;
  const Py_ssize_t size = PyTuple_GET_SIZE(tuple);
  out.resize(static_cast<std::size_t>(size));
  for (Py_ssize_t i = 0; i < size; ++i) {
    if (!text(PyTuple_GET_ITEM(tuple, i), out[static_cast<std::size_t>(i)])) return false;
  }
  return true;
}

bc::ObjectRef LiveReader::items(bc::ObjectKind kind, PyObject* obj, int depth) {
  auto object = std::make_shared<bc::Object>();
  object->kind = kind;
  if (kind == bc::ObjectKind::Tuple) {
    const Py_ssize_t size = PyTuple_GET_SIZE(obj);
    object->items.reserve(static_cast<std::size_t>(size));
    for (Py_ssize_t i = 0; i < size; ++i) {
      bc::ObjectRef item = value(PyTuple_GET_ITEM(obj, i), depth + 1);
      if (!item) return nullptr;
      object->items.push_back(std::move(item));
    }
    return object;
  }
  // A frozenset in the order marshal writes it (bpo-37596): sorted by each item's marshal.dumps.
  std::vector<std::pair<std::string, PyObject*>> sorted;
  if (!marshalled_items(obj, sorted)) return nullptr;
  object->items.reserve(sorted.size());
  for (const auto& entry : sorted) {
    bc::ObjectRef read = value(entry.second, depth + 1);
    if (!read) return nullptr;
    object->items.push_back(std::move(read));
  }
  return object;
}

// The items of a set with their marshal.dumps, in the order of those bytes; false where one does
// not marshal or two marshal alike (marshal would then compare the items themselves).
bool marshalled_items(PyObject* set, std::vector<std::pair<std::string, PyObject*>>& out) {
  Py_ssize_t pos = 0;
  PyObject* item = nullptr;
  Py_hash_t hash = 0;
  while (_PySet_NextEntry(set, &pos, &item, &hash)) {
    PyObject* dump = PyMarshal_WriteObjectToString(item, Py_MARSHAL_VERSION);
    if (dump == nullptr) {
      PyErr_Clear();
      return false;
    }
    out.emplace_back(
        std::string(PyBytes_AS_STRING(dump), static_cast<std::size_t>(PyBytes_GET_SIZE(dump))),
        item);
    Py_DECREF(dump);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (out[i - 1].first == out[i].first) return false;
  }
  return true;
}

bc::ObjectRef LiveReader::value(PyObject* obj, int depth) {
  if (depth > kMaxDepth || ++weight_ > kMaxWeight) return nullptr;
  // One object per singleton, shared by every read: objects are immutable, and only code
  // objects are ever compared by address.
  static const bc::ObjectRef kNone = make(bc::ObjectKind::None);
  static const bc::ObjectRef kTrue = make(bc::ObjectKind::True);
  static const bc::ObjectRef kFalse = make(bc::ObjectKind::False);
  static const bc::ObjectRef kEllipsis = make(bc::ObjectKind::Ellipsis);
  if (obj == Py_None) return kNone;
  if (obj == Py_True) return kTrue;
  if (obj == Py_False) return kFalse;
  if (obj == Py_Ellipsis) return kEllipsis;
  auto object = std::make_shared<bc::Object>();
  if (PyLong_CheckExact(obj)) {
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow != 0 || (number == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return nullptr;
    }
    object->kind = bc::ObjectKind::Int;
    object->int_decimal = std::to_string(number);
  } else if (PyFloat_CheckExact(obj)) {
    object->kind = bc::ObjectKind::Float;
    object->real = PyFloat_AS_DOUBLE(obj);
  } else if (PyComplex_CheckExact(obj)) {
    object->kind = bc::ObjectKind::Complex;
    object->real = PyComplex_RealAsDouble(obj);
    object->imag = PyComplex_ImagAsDouble(obj);
  } else if (PyBytes_CheckExact(obj)) {
    object->kind = bc::ObjectKind::Bytes;
    bytes(obj, object->text);
  } else if (PyUnicode_CheckExact(obj)) {
    object->kind = bc::ObjectKind::Str;
    if (!text(obj, object->text)) return nullptr;
  } else if (PyTuple_CheckExact(obj)) {
    return items(bc::ObjectKind::Tuple, obj, depth);
  } else if (PyFrozenSet_CheckExact(obj)) {
    return items(bc::ObjectKind::FrozenSet, obj, depth);
  } else if (PyCode_Check(obj)) {
    object->kind = bc::ObjectKind::Code;
    auto known = codes_.find(obj);
    object->code =
        known != codes_.end() ? known->second : code(reinterpret_cast<PyCodeObject*>(obj), depth);
    if (!object->code) return nullptr;
    codes_.emplace(obj, object->code);
  } else {
    return nullptr;
  }
  return object;
}

std::shared_ptr<const bc::CodeObject> LiveReader::code(PyCodeObject* co, int depth) {
  auto code = std::make_shared<bc::CodeObject>();
  code->minor = PY_MINOR_VERSION;
  code->argcount = co->co_argcount;
  code->posonlyargcount = co->co_posonlyargcount;
  code->kwonlyargcount = co->co_kwonlyargcount;
  code->stacksize = co->co_stacksize;
  code->flags = co->co_flags;
  code->firstlineno = co->co_firstlineno;
  PyObject* raw = PyCode_GetCode(co);  // the deoptimized instructions, as marshal writes them
  if (raw == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  const bool read = bytes(raw, code->code);
  Py_DECREF(raw);
  std::string kinds;
  if (!read || !PyTuple_CheckExact(co->co_consts) || !names(co->co_names, code->names) ||
      !names(co->co_localsplusnames, code->localsplusnames) ||
      !bytes(co->co_localspluskinds, kinds) || kinds.size() != code->localsplusnames.size() ||
      !text(co->co_filename, code->filename) || !text(co->co_name, code->name) ||
      !text(co->co_qualname, code->qualname) || !bytes(co->co_linetable, code->linetable) ||
      !bytes(co->co_exceptiontable, code->exceptiontable)) {
    return nullptr;
  }
  const Py_ssize_t count = PyTuple_GET_SIZE(co->co_consts);
  code->consts.reserve(static_cast<std::size_t>(count));
  for (Py_ssize_t i = 0; i < count; ++i) {
    bc::ObjectRef item = value(PyTuple_GET_ITEM(co->co_consts, i), depth + 2);
    if (!item) return nullptr;
    code->consts.push_back(std::move(item));
  }
  code->localspluskinds.assign(kinds.begin(), kinds.end());
  bc::derive_local_views(*code);
  try {
    bc::validate_code(*code, 0);
  } catch (const bc::BytecodeError&) {
    return nullptr;  // marshal's reader raises it
  }
  return code;
}

}  // namespace

std::shared_ptr<const bytecode::CodeObject> read_live_code(PyObject* code) {
  if (!PyCode_Check(code)) return nullptr;
  return LiveReader().code(reinterpret_cast<PyCodeObject*>(code), 1);
}

#else

std::shared_ptr<const bytecode::CodeObject> read_live_code(PyObject*) { return nullptr; }

#endif

}  // namespace glassbox::bindings
