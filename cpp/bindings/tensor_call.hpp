// TensorCall: the per-call entry of the torch.compile backend, one Python -> C++ crossing a call.
// It takes the compiled graph's arguments as they come (torch tensors, never seen as such: only
// their `data_ptr()` and `_version` are read, so the core stays free of libtorch), allocates the
// outputs through a Python callable (torch's own fast CPU allocation, as Inductor's generated code
// calls it), runs the program on the addresses and returns the graph's output list.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "glassbox/runtime.h"

namespace glassbox::bindings {

namespace nb = nanobind;

// Where each item of the graph's output list comes from.
enum class ResultKind : int { Output = 0, Argument = 1, None = 2 };

class TensorCall {
 public:
  struct Spec {
    std::vector<int> arg_positions;        // the argument that is program input i
    std::vector<int> weights;              // program inputs whose versions are kept (GEMM weights)
    std::vector<nb::tuple> allocate_args;  // per output: the arguments of `allocate`
    nb::object allocate;                   // (*allocate_args[o]) -> a new output tensor
    std::vector<std::pair<int, int>> result_plan;  // (ResultKind, index) per graph output
    nb::object fallback;                           // called with the arguments when unchecked
    // A program with symbols: the inputs whose shapes depend on them (their sizes and strides are
    // checked here, the guard checks the others), and allocate_args[o] is (shape, strides, dtype)
    // of which the shape and strides are replaced by those of each call's binding.
    std::vector<int> dynamic_inputs;
  };
  TensorCall(std::shared_ptr<gbx_program> program, Spec spec);
  TensorCall(const TensorCall&) = delete;
  TensorCall& operator=(const TensorCall&) = delete;
  ~TensorCall();

  // The call: `guard(*inputs)` (a recorded check of the input tensors' metadata) decides between
  // the address path and `fallback(*args)`, which checks the inputs itself. No guard yet: fallback.
  nb::object call(nb::args args);
  // The address path without the guard, for the fallback once it has checked the inputs.
  nb::object run_checked(nb::args args);

  nb::object guard;  // callable on the program inputs, or None

  // For the cyclic garbage collector: visit every Python object held but `guard`, stopping at the
  // first nonzero result; drop them.
  template <typename Visit>
  int visit(Visit&& visit_one) const {
    for (const nb::tuple& t : spec_.allocate_args) {
      if (int r = t.is_valid() ? visit_one(t.ptr()) : 0) return r;
    }
    for (const nb::object* o : {&spec_.allocate, &spec_.fallback}) {
      if (int r = o->is_valid() ? visit_one(o->ptr()) : 0) return r;
    }
    return 0;
  }
  void clear();

 private:
  struct Seen {
    PyObject* ref = nullptr;  // weak reference to the tensor last seen at this position
    std::uint64_t counter = 0;
    std::uint64_t version = 0;
  };
  PyObject* run(PyObject* const* args, std::size_t nargs);
  // A program with symbols: the binding the arguments' shapes give, after checking the dynamic
  // inputs' shapes and contiguity against it.
  std::vector<std::int64_t> bind(PyObject* const* args) const;
  // Output o allocated at `binding` (the arguments of `allocate` with that shape).
  nb::object allocate_bound(std::size_t o, const std::vector<std::int64_t>& binding) const;
  void require_live() const;
  std::uint64_t weight_version(Seen& seen, PyObject* tensor);

  std::shared_ptr<gbx_program> program_;
  Spec spec_;
  std::vector<Seen> seen_;                    // per spec_.weights entry
  std::vector<int> weight_slot_;              // per program input: index into seen_, or -1
  std::vector<std::pair<int, int>> symbols_;  // (input, dim) binding each symbol
};

void bind_tensor_call(nb::module_& m);

}  // namespace glassbox::bindings
