// Match statements (3.10+): the pattern code of each case back to a pattern, then the guards and
// bodies through the ordinary structuring.
//
// The compiler keeps the subject on the stack and compiles each case as: COPY 1 (not for the last
// case that has pattern code), the pattern's code, which consumes the copy and leaves the values
// it captures on the stack, the stores of those captures, the guard, POP_TOP (the subject, when it
// was copied), the body and a jump to the end. A failing test jumps to a chain of POP_TOPs that
// empties the stack down to the subject and falls into the next case.
//
// MatchReader runs a case's pattern code over a symbolic stack of its own. Each value the pattern
// looks at (the subject, an item of a sequence, a value of a mapping, an attribute of a class
// pattern) is a PatternValue that gathers what the code checks about it (MATCH_SEQUENCE, the
// length, `== value`, `is None`, MATCH_CLASS ...) and the names it is stored to; the pattern is
// rebuilt from those facts at the end. Running the stack machine, rather than matching fixed
// instruction templates, absorbs the compiler's rotations and its reordering of the final stores
// (3.11+ replaces SWAPs by reordered STORE_FASTs). Or-patterns are control flow: each alternative
// runs on its own copy of the value up to its jump to the common end, and the captures they leave
// are merged slot by slot.
#include <algorithm>
#include <map>

#include "decompiler/decoder.hpp"

namespace glassbox::decompiler {

namespace {

using bytecode::ObjectKind;

struct PatternValue;
using PatternValuePtr = std::shared_ptr<PatternValue>;

// What the pattern code checked about one value derived from the subject.
struct PatternValue {
  bool sequence = false;                       // MATCH_SEQUENCE
  bool mapping = false;                        // MATCH_MAPPING
  int length = -1;                             // len(value) == length
  int min_length = -1;                         // len(value) >= min_length
  int unpacked = -1;                           // UNPACK_SEQUENCE / UNPACK_EX: the number of items
  int star = -1;                               // UNPACK_EX: the index of the starred item
  std::vector<PatternValuePtr> items;          // unpacked items, in order
  std::map<int, PatternValuePtr> front, back;  // value[i], value[len(value) - j]
  ExprPtr keys;                                // mapping: the Tuple of keys
  ExprPtr cls;                                 // class pattern: the class
  int positional = -1;                         // class pattern: positional sub-patterns
  std::vector<std::string> keywords;           // class pattern: keyword attribute names
  std::vector<PatternValuePtr> parts;          // mapping values / class attributes, by index
  PatternValuePtr rest;                        // mapping: **rest
  ExprPtr value;                               // == value
  ExprPtr singleton;                           // is None / True / False
  std::vector<PatternValuePtr> alternatives;   // or-pattern
  std::vector<std::string> names;              // captured as
  int pops = 0;                                // discarded by POP_TOP
};

PatternValuePtr new_value() { return std::make_shared<PatternValue>(); }

// One entry of the symbolic stack. Immutable once pushed, so that a failed attempt to read an
// or-pattern can restore the stack by copying the vector.
struct Slot {
  enum Kind {
    Value,        // a value being matched (or a capture waiting for its store)
    Test,         // a boolean about `value`, consumed by a jump to the failure path
    Length,       // len(value)
    LengthMinus,  // len(value) - number
    Expr,         // a loaded constant or dotted name (a value pattern, keys, a class)
    Parts,        // the values of a mapping's keys / the attributes of a class pattern
    Merged,       // an or-pattern's capture: one slot per alternative
    Capture,      // the value an as-pattern binds: only moved, then stored
  };
  enum TestKind { IsSequence, IsMapping, LengthEquals, LengthAtLeast, Equals, Is, Matched };
  Kind kind = Value;
  PatternValuePtr value;
  ExprPtr expr;
  int test = 0;
  int number = 0;
  std::vector<std::shared_ptr<const Slot>> merged;
};
using SlotPtr = std::shared_ptr<const Slot>;

SlotPtr value_slot(PatternValuePtr value) {
  auto slot = std::make_shared<Slot>();
  slot->value = std::move(value);
  return slot;
}

SlotPtr make_slot(Slot::Kind kind, PatternValuePtr value, ExprPtr expr = nullptr, int test = 0,
                  int number = 0) {
  auto slot = std::make_shared<Slot>();
  slot->kind = kind;
  slot->value = std::move(value);
  slot->expr = std::move(expr);
  slot->test = test;
  slot->number = number;
  return slot;
}

// A jump to the failure path and how many values it leaves on the stack.
struct Fail {
  int target = 0;
  size_t depth = 0;
};

struct RunState {
  std::vector<SlotPtr> stack;
  size_t floor = 0;  // the code may not touch slots below
  std::vector<Fail> fails;
};

bool is_int_constant(const ExprPtr& e, int* out) {
  if (!e || e->kind != ExprKind::Constant || e->text.empty() || e->text.size() > 9) return false;
  for (char c : e->text) {
    if (c < '0' || c > '9') return false;
  }
  *out = std::stoi(e->text);
  return true;
}

bool is_dotted_name(const ExprPtr& e, int depth = 0) {
  if (!e || depth > 100) return false;
  if (e->kind == ExprKind::Name) return true;
  return e->kind == ExprKind::Attribute && is_dotted_name(e->args[0], depth + 1);
}

// Operations a guard expression may hold (up to its conditional jumps).
bool ends_guard(Op op) {
  switch (op) {
    case Op::PopTop:
    case Op::StoreName:
    case Op::StoreAttr:
    case Op::StoreSubscr:
    case Op::StoreSlice:
    case Op::DeleteName:
    case Op::DeleteAttr:
    case Op::DeleteSubscr:
    case Op::ReturnValue:
    case Op::ReturnConst:
    case Op::RaiseVarargs:
    case Op::Reraise:
    case Op::Jump:
    case Op::ForIter:
    case Op::EndFor:
    case Op::ImportName:
    case Op::ImportFrom:
    case Op::ImportStar:
    case Op::UnpackSequence:
    case Op::UnpackEx:
    case Op::BeforeWith:
    case Op::SetupFinally:
    case Op::SetupWith:
    case Op::PushExcInfo:
    case Op::PopExcept:
    case Op::YieldValue:
    case Op::Send:
    case Op::Unknown:
    case Op::LoadFastAndClear:
    case Op::MatchSequence:
    case Op::MatchMapping:
    case Op::MatchClass:
    case Op::MatchKeys:
      return true;
    default:
      return false;
  }
}

}  // namespace

// A case as read from the bytecode, before its guard and body are decoded.
struct CaseShape {
  ExprPtr pattern;
  bool copied = false;       // the case starts with COPY 1 of the subject
  int pattern_end = 0;       // first operation after the pattern code and its stores
  std::vector<Fail> fails;   // depth relative to the case's base
  int fail_label = -1;       // where a failed case goes on; -1 when the pattern cannot fail
  bool needs_match = false;  // the pattern is more than a value, singleton or capture test
};

// A match statement as the compiler lays it out: read from its cases, then its bodies placed; read
// again to choose where the statement ends and to build it.
struct CodeDecoder::MatchLayout {
  struct Place {
    int body_begin = 0;
    int body_end = -1;  // -1: up to the end of the statement
  };
  int begin = 0;  // the first case's first operation
  int end = 0;    // the end of the region
  int exit = 0;   // where the region goes on
  std::vector<CaseShape> cases;
  std::vector<int> guard_ends;  // by case: where its guard ends, -1 when it has none
  ExprPtr subject;
  std::vector<Place> places;  // by case: where its body lies
  int inside_target = -1;     // where the bodies ending in a jump forward inside the region go
  std::vector<int> leaving;   // jumps at the end of bodies that leave the region
  bool copied_exit = false;   // the last case fails to a copy of the exit block
  int exit_copy_begin = -1;
  int exit_copy_end = -1;
  int last_fail = -1;         // where the last case fails to (a trailing `case _:`); -1: none
  bool ends_outside = false;  // a target outside the region was read as the region's end

