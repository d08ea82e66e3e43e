#include "decompiler/blocks.hpp"

#include <algorithm>
#include <utility>

namespace glassbox::decompiler {

std::vector<HandlerRegion> handler_regions(const std::vector<Handler>& rows) {
  std::vector<HandlerRegion> regions;
  for (const Handler& row : rows) {
    if (row.start < row.end) regions.push_back({row.target, row.start, row.end, row.depth});
  }
  // (Stable: a handler's depth is that of its first row.)
  std::stable_sort(
      regions.begin(), regions.end(),
      [](const HandlerRegion& a, const HandlerRegion& b) { return a.target < b.target; });
  size_t kept = 0;
  for (const HandlerRegion& region : regions) {
    if (kept > 0 && regions[kept - 1].target == region.target) {
      regions[kept - 1].start = std::min(regions[kept - 1].start, region.start);
      regions[kept - 1].end = std::max(regions[kept - 1].end, region.end);
    } else {
      regions[kept++] = region;
    }
  }
  regions.resize(kept);
  return regions;
}

namespace {

bool is_block_push(Op op) { return op == Op::SetupFinally || op == Op::SetupWith; }

// Per operation: the handler of the innermost open block push, or -1; empty without pushes.
// The stack of open blocks flows along the normal control flow; a push's handler starts with
// the stack below the push.
std::vector<int> label_block_pushes(const std::vector<Operation>& ops) {
  size_t count = ops.size();
  bool any_push = false;
  for (const Operation& op : ops) any_push |= is_block_push(op.op);
  if (!any_push) return {};
  std::vector<int> label(count, -1);
  std::vector<char> seen(count, false);
  std::vector<std::pair<int, std::vector<int>>> work{{0, {}}};
  while (!work.empty()) {
    auto [i, stack] = std::move(work.back());
    work.pop_back();
    for (; i >= 0 && static_cast<size_t>(i) < count && !seen[static_cast<size_t>(i)]; ++i) {
      const Operation& op = ops[static_cast<size_t>(i)];
      seen[static_cast<size_t>(i)] = true;
      if (!stack.empty()) label[static_cast<size_t>(i)] = stack.back();
      if (op.target >= 0) work.push_back({op.target, stack});
      if (is_block_push(op.op) && op.target >= 0) {
        stack.push_back(op.target);
      } else if (op.op == Op::PopBlock && !stack.empty()) {
        stack.pop_back();
      }
      if (!falls_through(op.op)) break;
    }
  }
  return label;
}

// The table rows, then a row per run of operations that no table row covers and that a block
// push labels.
std::vector<Handler> exception_rows(const LiftedCode& code) {
  std::vector<Handler> rows = code.handlers;
  std::vector<int> label = label_block_pushes(code.ops);
  if (label.empty()) return rows;
  std::vector<char> covered(code.ops.size(), false);
  for (const Handler& row : code.handlers) {
    for (int k = std::max(row.start, 0); k < row.end && static_cast<size_t>(k) < covered.size();
         ++k)
      covered[static_cast<size_t>(k)] = true;
  }
  for (size_t i = 0; i < label.size(); ++i) {
    if (covered[i] || label[i] < 0) continue;
    size_t end = i + 1;
    while (end < label.size() && !covered[end] && label[end] == label[i]) ++end;
    rows.push_back({static_cast<int>(i), static_cast<int>(end), label[i], -1, false});
    i = end - 1;
  }
  return rows;
}

// Per operation: the handler an exception raised there goes to (the first row covering it).
std::vector<int> handler_of_operations(const std::vector<Handler>& rows, size_t count) {
  std::vector<int> handler(count, -1);
  for (const Handler& row : rows) {
    for (int k = std::max(row.start, 0); k < row.end && static_cast<size_t>(k) < count; ++k) {
      if (handler[static_cast<size_t>(k)] < 0) handler[static_cast<size_t>(k)] = row.target;
    }
  }
  return handler;
}

bool in_range(int index, size_t count) { return index >= 0 && static_cast<size_t>(index) < count; }

// Where a block starts: the entry, jump and handler targets, after an operation that transfers
// control or ends the flow, and where the handler changes.
std::vector<char> block_starts(const std::vector<Operation>& ops, const std::vector<int>& handler) {
  size_t count = ops.size();
  std::vector<char> starts(count + 1, false);
  starts[0] = true;
  for (size_t i = 0; i < count; ++i) {
    const Operation& op = ops[i];
    if (in_range(op.target, count)) starts[static_cast<size_t>(op.target)] = true;
    if (in_range(handler[i], count)) starts[static_cast<size_t>(handler[i])] = true;
    if (op.target >= 0 || !falls_through(op.op)) starts[i + 1] = true;
    if (i > 0 && handler[i] != handler[i - 1]) starts[i] = true;
  }
  return starts;
}

// The edges out of each block (its last operation's transfer and fall-through, its exception
// edge), then into each.
void connect(ControlFlowGraph& cfg, const std::vector<Operation>& ops) {
  size_t count = ops.size();
  for (BasicBlock& block : cfg.blocks) {
    const Operation& last = ops[static_cast<size_t>(block.end) - 1];
    if (in_range(last.target, count)) {
      EdgeKind kind = is_block_push(last.op) ? EdgeKind::Push
                      : last.op == Op::Jump  ? EdgeKind::Jump
                                             : EdgeKind::Taken;
      block.successors.push_back({cfg.block_of[static_cast<size_t>(last.target)], kind});
    }
    if (falls_through(last.op) && in_range(block.end, count))
      block.successors.push_back({cfg.block_of[static_cast<size_t>(block.end)], EdgeKind::Next});
    if (block.handler >= 0) block.successors.push_back({block.handler, EdgeKind::Exception});
  }
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    for (const Edge& edge : cfg.blocks[b].successors)
      cfg.blocks[static_cast<size_t>(edge.block)].predecessors.push_back(
          {static_cast<int>(b), edge.kind});
  }
}

}  // namespace

