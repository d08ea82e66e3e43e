#include "bindings/tensor_call.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <new>
#include <string>

#include "bindings/errors.hpp"

namespace glassbox::bindings {
namespace {

// A small array on the stack, on the heap past N items (a call's per-input scratch: several
// threads may be in one TensorCall at once, so nothing per call is kept in the object).
template <typename T, std::size_t N = 16>
class Scratch {
 public:
  explicit Scratch(std::size_t n)
      : data_(n <= N ? stack_.data() : (heap_.resize(n), heap_.data())) {}
  T& operator[](std::size_t i) { return data_[i]; }
  T* data() { return data_; }

 private:
  std::array<T, N> stack_{};
  std::vector<T> heap_;
  T* data_;
};

PyObject* interned(const char* name) {
  PyObject* s = PyUnicode_InternFromString(name);
  if (!s) throw nb::python_error();
  return s;  // kept for the life of the process
}

void* data_ptr(PyObject* tensor) {
  static PyObject* name = interned("data_ptr");
  nb::object p = nb::steal(PyObject_CallMethodNoArgs(tensor, name));
  if (!p.is_valid()) throw nb::python_error();
  void* address = PyLong_AsVoidPtr(p.ptr());
  if (!address && PyErr_Occurred()) throw nb::python_error();
  return address;
}

// The object a weak reference points to, or null (borrowed: compared, never used).
PyObject* referent(PyObject* ref) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* obj = nullptr;
  if (PyWeakref_GetRef(ref, &obj) < 0) PyErr_Clear();
  Py_XDECREF(obj);  // only its identity is compared, while the caller holds the candidate
  return obj;
#else
  PyObject* obj = PyWeakref_GetObject(ref);
  if (!obj) PyErr_Clear();
  return obj == Py_None ? nullptr : obj;
#endif
}

// Process-wide: a version handed out once is never handed out again, whatever the program.
std::atomic<std::uint64_t> next_version{1};

}  // namespace

TensorCall::TensorCall(std::shared_ptr<gbx_program> program, Spec spec)
    : program_(std::move(program)), spec_(std::move(spec)) {
  std::size_t n_in = gbx_num_inputs(program_.get()), n_out = gbx_num_outputs(program_.get());
  if (spec_.arg_positions.size() != n_in) {
    throw InputError("expected an argument position per program input (" + std::to_string(n_in) +
                     "), got " + std::to_string(spec_.arg_positions.size()));
  }
  if (spec_.allocate_args.size() != n_out) {
    throw InputError("expected allocation arguments per program output (" + std::to_string(n_out) +
                     "), got " + std::to_string(spec_.allocate_args.size()));
  }
  for (int p : spec_.arg_positions) {
    if (p < 0) throw InputError("negative argument position");
  }
  for (const auto& [kind, index] : spec_.result_plan) {
    bool ok = (kind == static_cast<int>(ResultKind::Output) && index >= 0 &&
               static_cast<std::size_t>(index) < n_out) ||
              (kind == static_cast<int>(ResultKind::Argument) && index >= 0) ||
              kind == static_cast<int>(ResultKind::None);
    if (!ok) throw InputError("bad result plan entry");
  }
  weight_slot_.assign(n_in, -1);
  for (int w : spec_.weights) {
    if (w < 0 || static_cast<std::size_t>(w) >= n_in) throw InputError("bad weight position");
    weight_slot_[static_cast<std::size_t>(w)] = static_cast<int>(seen_.size());
    seen_.emplace_back();
  }
  for (int d : spec_.dynamic_inputs) {
    if (d < 0 || static_cast<std::size_t>(d) >= n_in) throw InputError("bad dynamic input");
  }
  for (std::size_t i = 0; i < gbx_num_symbols(program_.get()); ++i) {
    std::int32_t input = 0, dim = 0;
    std::int64_t lo = 0, hi = 0;
    gbx_symbol_info(program_.get(), i, &input, &dim, &lo, &hi);
    symbols_.emplace_back(input, dim);
  }
  if (!symbols_.empty()) {
    for (const nb::tuple& a : spec_.allocate_args) {
      if (a.size() != 3) throw InputError("expected (shape, strides, dtype) allocation arguments");
    }
  }
  guard = nb::none();
}