  bool outside(int at) const { return at <= begin || at > end; }
};

class MatchReader {
 public:
  explicit MatchReader(const CodeDecoder& decoder)
      : decoder_(decoder), ops_(decoder.lifted_.ops), profile_(decoder.profile_) {}

  // Whether the operation at i can be the first of a case's pattern code.
  static bool may_start_case(const std::vector<Operation>& ops, int i) {
    const Operation& op = ops[static_cast<size_t>(i)];
    if ((op.op == Op::Copy && op.arg == 1) || op.op == Op::MatchSequence ||
        op.op == Op::MatchMapping) {
      return true;
    }
    for (int k = i; k < i + 12 && static_cast<size_t>(k) < ops.size(); ++k) {
      Op kind = ops[static_cast<size_t>(k)].op;
      if (kind == Op::MatchClass) return true;
      if (kind != Op::LoadName && kind != Op::LoadAttr && kind != Op::LoadConst) return false;
    }
    return false;
  }

  // Reads the case starting at `pos`, assuming it copies the subject or not. Throws DecodeFailure.
  CaseShape read_case(int pos, bool copied) {
    CaseShape shape;
    shape.copied = copied;
    RunState state;
    PatternValuePtr subject = new_value();
    state.stack.push_back(value_slot(subject));
    size_t base = 0;
    if (copied) {
      const Operation& copy = op_at(pos);
      if (copy.op != Op::Copy || copy.arg != 1) throw DecodeFailure("match case without its copy");
      state.stack.push_back(value_slot(subject));
      base = 1;
      ++pos;
    }
    state.floor = base;
    shape.pattern_end = run(state, pos, base, false);
    for (Fail& fail : state.fails) fail.depth -= base;
    shape.fails = state.fails;
    shape.pattern = build(subject, 0);
    shape.needs_match = subject->sequence || subject->mapping || subject->cls ||
                        !subject->alternatives.empty() || subject->names.size() > 1 ||
                        (!subject->names.empty() && subject->value);
    if (!shape.fails.empty()) {
      shape.fail_label = landing(shape.fails[0].target, shape.fails[0].depth);
      for (const Fail& fail : shape.fails) {
        int other = landing(fail.target, fail.depth);
        if (other < 0 || !decoder_.same_target(other, shape.fail_label))
          throw DecodeFailure("match case fails to different places");
      }
    }
    return shape;
  }

  // Where a failure jump to `target` with `pops` values to discard arrives: the POP_TOPs and jumps
  // of the failure chain followed. -1 if the chain has another shape.
  int landing(int target, size_t pops) const {
    for (int hops = 0; hops < 256; ++hops) {
      if (target < 0 || static_cast<size_t>(target) >= ops_.size()) return -1;
      const Operation& op = ops_[static_cast<size_t>(target)];
      if (pops == 0 && op.op != Op::Jump) return target;
      if (op.op == Op::PopTop) {
        --pops;
        ++target;
      } else if (op.op == Op::Jump) {
        target = op.target;
      } else {
        return -1;
      }
    }
    return -1;
  }

  // ---- the cases of a statement and their guards

  // Reads the cases of the statement at layout.begin into layout.cases and layout.guard_ends;
  // false when no case starts there. Throws DecodeFailure when a later case is not understood.
  bool read_cases(CodeDecoder::MatchLayout& layout) {
    int pos = layout.begin;
    while (layout.cases.size() < 1024) {
      CaseShape shape;
      int guard = -1;
      if (!read_next_case(pos, layout.end, layout.cases.empty(), shape, guard)) {
        if (layout.cases.empty()) return false;
        throw DecodeFailure("match case not understood at offset " +
                            std::to_string(ops_[static_cast<size_t>(pos)].offset));
      }
      layout.cases.push_back(shape);
      layout.guard_ends.push_back(guard);
      if (!shape.copied) break;
      pos = shape.fail_label;
      if (pos <= layout.begin || pos >= layout.end)
        throw DecodeFailure("match case fails out of its statement");
    }
    return true;
  }

  // Reads the case at `pos` into `shape` and where its guard ends into `guard`: a case that copies
  // the subject, a `case _ if guard:` without the copy (not the first case), or one that does not
  // copy it. False when none of them reads.
  bool read_next_case(int pos, int end, bool first, CaseShape& shape, int& guard) {
    bool read = false;
    if (ops_[static_cast<size_t>(pos)].op == Op::Copy && ops_[static_cast<size_t>(pos)].arg == 1) {
      try {
        shape = read_case(pos, true);
        read = read_copied(shape, pos, end, guard);
      } catch (const DecodeFailure&) {
        read = false;
      }
    }
    if (!read && !first) {
      // `case _ if guard:` before the last case: 3.11+ drops its COPY 1; POP_TOP.
      shape = CaseShape();
      shape.pattern = make_name("_");
      shape.copied = true;
      shape.pattern_end = pos;
      guard = -1;
      read = read_copied(shape, pos, end, guard) && guard > pos;
    }
    if (!read) {
      try {
        shape = read_case(pos, false);
        guard = guard_end(shape, shape.pattern_end, end, false);
        if (guard >= 0 && shape.fail_label < 0) {
          for (int k = shape.pattern_end; k < guard; ++k) {
            if (ops_[static_cast<size_t>(k)].op == Op::JumpIf)
              shape.fail_label = ops_[static_cast<size_t>(k)].target;
          }
        }
        read = true;
      } catch (const DecodeFailure&) {
        read = false;
      }
    }
    return read;
  }

  // A copied case: its pattern, then a guard ending in the POP_TOP of the subject, or that
  // POP_TOP.
  bool read_copied(CaseShape& copied, int pos, int end, int& guard) const {
    int after = copied.pattern_end;
    if (static_cast<size_t>(after) >= ops_.size()) return false;
    if (ops_[static_cast<size_t>(after)].op == Op::PopTop) return copied.fail_label > pos;
    if (copied.fail_label < 0) {
      // An irrefutable pattern with a guard: the guard says where the case fails. (The guard
      // computes its test (compiler_pattern's guard, compiler_jump_if): a jump right after the
      // pattern tests the subject's copy itself, a named expression's `if (x := v):`.)
      for (int k = after + 1; k < end && k < after + 400; ++k) {
        const Operation& op = ops_[static_cast<size_t>(k)];
        if (op.op == Op::JumpIf && static_cast<size_t>(k) + 1 < ops_.size() &&
            ops_[static_cast<size_t>(k) + 1].op == Op::PopTop) {
          copied.fail_label = op.target;
          break;
        }
        if (ends_guard(op.op)) break;
      }
    }
    guard = guard_end(copied, after, end, true);
    return guard >= 0 && ops_[static_cast<size_t>(guard)].op == Op::PopTop &&
           copied.fail_label > pos;
  }

  bool is_fail(const CaseShape& shape, int target) const {
    return shape.fail_label >= 0 && decoder_.same_target(landing(target, 0), shape.fail_label);
  }

  // The guard after a pattern: pure operations and conditional jumps to where the case fails (or
  // inside the guard), ending in one; -1 when there is none.
  int guard_end(const CaseShape& shape, int begin, int end, bool before_pop) const {
    int found = -1;
    int inner = -1;
    for (int k = begin; k < end && k < begin + 400; ++k) {
      const Operation& op = ops_[static_cast<size_t>(k)];
      if (op.op == Op::JumpIf || op.op == Op::JumpIfOrPop) {
        if (op.op == Op::JumpIf && op.target > k &&
            (is_fail(shape, op.target) || shape.fail_label < 0)) {
          if (inner <= k + 1 &&
              (!before_pop || (static_cast<size_t>(k) + 1 < ops_.size() &&
                               ops_[static_cast<size_t>(k) + 1].op == Op::PopTop))) {
            found = k + 1;
          }
          if (shape.fail_label < 0) break;
          continue;
        }
        if (op.target <= k) break;
        inner = std::max(inner, op.target);
        continue;
      }
      if (ends_guard(op.op)) break;
    }
    return found;
  }

 private:
  const CodeDecoder& decoder_;
  const std::vector<Operation>& ops_;
  const CompilerProfile& profile_;
  int steps_ = 0;
  int or_depth_ = 0;

