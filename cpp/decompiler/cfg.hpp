// Control-flow facts the rule-based decoder reads, per operation index: reachability and loop
// heads from the block graph (blocks.hpp) and its natural loops (dominators.hpp), jumps back
// from handler code that close a loop around a try statement, and the exception-table regions
// of each handler as the decoder reads them.
#pragma once

#include <vector>

#include "decompiler/blocks.hpp"
#include "decompiler/lift.hpp"

namespace glassbox::decompiler {

struct FlowInfo {
  // Per operation: the last op jumping back to it as a loop's head (from a natural loop's
  // latch, or from handler code closing a loop around a try), or -1.
  std::vector<int> last_backward_source;
  std::vector<HandlerRegion> regions;  // one per handler target, covering all its rows
  // The region whose covered range starts at `start`, largest first; skips `opened` targets.
  const HandlerRegion* outermost_region_at(int start, const std::vector<bool>& opened) const;
  const HandlerRegion* region_for_target(int target) const;
  int handler_covering(int index) const;  // target of the row covering `index`, or -1
  std::vector<Handler> rows;
  std::vector<char> reachable;  // per operation: reachable without raising (bytes, not bits)
};

FlowInfo analyze_flow(const LiftedCode& code);

}  // namespace glassbox::decompiler
