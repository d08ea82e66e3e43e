// The `normalize` pass (normalize.hpp).
#include "decompiler/normalize.hpp"

namespace glassbox::decompiler {

namespace {

constexpr size_t kMaxExitBlock = 8;  // the exit blocks the compiler copies are short

// The length of the exit block starting at `exit`: no jump, no line after its first operation,
// ending in a return within kMaxExitBlock operations; 0 if there is none.
int exit_block_length(const std::vector<Operation>& ops, int exit) {
  int size = static_cast<int>(ops.size());
  for (int k = exit; k < size && k < exit + static_cast<int>(kMaxExitBlock); ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    if (is_jump(op) || (k > exit && ops[static_cast<size_t>(k)].line >= 0)) return 0;
    if (op == Op::ReturnValue || op == Op::ReturnConst) return k - exit + 1;
  }
  return 0;
}

// Whether the block at `at` is a copy of the one at `exit` (`length` operations): the same
// operations under the same handlers, with no line after its first operation.
bool is_exit_copy(const std::vector<Operation>& ops, const FlowInfo& flow, int exit, int at,
                  int length) {
  if (at + length > static_cast<int>(ops.size()) || !same_operations(ops, at, exit, length))
    return false;
  for (int k = 0; k < length; ++k) {
    if (flow.handler_covering(at + k) != flow.handler_covering(exit + k)) return false;
    if (k > 0 && ops[static_cast<size_t>(at + k)].line >= 0) return false;
  }
  return true;
}

// extend_block / inline_small_exit_blocks: the short runs ending in a return or raise.
void read_exit_runs(const LiftedCode& code, Normalized& out) {
  const auto& ops = code.ops;
  for (size_t k = 0; k < ops.size(); ++k) {
    for (size_t n = 0; n < kMaxExitBlock && k + n < ops.size(); ++n) {
      Op op = ops[k + n].op;
      if (op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs) {
        out.exit_run[k] = static_cast<int>(n) + 1;
        break;
      }
      if (is_jump(op) || op == Op::Reraise || op == Op::PopExcept) break;
    }
  }
}

// duplicate_exits_without_lineno: each exit block followed by copies of itself, and the copies,
// join one chain.
void read_exit_copies(const LiftedCode& code, const FlowInfo& flow, Normalized& out) {
  const auto& ops = code.ops;
  int size = static_cast<int>(ops.size());
  for (int exit = 0; exit < size; ++exit) {
    if (out.exit_chain[static_cast<size_t>(exit)] >= 0) continue;
    int length = exit_block_length(ops, exit);
    if (length == 0 || !is_exit_copy(ops, flow, exit, exit + length, length)) continue;
    out.exit_length[static_cast<size_t>(exit)] = length;
    for (int at = exit; at == exit || is_exit_copy(ops, flow, exit, at, length); at += length) {
      out.exit_chain[static_cast<size_t>(at)] = exit;
    }
  }
}

}  // namespace

bool same_operations(const std::vector<Operation>& ops, int a, int b, int n) {
  if (a < 0 || b < 0 || n < 0 || static_cast<size_t>(a + n) > ops.size() ||
      static_cast<size_t>(b + n) > ops.size()) {
    return false;
  }
  for (int k = 0; k < n; ++k) {
    const Operation& x = ops[static_cast<size_t>(a + k)];
    const Operation& y = ops[static_cast<size_t>(b + k)];
    if (x.op != y.op || x.arg != y.arg || x.text != y.text || x.op == Op::Jump ||
        x.op == Op::JumpIf || x.constant != y.constant) {
      return false;
    }
  }
  return true;
}

Normalized normalize(const LiftedCode& code, const FlowInfo& flow, const CompilerProfile& profile) {
  Normalized out;
  out.exit_chain.assign(code.ops.size() + 1, -1);
  out.exit_length.assign(code.ops.size() + 1, 0);
  out.exit_run.assign(code.ops.size() + 1, 0);
  read_exit_runs(code, out);
  if (profile.copies_exits_per_jump) read_exit_copies(code, flow, out);
  return out;
}

}  // namespace glassbox::decompiler
