// The `normalize` pass (normalize.hpp).
#include "decompiler/normalize.hpp"

namespace glassbox::decompiler {

namespace {

constexpr size_t kMaxExitBlock = 8;  // the exit blocks the compiler copies are short

// Per operation, the length of the exit block starting there: no jump, no line after its first
// operation, ending in a return within kMaxExitBlock operations; 0 where there is none. Read
// backwards: a block is its first operation and the block after it.
std::vector<int> exit_block_lengths(const std::vector<Operation>& ops) {
  std::vector<int> length(ops.size() + 1, 0);
  for (size_t k = ops.size(); k-- > 0;) {
    Op op = ops[k].op;
    if (op == Op::ReturnValue || op == Op::ReturnConst) {
      length[k] = 1;
    } else if (!is_jump(op) && k + 1 < ops.size() && ops[k + 1].line < 0) {
      int next = length[k + 1];
      length[k] = next > 0 && next < static_cast<int>(kMaxExitBlock) ? next + 1 : 0;
    }
  }
  return length;
}

// Whether the block at `at` is a copy of the one at `exit` (`length` operations): the same
// operations under the same handlers, with no line after its first operation.
bool is_exit_copy(const std::vector<Operation>& ops, const FlowInfo& flow, int exit, int at,
                  int length) {
  if (!same_operations(ops, at, exit, length)) return false;
  for (int k = 0; k < length; ++k) {
    if (flow.handler_covering(at + k) != flow.handler_covering(exit + k)) return false;
    if (k > 0 && ops[static_cast<size_t>(at + k)].line >= 0) return false;
  }
  return true;
}

// extend_block / inline_small_exit_blocks: the short runs ending in a return or raise, read
// backwards (a run is its first operation and the run after it, up to kMaxExitBlock long).
void read_exit_runs(const LiftedCode& code, Normalized& out) {
  const auto& ops = code.ops;
  for (size_t k = ops.size(); k-- > 0;) {
    Op op = ops[k].op;
    if (op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs) {
      out.exit_run[k] = 1;
    } else if (!is_jump(op) && op != Op::Reraise && op != Op::PopExcept) {
      int next = out.exit_run[k + 1];
      out.exit_run[k] = next > 0 && next < static_cast<int>(kMaxExitBlock) ? next + 1 : 0;
    }
  }
}

// duplicate_exits_without_lineno: each exit block followed by copies of itself, and the copies,
// join one chain.
void read_exit_copies(const LiftedCode& code, const FlowInfo& flow, Normalized& out) {
  const auto& ops = code.ops;
  int size = static_cast<int>(ops.size());
  std::vector<int> lengths = exit_block_lengths(ops);
  for (int exit = 0; exit < size; ++exit) {
    if (out.exit_chain[static_cast<size_t>(exit)] >= 0) continue;
    int length = lengths[static_cast<size_t>(exit)];
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
  out.exit_run.assign(code.ops.size() + 1, 0);
  read_exit_runs(code, out);
  if (profile.copies_exits_per_jump) {
    out.exit_chain.assign(code.ops.size() + 1, -1);
    out.exit_length.assign(code.ops.size() + 1, 0);
    read_exit_copies(code, flow, out);
  }
  return out;
}

}  // namespace glassbox::decompiler