  const Operation& op_at(int pos) const {
    if (pos < 0 || static_cast<size_t>(pos) >= ops_.size())
      throw DecodeFailure("pattern runs off the code");
    return ops_[static_cast<size_t>(pos)];
  }

  static SlotPtr pop(RunState& state) {
    if (state.stack.size() <= state.floor) throw DecodeFailure("pattern stack underflow");
    SlotPtr slot = state.stack.back();
    state.stack.pop_back();
    return slot;
  }

  static const SlotPtr& top(const RunState& state, int depth = 1) {
    if (depth < 1 || state.stack.size() < state.floor + static_cast<size_t>(depth))
      throw DecodeFailure("pattern stack underflow");
    return state.stack[state.stack.size() - static_cast<size_t>(depth)];
  }

  static PatternValuePtr pop_value(RunState& state) {
    SlotPtr slot = pop(state);
    if (slot->kind != Slot::Value) throw DecodeFailure("pattern operand is not a value");
    return slot->value;
  }

  static ExprPtr pop_expr(RunState& state) {
    SlotPtr slot = pop(state);
    if (slot->kind != Slot::Expr) throw DecodeFailure("pattern operand is not an expression");
    return slot->expr;
  }

  static void name_slot(const SlotPtr& slot, const std::string& name, int depth = 0) {
    if (depth > 50) throw DecodeFailure("pattern nesting");
    if (slot->kind == Slot::Value || slot->kind == Slot::Capture) {
      slot->value->names.push_back(name);
    } else if (slot->kind == Slot::Merged) {
      for (const SlotPtr& part : slot->merged) name_slot(part, name, depth + 1);
    } else {
      throw DecodeFailure("store of a pattern internal");
    }
  }

  static PatternValuePtr element(std::vector<PatternValuePtr>& list, int index) {
    if (index < 0 || index > 4096) throw DecodeFailure("pattern index");
    if (list.size() <= static_cast<size_t>(index)) list.resize(static_cast<size_t>(index) + 1);
    if (!list[static_cast<size_t>(index)]) list[static_cast<size_t>(index)] = new_value();
    return list[static_cast<size_t>(index)];
  }

  static PatternValuePtr element(std::map<int, PatternValuePtr>& map, int index) {
    PatternValuePtr& found = map[index];
    if (!found) found = new_value();
    return found;
  }

  // The number of values a Parts slot holds: the keys of a mapping or the class's attributes.
  static int parts_count(const PatternValue& value) {
    if (value.keys) return static_cast<int>(value.keys->args.size());
    if (value.cls) return value.positional + static_cast<int>(value.keywords.size());
    throw DecodeFailure("pattern parts");
  }

  void apply_test(const Slot& test) const {
    PatternValue& value = *test.value;
    switch (test.test) {
      case Slot::IsSequence:
        value.sequence = true;
        break;
      case Slot::IsMapping:
        value.mapping = true;
        break;
      case Slot::LengthEquals:
        if (value.length >= 0) throw DecodeFailure("second length test");
        value.length = test.number;
        break;
      case Slot::LengthAtLeast:
        if (value.min_length >= 0) throw DecodeFailure("second length test");
        value.min_length = test.number;
        break;
      case Slot::Equals:
        if (value.value) throw DecodeFailure("second value test");
        value.value = test.expr;
        break;
      case Slot::Is:
        if (value.singleton) throw DecodeFailure("second identity test");
        value.singleton = test.expr;
        break;
      default:
        break;
    }
  }

  // Executes pattern code from `pos` until the stack is back at `stop_depth` (a case's pattern)
  // or, for an or-pattern's alternative, until its unconditional jump. Returns where it stopped.
  int run(RunState& state, int pos, size_t stop_depth, bool alternative) {
    while (true) {
      if (!alternative && state.stack.size() == stop_depth) return pos;
      if (++steps_ > 20000 || --decoder_.session_.steps_left < 0)
        throw DecodeFailure("pattern too long");
      const Operation& op = op_at(pos);
      if (alternative && below_floor(op, state)) return pos;
      switch (op.op) {
        case Op::Nop:
          break;
        case Op::Jump:
          if (alternative) return pos;
          throw DecodeFailure("jump inside a pattern");
        case Op::Copy:
          pos = run_copy(state, pos);
          continue;
        case Op::JumpIf:
          pos = run_jump_if(state, pos);
          continue;
        case Op::BuildMap:
          pos = read_rest_311(state, pos);
          continue;
        default:
          if (!run_stack(state, op) && !run_load(state, op) && !run_test(state, op) &&
              !run_keys_and_class(state, op) && !run_items(state, op))
            throw DecodeFailure("unexpected operation inside a pattern");
      }
      ++pos;
    }
  }

  // COPY at `pos`: an or-pattern, the copy an as-pattern matches, or any other copy. Returns
  // where the code goes on.
  int run_copy(RunState& state, int pos) {
    const Operation& op = op_at(pos);
    // A sequence pattern with `*_` reads its items by index from a copy.
    bool index_copy = op_at(pos + 1).op == Op::GetLen ||
                      (op_at(pos + 1).op == Op::LoadConst && op_at(pos + 2).op == Op::BinarySubscr);
    if (op.arg == 1 && top(state)->kind == Slot::Value && !index_copy) {
      if (int next = read_or(state, pos); next >= 0) return next;
      // An as-pattern: the copy is matched, the value itself is only bound.
      SlotPtr original = top(state);
      auto capture = std::make_shared<Slot>();
      capture->kind = Slot::Capture;
      capture->value = original->value;
      state.stack.back() = capture;
      state.stack.push_back(original);
      return pos + 1;
    }
    state.stack.push_back(top(state, op.arg));
    return pos + 1;
  }

  // The conditional jump at `pos` to the failure path. Returns where the code goes on.
  int run_jump_if(RunState& state, int pos) {
    const Operation& op = op_at(pos);
    // `jump-if-not X over; JUMP fail; over:` is `jump-if X fail` (3.12+ when the failure
    // path is a backward jump, to the head of an enclosing loop).
    SlotPtr tested = pop(state);
    int failing = tested->kind == Slot::Test    ? 0  // POP_JUMP_IF_FALSE
                  : tested->kind == Slot::Value ? 3  // POP_JUMP_IF_NOT_NONE: `case None`
                  : tested->kind == Slot::Parts ? 2  // POP_JUMP_IF_NONE: no match
                                                : -1;
    if (failing < 0 || (failing == 2 && !profile_.none_tests_jump))
      throw DecodeFailure("conditional jump inside a pattern");
    int target = op.target;
    int next = pos + 1;
    if (op.arg == (failing ^ 1) && op.target == pos + 2 && op_at(pos + 1).op == Op::Jump) {
      target = op_at(pos + 1).target;
      next = pos + 2;
    } else if (op.arg != failing || op.target <= pos) {
      throw DecodeFailure("conditional jump inside a pattern");
    }
    if (tested->kind == Slot::Test) {
      apply_test(*tested);
    } else if (tested->kind == Slot::Value) {
      if (tested->value->singleton) throw DecodeFailure("second identity test");
      tested->value->singleton = make_constant("None");
    }
    state.fails.push_back({target, state.stack.size()});
    return next;
  }

  // Operations that move, drop or store values; false for others.
  bool run_stack(RunState& state, const Operation& op) const {
    switch (op.op) {
      case Op::Swap: {
        if (op.arg < 2) throw DecodeFailure("bad swap");
        top(state, op.arg);
        std::swap(state.stack.back(),
                  state.stack[state.stack.size() - static_cast<size_t>(op.arg)]);
        break;
      }
      case Op::Rotate: {
        if (op.arg < 2) throw DecodeFailure("bad rotate");
        top(state, op.arg);
        SlotPtr moved = pop(state);
        state.stack.insert(state.stack.end() - (op.arg - 1), moved);
        break;
      }
      case Op::PopTop: {
        SlotPtr slot = pop(state);
        if (slot->kind == Slot::Value)
          ++slot->value->pops;
        else if (slot->kind != Slot::Expr && slot->kind != Slot::Parts)
          throw DecodeFailure("pattern pops an internal value");
        break;
      }
      case Op::StoreName:
        if (op.scope == Scope::ClassDeref) throw DecodeFailure("pattern store scope");
        name_slot(pop(state), decoder_.source_name(op.text));
        break;
      default:
        return false;
    }
    return true;
  }