TensorCall::~TensorCall() {
  for (Seen& s : seen_) Py_XDECREF(s.ref);
}

// The version the runtime gets for a weight (see gbx_run_into): kept while it is the same tensor
// object (a weak reference, so a new tensor at a freed one's address is never taken for it) at
// the same autograd version counter (bumped by every in-place write through the tensor or its
// views, under no_grad too); otherwise a fresh number. Inference tensors have no counter:
// version 0, never reused.
std::uint64_t TensorCall::weight_version(Seen& seen, PyObject* tensor) {
  static PyObject* name = interned("_version");
  nb::object v = nb::steal(PyObject_GetAttr(tensor, name));
  if (!v.is_valid()) {
    if (!PyErr_ExceptionMatches(PyExc_RuntimeError)) throw nb::python_error();
    PyErr_Clear();  // an inference tensor
    Py_CLEAR(seen.ref);
    return 0;
  }
  unsigned long long counter = PyLong_AsUnsignedLongLong(v.ptr());
  if (PyErr_Occurred()) throw nb::python_error();
  if (seen.ref && seen.counter == counter && referent(seen.ref) == tensor) return seen.version;
  Py_CLEAR(seen.ref);
  seen.ref = PyWeakref_NewRef(tensor, nullptr);
  if (!seen.ref) {  // not weakly referenceable: never reused
    PyErr_Clear();
    return 0;
  }
  seen.counter = counter;
  seen.version = next_version.fetch_add(1);
  return seen.version;
}

void TensorCall::clear() {
  spec_.allocate_args.clear();
  spec_.allocate.reset();
  spec_.fallback.reset();
}

namespace {

// The sizes of a torch tensor (its `shape`, a tuple subclass).
std::vector<std::int64_t> sizes_of(PyObject* tensor) {
  static PyObject* name = interned("shape");
  nb::object shape = nb::steal(PyObject_GetAttr(tensor, name));
  if (!shape.is_valid()) throw nb::python_error();
  if (!PyTuple_Check(shape.ptr())) throw InputError("an input's shape is not a tuple");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(PyTuple_GET_SIZE(shape.ptr())));
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    sizes[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), static_cast<Py_ssize_t>(d)));
    if (PyErr_Occurred()) throw nb::python_error();
  }
  return sizes;
}

bool is_contiguous(PyObject* tensor) {
  static PyObject* name = interned("is_contiguous");
  nb::object r = nb::steal(PyObject_CallMethodNoArgs(tensor, name));
  if (!r.is_valid()) throw nb::python_error();
  return r.ptr() == Py_True;
}

nb::tuple int_tuple(const std::vector<std::int64_t>& v) {
  nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(v.size())));
  if (!t.is_valid()) throw nb::python_error();
  for (std::size_t i = 0; i < v.size(); ++i) {
    PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(i), PyLong_FromLongLong(v[i]));
  }
  return nb::borrow<nb::tuple>(t);
}

}  // namespace

std::vector<std::int64_t> TensorCall::bind(PyObject* const* args) const {
  std::vector<std::vector<std::int64_t>> sizes(spec_.arg_positions.size());
  for (int i : spec_.dynamic_inputs) {
    PyObject* tensor = args[spec_.arg_positions[static_cast<std::size_t>(i)]];
    sizes[static_cast<std::size_t>(i)] = sizes_of(tensor);
    if (!is_contiguous(tensor)) throw InputError("input " + std::to_string(i) + " is strided");
  }
  std::vector<std::int64_t> binding;
  for (const auto& [input, dim] : symbols_) {
    const auto& s = sizes[static_cast<std::size_t>(input)];
    if (static_cast<std::size_t>(dim) >= s.size()) {
      throw InputError("input " + std::to_string(input) + " has too few dims");
    }
    binding.push_back(s[static_cast<std::size_t>(dim)]);
  }
  for (int i : spec_.dynamic_inputs) {
    const auto& s = sizes[static_cast<std::size_t>(i)];
    std::vector<std::int64_t> expected(s.size());
    if (gbx_bound_shape(program_.get(), binding.data(), binding.size(), 0,
                        static_cast<std::size_t>(i), expected.data()) != 0) {
      throw InputError(gbx_last_error());
    }
    if (expected != s) throw InputError("input " + std::to_string(i) + ": unexpected shape");
  }
  return binding;
}

