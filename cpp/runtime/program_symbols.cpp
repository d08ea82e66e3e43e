// Programs whose sizes depend on symbols: reading and verifying the expression table and the
// symbols, binding symbols from input shapes, and specializing a program to one binding.
#include <string>

#include "program_generated.h"
#include "runtime/arena_layout.hpp"
#include "runtime/program.hpp"

namespace glassbox::runtime {

namespace {

std::string value_at(std::size_t i) { return "value " + std::to_string(i); }

// Every entry of `ids` is -1 or an expression id.
bool ids_in_range(const std::vector<std::int32_t>& ids, std::size_t num_exprs) {
  for (std::int32_t id : ids) {
    if (id < -1 || (id >= 0 && static_cast<std::size_t>(id) >= num_exprs)) return false;
  }
  return true;
}

}  // namespace

void Program::parse_symbols() {
  const fb::Program* p = fb::GetProgram(bytes_->data());
  if (p->symbols()) {
    for (const fb::Symbol* s : *p->symbols()) {
      symbols_.push_back(SymbolDesc{s->input(), s->dim(), s->min(), s->max()});
    }
  }
  if (p->exprs()) {
    for (const fb::Expr* e : *p->exprs()) {
      exprs_.push_back(ExprDesc{static_cast<ExprOp>(e->op()), e->a(), e->b()});
    }
  }
}

// The table, the symbols' bindings, and every reference to an expression.
void Program::verify_symbols() const {
  verify_exprs(exprs_, symbols_.size());
  const std::size_t n_exprs = symbols_.empty() ? 0 : exprs_.size();
  for (std::size_t s = 0; s < symbols_.size(); ++s) {
    const SymbolDesc& sym = symbols_[s];
    std::string where = "symbol s" + std::to_string(s);
    if (sym.min < 0 || sym.min > sym.max)
      throw LoadError(where + " has an empty or negative range");
    if (sym.input < 0 || static_cast<std::size_t>(sym.input) >= inputs_.size() ||
        inputs_[sym.input] < 0 || static_cast<std::size_t>(inputs_[sym.input]) >= values_.size()) {
      throw LoadError(where + " is bound by a missing input");
    }
    const ValueDesc& v = values_[inputs_[sym.input]];
    const std::int32_t e =
        sym.dim >= 0 && static_cast<std::size_t>(sym.dim) < v.dims.size() ? v.dims[sym.dim] : -1;
    if (e < 0 || static_cast<std::size_t>(e) >= exprs_.size() || exprs_[e].op != ExprOp::Symbol ||
        exprs_[e].a != static_cast<std::int64_t>(s)) {
      throw LoadError(where + " is not the size of the input dim that binds it");
    }
  }
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const ValueDesc& v = values_[i];
    if (v.dims.empty()) continue;
    if (v.dims.size() != v.shape.size() || !ids_in_range(v.dims, n_exprs)) {
      throw LoadError(value_at(i) + " has bad symbolic dims");
    }
    if (v.kind == ValueKind::Constant)
      throw LoadError(value_at(i) + ": a constant of symbolic size");
  }
  for (std::size_t i = 0; i < instructions_.size(); ++i) {
    const auto* a = std::get_if<StridedArgs>(&instructions_[i].args);
    if (!a) continue;
    if ((!a->stride_exprs.empty() && (a->stride_exprs.size() != a->strides.size() ||
                                      !ids_in_range(a->stride_exprs, n_exprs))) ||
        !ids_in_range(std::vector<std::int32_t>{a->offset_expr}, n_exprs)) {
      throw LoadError("instruction " + std::to_string(i) +
                      " has bad StridedArgs.offset_expr or stride_exprs");
    }
  }
}

// Run after the rest of the verification (specializing reads slot indices as verified).
void Program::verify_example_binding() const {
  if (symbols_.empty()) return;
  std::vector<const Shape*> shapes;
  for (std::int32_t s : inputs_) shapes.push_back(&values_[s].shape);
  std::shared_ptr<const Program> example;
  try {
    example = specialize(bind(shapes));
  } catch (const RunError& e) {
    throw LoadError(std::string("the example binding does not verify: ") + e.what());
  }
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (example->values_[i].shape != values_[i].shape) {
      throw LoadError(value_at(i) + ": its declared shape is not its size at the example binding");
    }
  }
  for (std::size_t i = 0; i < instructions_.size(); ++i) {
    const auto* declared = std::get_if<StridedArgs>(&instructions_[i].args);
    const auto* example_args = std::get_if<StridedArgs>(&example->instructions_[i].args);
    if (declared &&
        (example_args->offset != declared->offset || example_args->strides != declared->strides)) {
      throw LoadError("instruction " + std::to_string(i) +
                      ": its StridedArgs are not their values at the example binding");
    }
  }
}

std::vector<std::int64_t> Program::bind(const std::vector<const Shape*>& shapes) const {
  if (shapes.size() != inputs_.size()) {
    throw RunError("expected " + std::to_string(inputs_.size()) + " input shapes, got " +
                   std::to_string(shapes.size()));
  }
  std::vector<std::int64_t> binding;
  for (std::size_t s = 0; s < symbols_.size(); ++s) {
    const Shape& shape = *shapes[static_cast<std::size_t>(symbols_[s].input)];
    const std::size_t dim = static_cast<std::size_t>(symbols_[s].dim);
    if (shape.size() != values_[inputs_[symbols_[s].input]].shape.size()) {
      throw RunError("input " + std::to_string(symbols_[s].input) + ": expected " +
                     std::to_string(values_[inputs_[symbols_[s].input]].shape.size()) +
                     " dims, got " + shape_str(shape));
    }
    binding.push_back(shape[dim]);
  }
  return binding;
}

std::shared_ptr<const Program> Program::specialize(const std::vector<std::int64_t>& binding) const {
  const std::vector<std::int64_t> at = evaluate_exprs(exprs_, symbols_, binding);
  std::shared_ptr<Program> p(new Program(*this));
  const std::string where = "at " + binding_str(binding) + ": ";
  for (std::size_t i = 0; i < p->values_.size(); ++i) {
    ValueDesc& v = p->values_[i];
    for (std::size_t k = 0; k < v.dims.size(); ++k) {
      if (v.dims[k] >= 0) v.shape[k] = at[static_cast<std::size_t>(v.dims[k])];
      if (v.shape[k] < 0) throw RunError(where + value_at(i) + " has a negative size");
    }
    v.numel = bounded_numel(v.shape);
    if (v.numel < 0) throw RunError(where + value_at(i) + " is too large: " + shape_str(v.shape));
    v.dims.clear();
  }
  for (InstrDesc& in : p->instructions_) {
    auto* a = std::get_if<StridedArgs>(&in.args);
    if (!a) continue;
    if (a->offset_expr >= 0) a->offset = at[static_cast<std::size_t>(a->offset_expr)];
    for (std::size_t k = 0; k < a->stride_exprs.size(); ++k) {
      if (a->stride_exprs[k] >= 0) a->strides[k] = at[static_cast<std::size_t>(a->stride_exprs[k])];
    }
    a->offset_expr = -1;
    a->stride_exprs.clear();
  }
  p->arena_size_ = place_arena(p->values_, p->instructions_, p->outputs_);
  if (p->arena_size_ > kMaxArenaBytes) throw RunError(where + "the arena is implausibly large");
  p->symbols_.clear();
  p->exprs_.clear();
  try {
    p->verify_slots();
    p->verify_instructions();
  } catch (const LoadError& e) {
    throw RunError(where + e.what());
  }
  return p;
}

}  // namespace glassbox::runtime