  // Operations that load the constants and names a pattern compares with; false for others.
  bool run_load(RunState& state, const Operation& op) const {
    switch (op.op) {
      case Op::LoadConst:
        state.stack.push_back(make_slot(Slot::Expr, nullptr, decoder_.constant(op.constant)));
        break;
      case Op::LoadName:
        if (op.null_slot) throw DecodeFailure("call inside a pattern");
        state.stack.push_back(make_slot(Slot::Expr, nullptr, decoder_.name_expr(op.text)));
        break;
      case Op::LoadAttr: {
        ExprPtr base = pop_expr(state);
        state.stack.push_back(
            make_slot(Slot::Expr, nullptr,
                      make_expr(ExprKind::Attribute, {base}, decoder_.source_name(op.text))));
        break;
      }
      case Op::BuildTuple: {
        if (op.arg < 0 || op.arg > 4096) throw DecodeFailure("bad tuple");
        std::vector<ExprPtr> items(static_cast<size_t>(op.arg));
        for (size_t k = items.size(); k-- > 0;) items[k] = pop_expr(state);
        state.stack.push_back(
            make_slot(Slot::Expr, nullptr, make_expr(ExprKind::Tuple, std::move(items))));
        break;
      }
      default:
        return false;
    }
    return true;
  }

  // Operations that test the value or its length; false for others.
  bool run_test(RunState& state, const Operation& op) const {
    switch (op.op) {
      case Op::Compare: {
        SlotPtr right = pop(state);
        SlotPtr left = pop(state);
        int number = 0;
        if (left->kind == Slot::Value && right->kind == Slot::Expr && op.text == "==") {
          state.stack.push_back(make_slot(Slot::Test, left->value, right->expr, Slot::Equals));
        } else if (left->kind == Slot::Length && right->kind == Slot::Expr &&
                   is_int_constant(right->expr, &number) && (op.text == "==" || op.text == ">=")) {
          state.stack.push_back(
              make_slot(Slot::Test, left->value, nullptr,
                        op.text == "==" ? Slot::LengthEquals : Slot::LengthAtLeast, number));
        } else {
          throw DecodeFailure("comparison inside a pattern");
        }
        break;
      }
      case Op::IsOp: {
        SlotPtr right = pop(state);
        SlotPtr left = pop(state);
        if (op.arg != 0 || left->kind != Slot::Value || right->kind != Slot::Expr ||
            right->expr->kind != ExprKind::Constant ||
            (right->expr->text != "None" && right->expr->text != "True" &&
             right->expr->text != "False")) {
          throw DecodeFailure("identity test inside a pattern");
        }
        state.stack.push_back(make_slot(Slot::Test, left->value, right->expr, Slot::Is));
        break;
      }
      case Op::MatchSequence:
      case Op::MatchMapping: {
        const SlotPtr& subject = top(state);
        if (subject->kind != Slot::Value) throw DecodeFailure("pattern test of an internal");
        state.stack.push_back(
            make_slot(Slot::Test, subject->value, nullptr,
                      op.op == Op::MatchSequence ? Slot::IsSequence : Slot::IsMapping));
        break;
      }
      case Op::GetLen: {
        const SlotPtr& subject = top(state);
        if (subject->kind != Slot::Value) throw DecodeFailure("len of an internal");
        state.stack.push_back(make_slot(Slot::Length, subject->value));
        break;
      }
      case Op::BinaryOp: {
        SlotPtr right = pop(state);
        SlotPtr left = pop(state);
        int number = 0;
        if (op.text != "-" || left->kind != Slot::Length || right->kind != Slot::Expr ||
            !is_int_constant(right->expr, &number)) {
          throw DecodeFailure("arithmetic inside a pattern");
        }
        state.stack.push_back(make_slot(Slot::LengthMinus, left->value, nullptr, 0, number));
        break;
      }
      default:
        return false;
    }
    return true;
  }

  // MATCH_KEYS and MATCH_CLASS: the values of a mapping's keys, a class pattern's attributes;
  // false for others.
  bool run_keys_and_class(RunState& state, const Operation& op) const {
    switch (op.op) {
      case Op::MatchKeys: {
        const SlotPtr& keys = top(state);
        const SlotPtr& subject = top(state, 2);
        if (keys->kind != Slot::Expr || keys->expr->kind != ExprKind::Tuple ||
            subject->kind != Slot::Value || subject->value->keys) {
          throw DecodeFailure("MATCH_KEYS operands");
        }
        subject->value->keys = keys->expr;
        PatternValuePtr mapping = subject->value;
        state.stack.push_back(make_slot(Slot::Parts, mapping));
        if (profile_.match_pushes_success_flag) {
          state.stack.push_back(make_slot(Slot::Test, mapping, nullptr, Slot::Matched));
        }
        break;
      }
      case Op::MatchClass: {
        ExprPtr names = pop_expr(state);
        ExprPtr cls = pop_expr(state);
        PatternValuePtr subject = pop_value(state);
        if (subject->cls || names->kind != ExprKind::Tuple || !is_dotted_name(cls) || op.arg < 0 ||
            op.arg > 4096) {
          throw DecodeFailure("MATCH_CLASS operands");
        }
        subject->cls = cls;
        subject->positional = op.arg;
        for (const ExprPtr& name : names->args) {
          if (name->kind != ExprKind::Constant || name->ops.size() != 1)
            throw DecodeFailure("class pattern keyword");
          subject->keywords.push_back(name->ops[0]);
        }
        state.stack.push_back(make_slot(Slot::Parts, subject));
        if (profile_.match_pushes_success_flag) {
          state.stack.push_back(make_slot(Slot::Test, subject, nullptr, Slot::Matched));
        }
        break;
      }
      default:
        return false;
    }
    return true;
  }

  // Operations that take a value apart: its items and the rest of a mapping; false for others.
  bool run_items(RunState& state, const Operation& op) const {
    switch (op.op) {
      case Op::BinarySubscr: {
        SlotPtr index = pop(state);
        SlotPtr base = pop(state);
        int number = 0;
        PatternValuePtr item;
        if (base->kind == Slot::Value && index->kind == Slot::Expr &&
            is_int_constant(index->expr, &number)) {
          item = element(base->value->front, number);
        } else if (base->kind == Slot::Value && index->kind == Slot::LengthMinus &&
                   index->value == base->value && index->number > 0) {
          item = element(base->value->back, index->number);
        } else if (base->kind == Slot::Parts && index->kind == Slot::Expr &&
                   is_int_constant(index->expr, &number) && number < parts_count(*base->value)) {
          item = element(base->value->parts, number);
        } else {
          throw DecodeFailure("subscript inside a pattern");
        }
        state.stack.push_back(value_slot(item));
        break;
      }
      case Op::UnpackSequence:
      case Op::UnpackEx: {
        SlotPtr source = pop(state);
        int before = op.op == Op::UnpackSequence ? op.arg : (op.arg & 0xff);
        int after = op.op == Op::UnpackSequence ? 0 : (op.arg >> 8);
        int count = before + after + (op.op == Op::UnpackEx ? 1 : 0);
        if (count < 0 || count > 4096) throw DecodeFailure("bad unpack");
        std::vector<PatternValuePtr> items;
        if (source->kind == Slot::Value && source->value->unpacked < 0) {
          PatternValue& sequence = *source->value;
          sequence.unpacked = count;
          sequence.star = op.op == Op::UnpackEx ? before : -1;
          for (int k = 0; k < count; ++k) sequence.items.push_back(new_value());
          items = sequence.items;
        } else if (source->kind == Slot::Parts && op.op == Op::UnpackSequence &&
                   count == parts_count(*source->value) && source->value->parts.empty()) {
          for (int k = 0; k < count; ++k) items.push_back(element(source->value->parts, k));
        } else {
          throw DecodeFailure("unpacking inside a pattern");
        }
        for (size_t k = items.size(); k-- > 0;) state.stack.push_back(value_slot(items[k]));
        break;
      }
      case Op::Unknown:
        if (op.text == "COPY_DICT_WITHOUT_KEYS") {
          const SlotPtr& keys = top(state);
          const SlotPtr& subject = top(state, 2);
          if (keys->kind != Slot::Expr || subject->kind != Slot::Value ||
              subject->value->keys != keys->expr || subject->value->rest) {
            throw DecodeFailure("COPY_DICT_WITHOUT_KEYS operands");
          }
          subject->value->rest = new_value();
          state.stack.back() = value_slot(subject->value->rest);
          break;
        }
        throw DecodeFailure("unexpected operation inside a pattern: " + op.text);
      default:
        return false;
    }
    return true;
  }

