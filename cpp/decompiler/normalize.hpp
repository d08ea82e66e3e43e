// The `normalize` pass: transformations the compiler applied to the block layout, each read back
// by a normalization named after the CPython function that applied it. A normalization does not
// rewrite the operations (the output must recompile to them); it records what was copied or
// moved, per operation, for the structuring to read instead of finding it again at each use.
// Each runs only where the version's compiler profile (profile.hpp) says the compiler does it.
#pragma once

#include <vector>

#include "decompiler/cfg.hpp"
#include "decompiler/lift.hpp"
#include "decompiler/profile.hpp"

namespace glassbox::decompiler {

struct Normalized {
  // duplicate_exits_without_lineno (3.10/3.11, compile.c): a short exit block without a line of
  // its own after its first operation, ending in a return, gets a copy for each further jump to
  // it, placed back to back after it under the same handlers. Per operation: the chain of the
  // block that starts there (its first operation's index), -1 where none starts; empty where
  // the compiler does not do it.
  std::vector<int> exit_chain;
  std::vector<int> exit_length;  // per chain start: the block's length
  // The exit blocks the compiler copies into the blocks that jump to them (compile.c's
  // extend_block, 3.10/3.11; flowgraph.c's inline_small_exit_blocks, 3.12+): per operation, the
  // length of the short run starting there that ends in a return or raise with no jump, RERAISE
  // or POP_EXCEPT before it (a copy may stand anywhere such a run does), or 0.
  std::vector<int> exit_run;
};

Normalized normalize(const LiftedCode& code, const FlowInfo& flow, const CompilerProfile& profile);

// Whether operations [a, a + n) and [b, b + n) are the same instructions (a copied tail).
bool same_operations(const std::vector<Operation>& ops, int a, int b, int n);

}  // namespace glassbox::decompiler