nb::object TensorCall::allocate_bound(std::size_t o,
                                      const std::vector<std::int64_t>& binding) const {
  gbx_tensor info;
  gbx_output_info(program_.get(), o, &info);
  std::vector<std::int64_t> shape(static_cast<std::size_t>(info.ndim)), strides(shape.size());
  if (gbx_bound_shape(program_.get(), binding.data(), binding.size(), 1, o, shape.data()) != 0) {
    throw InputError(gbx_last_error());
  }
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= std::max<std::int64_t>(shape[d], 1);
  }
  nb::object dtype = spec_.allocate_args[o][2];
  return spec_.allocate(int_tuple(shape), int_tuple(strides), dtype);
}

PyObject* TensorCall::run(PyObject* const* args, std::size_t nargs) {
  const std::size_t n_in = spec_.arg_positions.size(), n_out = spec_.allocate_args.size();
  Scratch<const void*> inputs(n_in);
  Scratch<std::uint64_t> versions(n_in);
  for (std::size_t i = 0; i < n_in; ++i) {
    PyObject* tensor = args[spec_.arg_positions[i]];
    inputs[i] = data_ptr(tensor);
    int w = weight_slot_[i];
    versions[i] = w < 0 ? 0 : weight_version(seen_[static_cast<std::size_t>(w)], tensor);
  }
  const bool bound = !symbols_.empty();
  const std::vector<std::int64_t> binding = bound ? bind(args) : std::vector<std::int64_t>();
  std::vector<nb::object> outputs(n_out);
  Scratch<void*> out_data(n_out);
  for (std::size_t o = 0; o < n_out; ++o) {
    PyObject* allocate_args = spec_.allocate_args[o].ptr();
    if (bound) {
      outputs[o] = allocate_bound(o, binding);
    } else {
      outputs[o] =
          nb::steal(PyObject_Vectorcall(spec_.allocate.ptr(), &PyTuple_GET_ITEM(allocate_args, 0),
                                        PyTuple_GET_SIZE(allocate_args), nullptr));
    }
    if (!outputs[o].is_valid()) throw nb::python_error();
    out_data[o] = data_ptr(outputs[o].ptr());
  }
  int status;
  {
    nb::gil_scoped_release release;
    status = bound
                 ? gbx_run_bound_into(program_.get(), binding.data(), binding.size(), inputs.data(),
                                      versions.data(), n_in, out_data.data(), n_out)
                 : gbx_run_declared_into(program_.get(), inputs.data(), versions.data(), n_in,
                                         out_data.data(), n_out);
  }
  if (status != 0) throw InputError(gbx_last_error());

  nb::object result = nb::steal(PyList_New(static_cast<Py_ssize_t>(spec_.result_plan.size())));
  if (!result.is_valid()) throw nb::python_error();
  for (std::size_t r = 0; r < spec_.result_plan.size(); ++r) {
    auto [kind, index] = spec_.result_plan[r];
    PyObject* item = Py_None;
    if (kind == static_cast<int>(ResultKind::Output)) {
      item = outputs[static_cast<std::size_t>(index)].ptr();
    } else if (kind == static_cast<int>(ResultKind::Argument)) {
      if (static_cast<std::size_t>(index) >= nargs)
        throw InputError("result argument out of range");
      item = args[index];
    }
    Py_INCREF(item);
    PyList_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(r), item);
  }
  return result.release().ptr();
}

void TensorCall::require_live() const {
  if (!spec_.fallback.is_valid()) throw InputError("TensorCall used after being cleared");
}