  // 3.11+ `**rest`: BUILD_MAP 0; SWAP 3; DICT_UPDATE 2; UNPACK_SEQUENCE n; then per key COPY k;
  // SWAP 2; DELETE_SUBSCR turn [mapping, keys] into [rest].
  int read_rest_311(RunState& state, int pos) {
    if (!profile_.match_rest_by_deleting_keys) throw DecodeFailure("BUILD_MAP inside a pattern");
    const SlotPtr& keys = top(state);
    const SlotPtr& subject = top(state, 2);
    if (keys->kind != Slot::Expr || subject->kind != Slot::Value ||
        subject->value->keys != keys->expr || subject->value->rest) {
      throw DecodeFailure("**rest operands");
    }
    int count = static_cast<int>(keys->expr->args.size());
    auto is = [&](int at, Op kind, int arg) {
      const Operation& op = op_at(at);
      return op.op == kind && op.arg == arg;
    };
    if (!is(pos, Op::BuildMap, 0) || !is(pos + 1, Op::Swap, 3) || !is(pos + 2, Op::DictUpdate, 2) ||
        !is(pos + 3, Op::UnpackSequence, count)) {
      throw DecodeFailure("**rest shape");
    }
    int at = pos + 4;
    for (int left = count; left > 0; --left, at += 3) {
      if (!is(at, Op::Copy, 1 + left) || !is(at + 1, Op::Swap, 2) ||
          op_at(at + 2).op != Op::DeleteSubscr) {
        throw DecodeFailure("**rest shape");
      }
    }
    PatternValuePtr mapping = subject->value;
    pop(state);
    pop(state);
    mapping->rest = new_value();
    state.stack.push_back(value_slot(mapping->rest));
    return at;
  }

  // An or-pattern at `pos` (COPY 1 of the value on top): each alternative matches a copy and jumps
  // to the common end; its failures go on to the next alternative; after the last one the value is
  // popped and the whole pattern fails. Returns where the code goes on (the end), or -1 (the state
  // unchanged) when `pos` does not start one.
  int read_or(RunState& state, int pos) {
    struct Nesting {
      int& depth;
      ~Nesting() { --depth; }
    } nesting{++or_depth_};
    if (or_depth_ > 32) return -1;
    size_t base = state.stack.size();
    std::vector<PatternValuePtr> alternatives;
    std::vector<std::vector<SlotPtr>> captures;
    int end = -1;
    std::vector<int> inlined;  // where each alternative's copy of the success path starts
    int at = pos;
    bool last_irrefutable = false;
    try {
      while (alternatives.size() < 256) {
        const Operation& copy = op_at(at);
        if (copy.op != Op::Copy || copy.arg != 1) break;
        RunState alternative;
        alternative.stack = state.stack;
        alternative.floor = base;
        PatternValuePtr alias = new_value();
        alternative.stack.push_back(value_slot(alias));
        int jump = run(alternative, at + 1, 0, true);
        const Operation& op = op_at(jump);
        if (op.op == Op::Jump) {
          if (op.target <= jump || !inlined.empty()) return -1;
          if (end < 0)
            end = op.target;
          else if (!decoder_.same_target(end, op.target))
            return -1;
        } else {
          // 3.12+ copies a short success path that returns into each alternative.
          if (end >= 0) return -1;
          inlined.push_back(jump);
        }
        if (alternative.stack.size() < base) return -1;
        std::vector<SlotPtr> left(alternative.stack.begin() + static_cast<std::ptrdiff_t>(base),
                                  alternative.stack.end());
        for (const SlotPtr& slot : left) {
          if (slot->kind != Slot::Value && slot->kind != Slot::Merged &&
              slot->kind != Slot::Capture)
            return -1;
        }
        if (!captures.empty() && left.size() != captures[0].size()) return -1;
        alternatives.push_back(alias);
        captures.push_back(std::move(left));
        if (alternative.fails.empty()) {
          last_irrefutable = true;
          break;
        }
        int next = next_alternative(alternative, base, jump);
        if (next < 0) return -1;
        at = next;
      }
      if (alternatives.size() < 2) return -1;
      if (!inlined.empty()) {
        end = inlined.back();
        for (int copy : inlined) {
          if (!same_exit_code(copy, end)) return -1;
        }
      }
      if (!last_irrefutable) {
        // No alternative matched: POP_TOP the value, then fail (a jump, or the next case).
        if (op_at(at).op != Op::PopTop) return -1;
        state.fails.push_back({at, base});
      }
    } catch (const DecodeFailure&) {
      return -1;
    }
    merge_alternatives(state, base, alternatives, captures);
    return end;
  }

  // Where the failures of an or-pattern's alternative, which ends at `jump`, go on: the next
  // alternative; -1 when they go to different places or back.
  int next_alternative(const RunState& alternative, size_t base, int jump) const {
    int next = -1;
    for (const Fail& fail : alternative.fails) {
      if (fail.depth < base) return -1;
      int arrives = landing(fail.target, fail.depth - base);
      if (arrives < 0 || (next >= 0 && decoder_.resolve(arrives) != decoder_.resolve(next)))
        return -1;
      next = arrives;
    }
    next = decoder_.resolve(next);
    if (next <= jump) return -1;
    return next;
  }

  // The or-pattern read: its value (on top below `base`) gets the alternatives, and the captures
  // each alternative left are merged slot by slot.
  static void merge_alternatives(RunState& state, size_t base,
                                 const std::vector<PatternValuePtr>& alternatives,
                                 const std::vector<std::vector<SlotPtr>>& captures) {
    state.stack.resize(base);
    top(state)->value->alternatives = alternatives;
    for (size_t k = 0; k < captures[0].size(); ++k) {
      auto merged = std::make_shared<Slot>();
      merged->kind = Slot::Merged;
      for (const auto& alternative : captures) merged->merged.push_back(alternative[k]);
      state.stack.push_back(merged);
    }
  }

  // Whether the code at `a` and at `b` is the same up to the return or raise that ends both.
  bool same_exit_code(int a, int b) const {
    if (a == b) return true;
    for (int k = 0; k < 16; ++k) {
      const Operation& x = op_at(a + k);
      const Operation& y = op_at(b + k);
      if (x.op != y.op || x.arg != y.arg || x.text != y.text || x.kwnames != y.kwnames ||
          (x.target >= 0) != (y.target >= 0) || (x.target >= 0 && x.target - a != y.target - b))
        return false;
      if (x.op == Op::LoadConst || x.op == Op::ReturnConst) {
        if (!x.constant || !y.constant ||
            decoder_.constant(x.constant)->text != decoder_.constant(y.constant)->text)
          return false;
      }
      if (x.op == Op::ReturnValue || x.op == Op::ReturnConst || x.op == Op::RaiseVarargs ||
          x.op == Op::Reraise)
        return true;
    }
    return false;
  }

  // Whether `op` reaches below the floor: an or-pattern's alternative has ended and its copy of
  // the common success path (3.12+) begins.
  static bool below_floor(const Operation& op, const RunState& state) {
    size_t above = state.stack.size() - state.floor;
    switch (op.op) {
      case Op::PopTop:
      case Op::StoreName:
        return above == 0;
      case Op::Swap:
      case Op::Rotate:
      case Op::Copy:
        return op.arg > 0 && static_cast<size_t>(op.arg) > above;
      default:
        return false;
    }
  }