ControlFlowGraph build_cfg(const LiftedCode& code) {
  ControlFlowGraph cfg;
  const std::vector<Operation>& ops = code.ops;
  size_t count = ops.size();
  cfg.rows = exception_rows(code);
  cfg.regions = handler_regions(cfg.rows);
  std::vector<int> handler = handler_of_operations(cfg.rows, count);
  std::vector<char> starts = block_starts(ops, handler);
  cfg.block_of.assign(count, -1);
  cfg.blocks.reserve(static_cast<size_t>(std::count(starts.begin(), starts.end() - 1, true)));
  for (size_t i = 0; i < count; ++i) {
    if (starts[i]) cfg.blocks.push_back({static_cast<int>(i), static_cast<int>(i), {}, {}, -1});
    cfg.blocks.back().end = static_cast<int>(i) + 1;
    cfg.block_of[i] = static_cast<int>(cfg.blocks.size()) - 1;
  }
  for (BasicBlock& block : cfg.blocks) {
    int target = handler[static_cast<size_t>(block.start)];
    if (in_range(target, count)) block.handler = cfg.block_of[static_cast<size_t>(target)];
  }
  connect(cfg, ops);
  cfg.reachable = reachable_blocks(cfg, transfers_control);
  return cfg;
}

std::vector<char> reachable_blocks(const ControlFlowGraph& cfg, bool (*follow)(EdgeKind)) {
  std::vector<char> seen(cfg.blocks.size(), false);
  std::vector<int> work;
  work.reserve(cfg.blocks.size());  // a hint: a block can be pushed once per edge into it
  if (!cfg.blocks.empty()) work.push_back(0);
  while (!work.empty()) {
    int b = work.back();
    work.pop_back();
    if (seen[static_cast<size_t>(b)]) continue;
    seen[static_cast<size_t>(b)] = true;
    for (const Edge& edge : cfg.blocks[static_cast<size_t>(b)].successors) {
      if (follow(edge.kind)) work.push_back(edge.block);
    }
  }
  return seen;
}

}  // namespace glassbox::decompiler
