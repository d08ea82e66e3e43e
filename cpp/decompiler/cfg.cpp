#include "decompiler/cfg.hpp"

#include <algorithm>

#include "decompiler/dominators.hpp"

namespace glassbox::decompiler {

namespace {

// Per operation: reached without an exception. Handler code (placed inline in 3.11, after the
// function's code in 3.12+) is not, and its jumps back into the code are not loops; 3.10's
// handler code is, through the block push that names it.
std::vector<char> normally_reachable(const ControlFlowGraph& cfg, size_t count) {
  std::vector<char> blocks =
      reachable_blocks(cfg, [](EdgeKind kind) { return kind != EdgeKind::Exception; });
  std::vector<char> seen(count, false);
  for (size_t i = 0; i < count; ++i) seen[i] = blocks[static_cast<size_t>(cfg.block_of[i])];
  return seen;
}

// Loop heads: the last jump back to each natural loop's head from its latches, in code reached
// without raising (handler code's jumps back are read in analyze_flow).
void mark_loop_heads(const ControlFlowGraph& cfg, const std::vector<Operation>& ops,
                     const std::vector<char>& reachable, std::vector<int>& last) {
  auto jumps_back = [&](size_t i) {
    return reachable[i] && ops[i].target >= 0 && ops[i].target <= static_cast<int>(i) &&
           (ops[i].op == Op::Jump || ops[i].op == Op::JumpIf);
  };
  bool any = false;
  for (size_t i = 0; i < ops.size() && !any; ++i) any = jumps_back(i);
  if (!any) return;  // (most code objects: no loop to find)
  Dominators dom = find_dominators(cfg, PostDominators::Skip);
  for (const Loop& loop : find_loops(cfg, dom)) {
    int head = cfg.blocks[static_cast<size_t>(loop.head)].start;
    for (int latch : loop.latches) {
      int source = cfg.blocks[static_cast<size_t>(latch)].end - 1;
      if (!jumps_back(static_cast<size_t>(source)) ||
          ops[static_cast<size_t>(source)].target != head)
        continue;
      last[static_cast<size_t>(head)] = std::max(last[static_cast<size_t>(head)], source);
    }
  }
}

// The handler of the table row covering `index`, or -1.
int covering(const std::vector<Handler>& rows, int index) {
  for (const Handler& row : rows) {
    if (row.start <= index && index < row.end) return row.target;
  }
  return -1;
}

}  // namespace

FlowInfo analyze_flow(const LiftedCode& code) {
  FlowInfo flow;
  const auto& ops = code.ops;
  flow.last_backward_source.assign(ops.size() + 1, -1);
  ControlFlowGraph cfg = build_cfg(code);
  flow.reachable = normally_reachable(cfg, ops.size());
  mark_loop_heads(cfg, ops, flow.reachable, flow.last_backward_source);
  // A jump back from handler code to (or before) the start of the body it protects closes a
  // loop around the try statement (`while True: try: ... break ... except: ...`, where the
  // normal path left through a copied return); jumps back to a join after the body do not.
  // (3.11: or the bottom test of a while loop, conditional, that only the clauses reach: the
  // try's body never falls off its end.)
  for (size_t i = 0; i < ops.size(); ++i) {
    int target = ops[i].target;
    bool jumps = ops[i].op == Op::Jump || ops[i].op == Op::JumpIf;
    if (flow.reachable[i] || !jumps || target < 0 || target > static_cast<int>(i)) continue;
    // The rows whose handler blocks hold i: each target before i whose cleanup (the row covering
    // the handler's start, whose block ends the handler's code) is not before i either; a
    // handler nested in an except clause lies inside the enclosing one's block too, and copies
    // that clause's exit: a jump to the enclosing statement's join is no loop. (Without one, the
    // nearest: a join jump placed after the last handler's cleanup.)
    std::vector<const Handler*> owners;
    const Handler* nearest = nullptr;
    for (const Handler& row : code.handlers) {
      if (row.target <= static_cast<int>(i) && static_cast<size_t>(row.target) < ops.size() &&
          ops[static_cast<size_t>(row.target)].op == Op::PushExcInfo) {
        if (!nearest || row.target > nearest->target) nearest = &row;
        int cleanup = covering(code.handlers, row.target);
        if (cleanup >= 0 && cleanup < static_cast<int>(i)) continue;
        owners.push_back(&row);
      }
    }
    if (owners.empty() && nearest) owners.push_back(nearest);
    if (owners.empty()) continue;
    // (A target inside the handler block is a loop of the handler's own code.)
    bool loop = true;
    for (const Handler* owner : owners) {
      int body_start = owner->start;
      for (const Handler& row : code.handlers) {
        if (row.target == owner->target) body_start = std::min(body_start, row.start);
      }
      loop &= target <= body_start || target >= owner->target;
    }
    if (loop && flow.last_backward_source[static_cast<size_t>(target)] < static_cast<int>(i)) {
      flow.last_backward_source[static_cast<size_t>(target)] = static_cast<int>(i);
    }
  }
  flow.regions = handler_regions(code.handlers);
  // A try statement whose body starts with another try: the outer rows begin after the inner
  // body, but the outer statement starts where the inner one does, since the inner handler is
  // inside the outer region.
  for (bool changed = true; changed;) {
    changed = false;
    for (HandlerRegion& outer : flow.regions) {
      if (ops[static_cast<size_t>(outer.target)].op != Op::PushExcInfo) continue;
      for (const HandlerRegion& inner : flow.regions) {
        if (&inner == &outer || inner.start >= outer.start) continue;
        if (ops[static_cast<size_t>(inner.target)].op != Op::PushExcInfo) continue;
        // 3.12+: the table names only the innermost handler, so an outer finally covers the
        // inner try's handlers (from its first clause on) and their cleanup, not its body.
        int cleanup = covering(code.handlers, inner.target);
        // (The inner handler's cleanup is the outer statement's too: 3.12+ places a try's
        // handler after the code, among the cold code of a next try's nested statements.)
        bool handler_inside = inner.target >= outer.start && inner.target < outer.end &&
                              (cleanup < 0 || covering(code.handlers, cleanup) == outer.target);
        bool adjacent = inner.end >= outer.start - 1;
        bool cleanup_inside = cleanup >= 0 && covering(code.handlers, cleanup) == outer.target &&
                              inner.target < outer.start;
        if ((handler_inside && adjacent) || cleanup_inside) {
          outer.start = inner.start;
          changed = true;
        }
      }
    }
  }
  flow.rows = code.handlers;
  return flow;
}

const HandlerRegion* FlowInfo::outermost_region_at(int start,
                                                   const std::vector<bool>& opened) const {
  const HandlerRegion* best = nullptr;
  for (const HandlerRegion& region : regions) {
    if (region.start != start) continue;
    if (region.target >= 0 && static_cast<size_t>(region.target) < opened.size() &&
        opened[static_cast<size_t>(region.target)]) {
      continue;
    }
    if (!best || region.end > best->end) best = &region;
  }
  return best;
}

const HandlerRegion* FlowInfo::region_for_target(int target) const {
  for (const HandlerRegion& region : regions) {
    if (region.target == target) return &region;
  }
  return nullptr;
}

int FlowInfo::handler_covering(int index) const { return covering(rows, index); }

}  // namespace glassbox::decompiler