  // ---- building the pattern from what the code checked

  ExprPtr build(const PatternValuePtr& value, int depth) const {
    if (depth > 100) throw DecodeFailure("pattern nesting");
    const PatternValue& v = *value;
    int kinds = (v.sequence ? 1 : 0) + (v.mapping ? 1 : 0) + (v.cls ? 1 : 0) + (v.value ? 1 : 0) +
                (v.singleton ? 1 : 0) + (v.alternatives.empty() ? 0 : 1);
    if (kinds > 1) throw DecodeFailure("pattern with two shapes");
    ExprPtr core;
    if (!v.alternatives.empty()) {
      std::vector<ExprPtr> alternatives;
      for (const PatternValuePtr& alternative : v.alternatives)
        alternatives.push_back(build(alternative, depth + 1));
      core = make_expr(ExprKind::MatchOr, std::move(alternatives));
    } else if (v.sequence) {
      core = build_sequence(v, depth);
    } else if (v.mapping) {
      core = build_mapping(v, depth);
    } else if (v.cls) {
      core = build_class(v, depth);
    } else if (v.value) {
      core = build_value(v.value);
    } else if (v.singleton) {
      core = v.singleton;
    }
    if (!core && !v.keys && v.unpacked < 0 && v.front.empty() && v.back.empty() && !v.rest &&
        v.length < 0 && v.min_length < 0) {
      if (v.names.empty()) {
        if (v.pops < 1) throw DecodeFailure("pattern value never consumed");
        return make_name("_");
      }
      core = make_name(v.names[0]);
      for (size_t k = 1; k < v.names.size(); ++k)
        core = make_expr(ExprKind::MatchAs, {core}, v.names[k]);
      return core;
    }
    if (!core) throw DecodeFailure("pattern checks without a shape");
    for (const std::string& name : v.names) core = make_expr(ExprKind::MatchAs, {core}, name);
    return core;
  }

  static ExprPtr build_value(const ExprPtr& value) {
    if (is_dotted_name(value) && value->kind == ExprKind::Attribute) return value;
    if (value->kind != ExprKind::Constant || value->text.empty())
      throw DecodeFailure("value pattern of this kind");
    const std::string& text = value->text;
    if (text == "None" || text == "True" || text == "False" || text == "...")
      throw DecodeFailure("value pattern of this kind");
    return value;
  }

  // A capture of a starred item: `*name` or `*_`.
  ExprPtr build_star(const PatternValuePtr& value, int depth) const {
    ExprPtr inner = build(value, depth + 1);
    if (inner->kind != ExprKind::Name) throw DecodeFailure("starred pattern");
    return make_expr(ExprKind::Starred, {inner});
  }

  ExprPtr build_sequence(const PatternValue& v, int depth) const {
    if (v.keys || v.rest || !v.parts.empty()) throw DecodeFailure("sequence pattern shape");
    std::vector<ExprPtr> items;
    if (v.unpacked >= 0) {
      if (!v.front.empty() || !v.back.empty()) throw DecodeFailure("sequence pattern shape");
      int size = v.unpacked;
      if (v.star < 0 ? v.length != size || v.min_length >= 0
                     : v.length >= 0 || v.min_length != (size > 1 ? size - 1 : -1)) {
        throw DecodeFailure("sequence pattern length");
      }
      for (int k = 0; k < size; ++k) {
        const PatternValuePtr& item = v.items[static_cast<size_t>(k)];
        items.push_back(k == v.star ? build_star(item, depth) : build(item, depth + 1));
      }
      if (v.star >= 0 && items[static_cast<size_t>(v.star)]->args[0]->text == "_")
        throw DecodeFailure("sequence pattern star");
    } else if (!v.front.empty() || !v.back.empty()) {
      // A `*_` between the items: each item is read by index (wildcards are not read).
      if (v.length >= 0 || v.min_length < 1) throw DecodeFailure("sequence pattern length");
      int size = v.min_length + 1;
      int star = v.front.empty() ? 0 : v.front.rbegin()->first + 1;
      std::map<int, PatternValuePtr> by_position;
      for (const auto& [index, item] : v.front) {
        if (index < 0 || index >= star) throw DecodeFailure("sequence pattern index");
        by_position[index] = item;
      }
      for (const auto& [offset, item] : v.back) {
        int position = size - offset;
        if (position <= star || position >= size) throw DecodeFailure("sequence pattern index");
        by_position[position] = item;
      }
      for (int k = 0; k < size; ++k) {
        if (k == star) {
          items.push_back(make_expr(ExprKind::Starred, {make_name("_")}));
          continue;
        }
        auto found = by_position.find(k);
        ExprPtr item =
            found == by_position.end() ? make_name("_") : build(found->second, depth + 1);
        if (found != by_position.end() && item->kind == ExprKind::Name && item->text == "_")
          throw DecodeFailure("sequence pattern wildcard read");
        items.push_back(item);
      }
      if (v.pops < 1) throw DecodeFailure("sequence pattern not popped");
    } else {
      // Wildcards only: the checks, then POP_TOP.
      if (v.pops < 1) throw DecodeFailure("sequence pattern not popped");
      if (v.length >= 0 && v.min_length >= 0) throw DecodeFailure("sequence pattern length");
      int size = v.length >= 0 ? v.length : std::max(v.min_length, 0);
      if (size > 4096) throw DecodeFailure("sequence pattern length");
      for (int k = 0; k < size; ++k) items.push_back(make_name("_"));
      if (v.length < 0) items.push_back(make_expr(ExprKind::Starred, {make_name("_")}));
    }
    return make_expr(ExprKind::List, std::move(items));
  }

  ExprPtr build_mapping(const PatternValue& v, int depth) const {
    if (v.unpacked >= 0 || !v.front.empty() || !v.back.empty() || v.length >= 0)
      throw DecodeFailure("mapping pattern shape");
    std::vector<ExprPtr> items;
    if (!v.keys) {
      if (v.rest || v.min_length >= 0 || v.pops < 1) throw DecodeFailure("mapping pattern shape");
      return make_expr(ExprKind::Dict, {});
    }
    size_t count = v.keys->args.size();
    if (v.parts.size() > count || v.min_length != (count > 0 ? static_cast<int>(count) : -1))
      throw DecodeFailure("mapping pattern length");
    for (size_t k = 0; k < count; ++k) {
      const ExprPtr& key = v.keys->args[k];
      if (!(key->kind == ExprKind::Constant ||
            (key->kind == ExprKind::Attribute && is_dotted_name(key)))) {
        throw DecodeFailure("mapping pattern key");
      }
      if (key->kind == ExprKind::Constant && key->text.size() > 1 && key->text[0] == '(')
        throw DecodeFailure("mapping pattern key");
      items.push_back(key);
      bool read = k < v.parts.size() && v.parts[k];
      items.push_back(read ? build(v.parts[k], depth + 1) : make_name("_"));
    }
    if (v.rest) {
      ExprPtr rest = build(v.rest, depth + 1);
      if (rest->kind != ExprKind::Name || rest->text == "_") throw DecodeFailure("mapping rest");
      items.push_back(nullptr);
      items.push_back(rest);
    }
    return make_expr(ExprKind::Dict, std::move(items));
  }