nb::object TensorCall::call(nb::args args) {
  require_live();
  auto nargs = static_cast<std::size_t>(PyTuple_GET_SIZE(args.ptr()));
  PyObject* const* items = &PyTuple_GET_ITEM(args.ptr(), 0);
  const std::size_t n_in = spec_.arg_positions.size();
  bool by_address = false;
  if (!guard.is_none()) {
    Scratch<PyObject*> inputs(n_in);
    for (std::size_t i = 0; i < n_in; ++i) {
      if (static_cast<std::size_t>(spec_.arg_positions[i]) >= nargs) {
        throw InputError("expected at least " + std::to_string(spec_.arg_positions[i] + 1) +
                         " arguments, got " + std::to_string(nargs));
      }
      inputs[i] = items[spec_.arg_positions[i]];
    }
    nb::object ok = nb::steal(PyObject_Vectorcall(guard.ptr(), inputs.data(), n_in, nullptr));
    if (!ok.is_valid()) throw nb::python_error();
    int truth = PyObject_IsTrue(ok.ptr());
    if (truth < 0) throw nb::python_error();
    by_address = truth != 0;
  }
  if (!by_address) return spec_.fallback(*args);
  return nb::steal(run(items, nargs));
}

nb::object TensorCall::run_checked(nb::args args) {
  require_live();
  auto nargs = static_cast<std::size_t>(PyTuple_GET_SIZE(args.ptr()));
  for (int p : spec_.arg_positions) {
    if (static_cast<std::size_t>(p) >= nargs) {
      throw InputError("expected at least " + std::to_string(p + 1) + " arguments, got " +
                       std::to_string(nargs));
    }
  }
  return nb::steal(run(&PyTuple_GET_ITEM(args.ptr(), 0), nargs));
}

namespace {

// Cyclic garbage collection: the fallback is a Python closure that refers back to its TensorCall.
int tensor_call_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  TensorCall* call = nb::inst_ptr<TensorCall>(self);
  Py_VISIT(call->guard.ptr());
  return call->visit([&](PyObject* o) { return visit(o, arg); });
}

// RunError, the Python class of InputError (bind_runtime registers it before bind_tensor_call).
PyObject* run_error_type = nullptr;

// The call itself, as the type's tp_call: Dynamo's generated code calls the compiled graph with
// `fn(*args)`, which comes here with its argument tuple as is (a `__call__` method would go
// through the slot wrapper and nanobind's dispatch, which copies the tuple: ~0.3 us a call).
// Errors become the exceptions nanobind would raise.
PyObject* tensor_call_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (kwargs && PyDict_GET_SIZE(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "TensorCall takes positional arguments only");
    return nullptr;
  }
  try {
    return nb::inst_ptr<TensorCall>(self)->call(nb::borrow<nb::args>(args)).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const InputError& e) {
    PyErr_SetString(run_error_type ? run_error_type : PyExc_ValueError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

int tensor_call_clear(PyObject* self) {
  TensorCall* call = nb::inst_ptr<TensorCall>(self);
  call->guard = nb::none();
  call->clear();
  return 0;
}

PyType_Slot tensor_call_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(tensor_call_traverse)},
                                   {Py_tp_clear, reinterpret_cast<void*>(tensor_call_clear)},
                                   {Py_tp_call, reinterpret_cast<void*>(tensor_call_call)},
                                   {0, nullptr}};

}  // namespace

void bind_tensor_call(nb::module_& m) {
  nb::object run_error = nb::getattr(m, "RunError", nb::none());
  if (!run_error.is_none()) run_error_type = run_error.release().ptr();  // kept for good
  nb::class_<TensorCall>(m, "TensorCall", nb::type_slots(tensor_call_slots),
                         nb::is_weak_referenceable(),
                         "The per-call entry of a compiled graph over one program "
                         "(RuntimeProgram.tensor_call).")
      .def("run_checked", &TensorCall::run_checked,
           "The address path without the guard: for a fallback that has checked the inputs.")
      .def_rw("guard", &TensorCall::guard,
              "Callable on the program inputs: true sends the call by address; None: always "
              "the fallback.");
}

}  // namespace glassbox::bindings
