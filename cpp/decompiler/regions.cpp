// Region fallbacks: a code object whose decode failed as a whole is read again statement by
// statement at its top level. A statement that cannot be structured becomes a marked fallback for
// its own region (the operations only it reaches); the statements around it are still source.
//
// What the output does: the statements before the region run as in the original, then the
// region raises. Everything the original reaches only through the region comes after that raise,
// so it never runs in the output: it is there to be read. (A generator whose every `yield` lies
// in the region stays one: decode_by_regions keeps a `yield` after the raise.)
#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "decompiler/decoder.hpp"

namespace glassbox::decompiler {

namespace {

// The blocks reachable from `first` without entering `stop` (-1: none), following every edge
// that transfers control (exceptions included). Refused (false) where they reach back into the
// code before `from` (the statements already read, or the start of `first` above `from`) or
// where a block of theirs is entered from outside them: then they are not one region.
bool closed_region(const ControlFlowGraph& cfg, int first, int from, int stop,
                   std::vector<bool>& members) {
  members.assign(cfg.blocks.size(), false);
  members[static_cast<size_t>(first)] = true;
  std::deque<int> work{first};
  while (!work.empty()) {
    int b = work.front();
    work.pop_front();
    for (const Edge& edge : cfg.blocks[static_cast<size_t>(b)].successors) {
      if (!transfers_control(edge.kind) || edge.block == stop) continue;
      const BasicBlock& next = cfg.blocks[static_cast<size_t>(edge.block)];
      if (next.start < from) return false;
      if (members[static_cast<size_t>(edge.block)]) continue;
      members[static_cast<size_t>(edge.block)] = true;
      work.push_back(edge.block);
    }
  }
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    if (!members[b] || static_cast<int>(b) == first) continue;
    for (const Edge& edge : cfg.blocks[b].predecessors) {
      bool counts = transfers_control(edge.kind) && cfg.reachable[static_cast<size_t>(edge.block)];
      if (counts && !members[static_cast<size_t>(edge.block)]) return false;
    }
  }
  return true;
}

// Whether a statement of the source may start at operation `k`: a line starts there with an
// operation a statement may start with.
bool may_start_top_statement(const std::vector<Operation>& ops, int k) {
  const Operation& op = ops[static_cast<size_t>(k)];
  return op.line >= 0 && may_start_statement(op.op);
}

constexpr int kMaxRegionTries = 256;  // candidate ends tried before the region takes the rest

}  // namespace

// Where the region of the failed statement at `i` ends: the first block start after it that
// closes a region (see closed_region), or `count` (the rest of the code). Operations of the
// region placed after that end (cold blocks) are marked consumed, so the statements after the
// region do not read them.
int CodeDecoder::fallback_region_end(const ControlFlowGraph& cfg, int i, int count) {
  const auto& ops = lifted_.ops;
  int first = cfg.block_of[static_cast<size_t>(i)];
  std::vector<bool> members;
  int tries = 0;
  for (size_t b = static_cast<size_t>(first) + 1; b < cfg.blocks.size(); ++b) {
    int j = cfg.blocks[b].start;
    if (j <= i || j >= count || consumed_[static_cast<size_t>(j)]) continue;
    if (!may_start_top_statement(ops, j)) continue;
    if (++tries > kMaxRegionTries) break;
    if (!closed_region(cfg, first, i, static_cast<int>(b), members)) continue;
    for (size_t m = 0; m < members.size(); ++m) {
      if (!members[m] || cfg.blocks[m].start < j) continue;
      mark_consumed(cfg.blocks[m].start, cfg.blocks[m].end);
    }
    return j;
  }
  return count;
}

// Puts back the decoder's state between top-level statements, as a failure left it mid-way.
void CodeDecoder::reset_statement_state(Body& body) {
  out_ = &body;
  stack_.clear();
  loops_.clear();
  statement_depth_ = 0;
  evaluate_depth_ = 0;
  expression_only_ = 0;
  soft_statement_ = false;
  statement_refused_ = false;
  keep_region_stack_ = false;
  take_region_value_ = false;
  mid_expression_try_ = false;
  clause_tail_ = -1;
  clause_tail_length_ = 0;
  if_expression_join_ = {-1, -1};
  captured_target_ = nullptr;
  handler_name_.clear();
}

// The marked fallback of operations [begin, end): the source lines they came from and why.
StmtPtr CodeDecoder::region_fallback(int begin, int end, const std::string& reason) const {
  const auto& ops = lifted_.ops;
  int first = line_at(ops, begin), last = first;
  for (int k = begin; k < end; ++k) last = std::max(last, ops[static_cast<size_t>(k)].line);
  std::string where = first < 0 ? "a region" : "line " + std::to_string(first);
  if (last > first) where = "lines " + std::to_string(first) + "-" + std::to_string(last);
  auto stmt = make_stmt(StmtKind::Fallback);
  stmt->text = "glassbox: could not reconstruct " + where + " of " + code_.qualname + ": " +
               reason + "\n(what follows is reached only through this region: it never runs)\n";
  return stmt;
}

// The top level of the code, statement by statement; a statement that fails becomes the marked
// fallback of its region (merged with one just before it). Records each in the session.
Body CodeDecoder::decode_with_region_fallbacks(int count) {
  Body body;
  out_ = &body;
  Restore<int> limit_guard(region_limit_);
  region_limit_ = count;
  int i = 0, fallback_begin = -1;
  StmtPtr fallback;
  std::optional<ControlFlowGraph> cfg;  // built at the first failure, for every region
  while (i < count) {
    size_t emitted = body.size();
    try {
      i = decode_statement(i, count, count);
      continue;
    } catch (const DecodeFailure& failure) {
      body.resize(emitted);
      reset_statement_state(body);
      if (!cfg) cfg = build_cfg(lifted_);
      int end = fallback_region_end(*cfg, i, count);
      bool merge = fallback && !body.empty() && body.back() == fallback;
      if (merge) body.pop_back();
      if (!merge) fallback_begin = i;
      fallback = region_fallback(fallback_begin, end, failure.what());
      emit(fallback);
      int line = line_at(lifted_.ops, fallback_begin);
      if (!merge) session_.failures.push_back({code_.qualname, line, failure.what()});
      i = end;
    }
  }
  out_ = nullptr;
  if (!fallback) throw DecodeFailure("no region failed on its own");
  return body;
}

}  // namespace glassbox::decompiler