  ExprPtr build_class(const PatternValue& v, int depth) const {
    if (v.unpacked >= 0 || !v.front.empty() || !v.back.empty() || v.length >= 0 ||
        v.min_length >= 0 || v.keys || v.rest) {
      throw DecodeFailure("class pattern shape");
    }
    size_t count = static_cast<size_t>(v.positional) + v.keywords.size();
    if (v.parts.size() > count) throw DecodeFailure("class pattern attributes");
    std::vector<ExprPtr> args{v.cls};
    for (size_t k = 0; k < count; ++k) {
      bool read = k < v.parts.size() && v.parts[k];
      ExprPtr sub = read ? build(v.parts[k], depth + 1) : make_name("_");
      if (k < static_cast<size_t>(v.positional)) {
        args.push_back(sub);
      } else {
        args.push_back(
            make_expr(ExprKind::Keyword, {sub}, v.keywords[k - static_cast<size_t>(v.positional)]));
      }
    }
    return make_expr(ExprKind::Call, std::move(args));
  }
};

namespace {

bool plain_pattern(const ExprPtr& pattern) {
  return pattern->kind == ExprKind::Name || pattern->kind == ExprKind::Constant ||
         pattern->kind == ExprKind::Attribute;
}

// Where the body of `shape` (from `begin`) ends: at the first of its failure chains before
// `fail_label`.
int failure_chain_start(const std::vector<Operation>& ops, const CaseShape& shape, int begin,
                        int fail_label) {
  // The failure chains (POP_TOPs, reached directly or by a jump) lie between body and label.
  int first = fail_label;
  for (const Fail& fail : shape.fails) {
    int at = fail.target;
    size_t pops = fail.depth;
    for (int hops = 0; hops < 256 && at >= 0 && static_cast<size_t>(at) < ops.size(); ++hops) {
      const Operation& op = ops[static_cast<size_t>(at)];
      if (op.op == Op::Jump) {
        at = op.target;
        continue;
      }
      if (at >= begin && at < first) first = at;
      if (pops == 0 || op.op != Op::PopTop) break;
      --pops;
      ++at;
    }
  }
  for (int m = first; m < fail_label; ++m) {
    Op kind = ops[static_cast<size_t>(m)].op;
    if (kind != Op::PopTop && kind != Op::Jump) throw DecodeFailure("match case failure path");
  }
  if (first < begin) throw DecodeFailure("match case body");
  return first;
}

// Whether the operations before `at` return None.
bool returns_none(const std::vector<Operation>& ops, int at) {
  if (at < 1 || static_cast<size_t>(at) > ops.size()) return false;
  const Operation& ret = ops[static_cast<size_t>(at) - 1];
  const Operation* value = &ret;
  if (ret.op == Op::ReturnValue && at >= 2) value = &ops[static_cast<size_t>(at) - 2];
  return (ret.op == Op::ReturnConst || (ret.op == Op::ReturnValue && value->op == Op::LoadConst)) &&
         value->constant && value->constant->kind == ObjectKind::None;
}

}  // namespace

// A match statement whose subject is on the stack and whose first case starts at i; -1 (nothing
// changed) when the operations at i are not one.
int CodeDecoder::decode_match(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  if (stack_.size() != statement_depth_ + 1 || expression_only_ > 0 ||
      role_ == CodeRole::Comprehension || !stack_.back() ||
      stack_.back()->kind == ExprKind::Internal || !MatchReader::may_start_case(ops, i)) {
    return -1;
  }
  MatchReader reader(*this);
  MatchLayout layout;
  layout.begin = i;
  layout.end = end;
  layout.exit = exit;

  // ---- read the cases
  if (!reader.read_cases(layout)) return -1;
  const std::vector<CaseShape>& cases = layout.cases;
  bool refutable = false;
  for (size_t k = 0; k < cases.size(); ++k) refutable |= cases[k].fail_label >= 0;
  // One case whose pattern cannot fail, or is a plain test, reads as well as an assignment or if.
  if (!refutable ||
      (cases.size() == 1 &&
       (cases[0].fails.empty() || (!cases[0].needs_match && plain_pattern(cases[0].pattern)))))
    return -1;

  // ---- from here on this is a match statement
  layout.subject = pop();
  place_match_bodies(layout);
  const CaseShape& last_case = cases.back();
  layout.last_fail = layout.copied_exit ? -1 : normalize_match_target(layout, last_case.fail_label);
  return emit_match(layout);
}

// `at` (-1: none), a target outside the statement's region read as the region's end: the exit is
// the only place outside the statement may go.
int CodeDecoder::normalize_match_target(MatchLayout& layout, int at) const {
  if (at >= 0 && layout.outside(at)) {
    if (!same_target(at, layout.exit)) throw DecodeFailure("match statement leaves its region");
    layout.ends_outside = true;
    return layout.end;
  }
  return at;
}

// Where each case's body lies: after its pattern, guard and POP_TOP of the subject, up to its
// failure chain; and where the bodies jump at their ends.
void CodeDecoder::place_match_bodies(MatchLayout& layout) const {
  layout.places.resize(layout.cases.size());
  for (size_t k = 0; k < layout.cases.size(); ++k) {
    const CaseShape& shape = layout.cases[k];
    int guard = layout.guard_ends[k];
    int begin = guard >= 0 ? guard : shape.pattern_end;
    if (shape.copied) ++begin;  // the POP_TOP of the subject
    layout.places[k].body_begin = begin;
    int fail_label = normalize_match_target(layout, shape.fail_label);
    if (k + 1 == layout.cases.size() && fail_label >= 0 && fail_label < begin) {
      // The last case fails to a copy of the short block that returns after the statement
      // (compilers copy small exit blocks), placed before the body, which runs to the end of the
      // code; the block is decoded again after the statement.
      read_match_exit_copy(layout, fail_label, begin);
      fail_label = -1;
    }
    if (fail_label >= 0) {
      int first = failure_chain_start(lifted_.ops, shape, begin, fail_label);
      layout.places[k].body_end = first;
      note_match_body_jump(layout, begin, first);
    }
  }
}

// The copy of the exit block at `fail_label`, before the last body (which begins at `begin`).
void CodeDecoder::read_match_exit_copy(MatchLayout& layout, int fail_label, int begin) const {
  const auto& ops = lifted_.ops;
  int at = fail_label;
  while (static_cast<size_t>(at) < ops.size() && at < fail_label + 6) {
    Op kind = ops[static_cast<size_t>(at)].op;
    if (kind != Op::LoadConst && kind != Op::LoadName && kind != Op::LoadAttr &&
        kind != Op::BuildTuple)
      break;
    ++at;
  }
  bool exit_block =
      static_cast<size_t>(at) < ops.size() && (ops[static_cast<size_t>(at)].op == Op::ReturnValue ||
                                               ops[static_cast<size_t>(at)].op == Op::ReturnConst);
  if (!exit_block || at >= begin || static_cast<size_t>(layout.end) != ops.size() ||
      role_ == CodeRole::Module)
    throw DecodeFailure("match case fails before its body");
  layout.exit_copy_begin = fail_label;
  layout.exit_copy_end = at + 1;
  layout.copied_exit = true;
}

// The jump that ends the body from `begin` to `first`, if it says where the statement ends.
void CodeDecoder::note_match_body_jump(MatchLayout& layout, int begin, int first) const {
  const Operation& last = lifted_.ops[static_cast<size_t>(std::max(first - 1, 0))];
  // A body ending in a jump forward inside the region says where the statement ends; one
  // leaving the region may be the end too (the statement ends its region) or a break or
  // continue of an enclosing loop.
  if (first > begin && last.op == Op::Jump &&
      (last.target > first || layout.outside(last.target))) {
    if (layout.outside(last.target)) {
      layout.leaving.push_back(last.target);
    } else if (layout.inside_target < 0) {
      layout.inside_target = last.target;
    } else if (!same_target(last.target, layout.inside_target)) {
      throw DecodeFailure("match bodies end in different places");
    }
  }
}

// Where the statement ends. Bodies jumping forward inside the region say so; otherwise a body
// leaving the region (to the enclosing loop's head, say) is either at the end of the region or
// a continue/break, the last case then failing to the end: both readings are tried.
int CodeDecoder::choose_match_end(MatchLayout& layout, bool prefer_failure) const {
  const int end = layout.end;
  const int last_fail = layout.last_fail;
  int chosen = layout.inside_target;
  layout.ends_outside = false;
  if (chosen < 0 && prefer_failure && last_fail >= 0) chosen = last_fail;
  for (int target : layout.leaving) {
    if ((chosen < 0 || chosen == end) && same_target(target, layout.exit)) {
      chosen = normalize_match_target(layout, target);  // the statement ends its region
      continue;
    }
    bool loop_jump = !loops_.empty() && (same_target(target, loops_.back().break_target) ||
                                         same_target(target, loops_.back().continue_target));
    if (chosen >= 0 && loop_jump) continue;
    target = normalize_match_target(layout, target);
    if (chosen < 0) {
      chosen = target;
    } else if (!same_target(target, chosen)) {
      throw DecodeFailure("match bodies end in different places");
    }
  }
  if (chosen < 0 && role_ == CodeRole::Module) {
    // The module's final `return None` copied into the bodies: the statement runs to the end.
    for (const MatchLayout::Place& place : layout.places) {
      if (place.body_end > place.body_begin && returns_none(lifted_.ops, place.body_end))
        chosen = end;
    }
  }
  if (chosen < 0) chosen = last_fail >= 0 ? last_fail : end;
  if (chosen > end || (last_fail >= 0 && last_fail > chosen))
    throw DecodeFailure("match statement layout");
  return chosen;
}

// Chooses where the statement ends, builds it (reading the other end when the first reading
// fails) and emits it, then the copy of the exit block; returns the end.
int CodeDecoder::emit_match(MatchLayout& layout) {
  int other_end =
      layout.inside_target < 0 && layout.last_fail >= 0 ? choose_match_end(layout, true) : -1;
  int match_end = choose_match_end(layout, false);  // last: ends_outside is this reading's
  if (other_end < 0) other_end = match_end;
  StmtPtr stmt;
  if (other_end == match_end) {
    stmt = build_match_statement(layout, match_end);
  } else {
    // A failed reading leaves the decoder mid-region: everything it may change is restored.
    Body* saved_out = out_;
    std::vector<ExprPtr> saved_stack = stack_;
    size_t saved_depth = statement_depth_;
    int saved_expression_only = expression_only_;
    std::vector<LoopContext> saved_loops = loops_;
    std::vector<int> saved_entries = open_loop_entries_;
    std::vector<bool> saved_opened = opened_try_;
    std::vector<bool> saved_consumed = consumed_;
    ExprPtr saved_target = captured_target_;
    std::string saved_handler = handler_name_;
    bool saved_take = take_region_value_;
    bool saved_keep = keep_region_stack_;
    bool saved_mid = mid_expression_try_;
    int saved_limit = region_limit_;
    try {
      stmt = build_match_statement(layout, match_end);
    } catch (const DecodeFailure&) {
      out_ = saved_out;
      stack_ = saved_stack;
      statement_depth_ = saved_depth;
      expression_only_ = saved_expression_only;
      loops_ = saved_loops;
      open_loop_entries_ = saved_entries;
      opened_try_ = saved_opened;
      consumed_ = saved_consumed;
      captured_target_ = saved_target;
      handler_name_ = saved_handler;
      take_region_value_ = saved_take;
      keep_region_stack_ = saved_keep;
      mid_expression_try_ = saved_mid;
      region_limit_ = saved_limit;
      match_end = other_end;
      choose_match_end(layout, true);  // its side effect on ends_outside
      stmt = build_match_statement(layout, match_end);
    }
  }
  emit(stmt);
  if (layout.copied_exit) {
    for (StmtPtr& after : decode_range(layout.exit_copy_begin, layout.exit_copy_end, layout.exit))
      emit(after);
  }
  return match_end;
}

// Whether case k's guard is the `if` opening its body: compiler_match_inner compiles a guard with
// compiler_jump_if to the case's failure, and the last case (no copy of the subject, no POP_TOP
// before its body) whose failure is the statement's end jumps there from a body's `if` alike. The
// guard takes the pattern's line; a test on a later line is the body's own `if` statement.
bool CodeDecoder::guard_opens_last_body(const MatchLayout& layout, size_t k, int match_end) const {
  const auto& ops = lifted_.ops;
  const CaseShape& shape = layout.cases[k];
  int guard_end = layout.guard_ends[k];
  if (k + 1 != layout.cases.size() || guard_end < 0 || shape.copied || shape.fails.empty() ||
      layout.copied_exit || layout.last_fail < match_end || shape.pattern_end <= layout.begin) {
    return false;
  }
  // (A trailing `case _:` leaves a NOP on its line where the case fails to, dropped by lift: the
  // guard fails to that case, which reads as the code after the statement.)
  if (shape.fail_label >= 0 && static_cast<size_t>(shape.fail_label) < ops.size() &&
      ops[static_cast<size_t>(shape.fail_label)].nop_line >= 0)
    return false;
  int case_begin = k == 0 ? layout.begin : layout.cases[k - 1].fail_label;
  int pattern_line = -1;  // the last line the pattern's code carries (its POP_TOPs carry none)
  for (int at = shape.pattern_end - 1; at >= case_begin && pattern_line < 0; --at)
    pattern_line = ops[static_cast<size_t>(at)].line;
  int test_line = ops[static_cast<size_t>(shape.pattern_end)].line;
  return pattern_line >= 0 && test_line > pattern_line;
}

// The statement for the end `match_end`: each case's pattern, guard and body, then a trailing
// `case _:`.
StmtPtr CodeDecoder::build_match_statement(const MatchLayout& layout, int match_end) {
  const auto& ops = lifted_.ops;
  const int end = layout.end;
  bool leaves = match_end == end && layout.ends_outside;
  int body_exit = leaves ? layout.exit : match_end;
  // At module level the final `return None` is copied into each body that falls off the end.
  auto drop_module_return = [&](Body& body) {
    if (role_ != CodeRole::Module || match_end < end || body.empty()) return;
    const Stmt& last = *body.back();
    if (last.kind == StmtKind::Return && last.exprs.size() == 1 && last.exprs[0] &&
        last.exprs[0]->kind == ExprKind::Constant && last.exprs[0]->text == "None") {
      body.pop_back();
    }
  };
  auto stmt = make_stmt(StmtKind::Match, {layout.subject});
  for (size_t k = 0; k < layout.cases.size(); ++k) {
    const CaseShape& shape = layout.cases[k];
    const MatchLayout::Place& place = layout.places[k];
    int guard_end = layout.guard_ends[k];
    int body_begin = place.body_begin;
    if (guard_opens_last_body(layout, k, match_end)) {
      guard_end = -1;
      body_begin = shape.pattern_end;
    }
    ExprPtr guard;
    if (guard_end >= 0) {
      std::vector<ConditionItem> items = collect_conditions_range(shape.pattern_end, guard_end);
      if (items.empty() || stack_.size() != statement_depth_) throw DecodeFailure("match guard");
      guard = build_condition(items, 0, items.size(), shape.fail_label, false, guard_end);
    }
    int body_end = place.body_end >= 0 ? place.body_end : match_end;
    if (body_end < body_begin) throw DecodeFailure("match case body");
    stmt->exprs.push_back(shape.pattern);
    stmt->exprs.push_back(guard);
    // 3.10 compiles `continue` as a jump back, falling off the statement as a jump forward to
    // the loop's own jump back: a body ending in a jump back is a `continue`.
    int exit_k = body_exit;
    if (profile_.case_continue_jumps_back && !loops_.empty() && body_end < match_end &&
        body_end > 0) {
      const Operation& last = ops[static_cast<size_t>(body_end) - 1];
      if (last.op == Op::Jump && last.target < body_end &&
          resolve(last.target) == resolve(loops_.back().continue_target)) {
        exit_k = match_end;
      }
    }
    stmt->bodies.push_back(decode_range(body_begin, body_end, exit_k));
    drop_module_return(stmt->bodies.back());
  }
  // A trailing `case _:` is compiled as the code its last case fails to.
  if (layout.last_fail >= 0 && layout.last_fail < match_end) {
    stmt->exprs.push_back(make_name("_"));
    stmt->exprs.push_back(nullptr);
    stmt->bodies.push_back(decode_range(layout.last_fail, match_end, body_exit));
    drop_module_return(stmt->bodies.back());
  }
  return stmt;
}

}  // namespace glassbox::decompiler
