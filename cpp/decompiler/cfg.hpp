// Control-flow facts of a lifted code object: which operations are jumped to from where, loop
// heads (targets of backward jumps), and the exception-table regions of each handler.
#pragma once

#include <vector>

#include "decompiler/blocks.hpp"
#include "decompiler/lift.hpp"

namespace glassbox::decompiler {

struct FlowInfo {
  std::vector<int> last_backward_source;  // per operation: the last op jumping back to it, or -1
  std::vector<HandlerRegion> regions;     // one per handler target, covering all its rows
  // The region whose covered range starts at `start`, largest first; skips `opened` targets.
  const HandlerRegion* outermost_region_at(int start, const std::vector<bool>& opened) const;
  const HandlerRegion* region_for_target(int target) const;
  int handler_covering(int index) const;  // target of the row covering `index`, or -1
  std::vector<Handler> rows;
  std::vector<bool> reachable;  // per operation: reachable without raising
};

FlowInfo analyze_flow(const LiftedCode& code);

}  // namespace glassbox::decompiler
