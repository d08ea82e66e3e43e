// The `dominators` pass: the dominator tree, post-dominators (over a virtual exit after every
// block that leaves the code object) and natural loops of a control-flow graph. Every edge that
// transfers control counts, exception edges included (code in a handler is reached through the
// try body); block pushes do not.
#pragma once

#include <utility>
#include <vector>

#include "decompiler/blocks.hpp"

namespace glassbox::decompiler {

struct Dominators {
  // Per block: its immediate dominator (the entry's is itself), or -1 where unreachable.
  std::vector<int> idom;
  // Per block, then the exit: its immediate post-dominator, `exit` where only the exit follows
  // it (the exit's own), or -1 where no path leads out (a loop that never ends).
  std::vector<int> ipdom;
  int exit = 0;                             // the virtual exit: one past the last block
  bool dominates(int a, int b) const;       // every path from the entry to b passes a
  bool post_dominates(int a, int b) const;  // every path from b to the exit passes a
};

enum class PostDominators { Compute, Skip };

// The dominator tree and, unless skipped (ipdom then empty), the post-dominator tree.
Dominators find_dominators(const ControlFlowGraph& cfg,
                           PostDominators post = PostDominators::Compute);

struct Loop {
  int head = 0;
  std::vector<int> latches;                // blocks with a back edge to the head, ascending
  std::vector<int> body;                   // the head and every block of the loop, ascending
  std::vector<std::pair<int, int>> exits;  // edges (from inside, to outside) leaving the loop
  int parent = -1;                         // the innermost loop around this one, or -1
  bool contains(int block) const;
};

// Natural loops: one per head, a head being the target of an edge from a block it dominates;
// in order of their heads.
std::vector<Loop> find_loops(const ControlFlowGraph& cfg, const Dominators& dom);

}  // namespace glassbox::decompiler
