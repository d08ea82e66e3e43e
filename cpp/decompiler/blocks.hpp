// The `cfg` pass: basic blocks over the lifted operations, with successor, predecessor and
// exception edges (the graph CPython's compiler builds in `Python/flowgraph.c`, read back).
//
// Both encodings of exception handling become the same handler rows and regions: 3.11+
// exception-table rows as lifted, and 3.10's block pushes (SETUP_FINALLY, SETUP_WITH, ...,
// popped by POP_BLOCK), labelled by propagating the stack of open blocks along the control flow
// as CPython 3.11's compiler does when it writes the table (`label_exception_targets`).
#pragma once

#include <vector>

#include "decompiler/lift.hpp"

namespace glassbox::decompiler {

// Whether the operation after `op` may run next (no jump, return or raise ends it here).
inline bool falls_through(Op op) {
  return op != Op::Jump && op != Op::ReturnValue && op != Op::ReturnConst &&
         op != Op::RaiseVarargs && op != Op::Reraise;
}

// All rows for one handler: the range from the first covered operation to one past the last.
struct HandlerRegion {
  int target = 0;
  int start = 0;  // first covered operation
  int end = 0;    // one past the last covered operation
  int depth = 0;  // the stack depth the handler starts at; -1 where a block push (3.10) made it
};

// Merges `rows` into one region per handler target, in target order.
std::vector<HandlerRegion> handler_regions(const std::vector<Handler>& rows);

enum class EdgeKind {
  Next,       // falls through to the following block
  Jump,       // an unconditional jump
  Taken,      // a conditional transfer taken: JumpIf, JumpIfOrPop, a for loop's exit, SEND's end
  Push,       // a block push (3.10 SETUP_*) to its handler, entered later by an exception
  Exception,  // an exception raised in the block goes to its handler
};

// Whether control passes along an edge of this kind (a block push only names its handler,
// which an exception enters through an exception edge).
inline bool transfers_control(EdgeKind kind) { return kind != EdgeKind::Push; }

struct Edge {
  int block = -1;
  EdgeKind kind = EdgeKind::Next;
};

// A block's successors, at most three (its last operation's transfer, the fall-through, the
// exception edge), held in place: a graph is built for every code object decompiled.
class Successors {
 public:
  void push_back(Edge edge) {
    if (size_ < 3) edges_[size_++] = edge;
  }
  const Edge* begin() const { return edges_; }
  const Edge* end() const { return edges_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  Edge edges_[3];
  size_t size_ = 0;
};

// A block's predecessors: most blocks have one or two, held in place; a join that many jumps
// reach moves them all to the heap (a vector per block showed among a decompilation's
// allocations).
class Predecessors {
 public:
  void push_back(Edge edge) {
    if (size_ < kInPlace) {
      in_place_[size_] = edge;
    } else {
      if (size_ == kInPlace) more_.assign(in_place_, in_place_ + kInPlace);
      more_.push_back(edge);
    }
    ++size_;
  }
  const Edge* begin() const { return size_ <= kInPlace ? in_place_ : more_.data(); }
  const Edge* end() const { return begin() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  static constexpr size_t kInPlace = 4;
  Edge in_place_[kInPlace];
  std::vector<Edge> more_;  // all of them, once there are more than kInPlace
  size_t size_ = 0;
};

struct BasicBlock {
  int start = 0;  // first operation
  int end = 0;    // one past the last operation
  Successors successors;
  Predecessors predecessors;  // edge.block is the source
  int handler = -1;           // the block an exception raised here goes to, or -1
};

struct ControlFlowGraph {
  std::vector<BasicBlock> blocks;  // in operation order; block 0 (when any) is the entry
  std::vector<int> block_of;       // per operation: the block holding it
  // Runs of operations with one handler, table rows (3.11+) first, then those labelled from
  // block pushes (3.10, depth -1), and the regions merged from them.
  std::vector<Handler> rows;
  std::vector<HandlerRegion> regions;
  // Per block: from the entry, along edges that transfer control (bytes, not bits: read per
  // operation, bit access showed in profiles).
  std::vector<char> reachable;
};

ControlFlowGraph build_cfg(const LiftedCode& code);

// Per block: reachable from the entry along the edges of the kinds `follow` accepts.
std::vector<char> reachable_blocks(const ControlFlowGraph& cfg, bool (*follow)(EdgeKind));

}  // namespace glassbox::decompiler
