#include "decompiler/dominators.hpp"

#include <algorithm>
#include <map>

namespace glassbox::decompiler {

namespace {

// A graph in two arrays: node u's successors are edges[first[u] .. first[u + 1]) (a vector per
// node showed among a decompilation's allocations).
struct Graph {
  std::vector<size_t> first;  // size() + 1 entries
  std::vector<int> edges;
  size_t size() const { return first.empty() ? 0 : first.size() - 1; }
  const int* begin(size_t u) const { return edges.data() + first[u]; }
  const int* end(size_t u) const { return edges.data() + first[u + 1]; }
  size_t degree(size_t u) const { return first[u + 1] - first[u]; }
};

// The nodes reachable from `root`, in reverse postorder.
std::vector<int> reverse_postorder(const Graph& succ, int root) {
  std::vector<int> order;
  order.reserve(succ.size());
  std::vector<char> seen(succ.size(), false);
  std::vector<std::pair<int, size_t>> stack;
  stack.reserve(succ.size());
  stack.push_back({root, 0});
  seen[static_cast<size_t>(root)] = true;
  while (!stack.empty()) {
    int node = stack.back().first;
    size_t next = stack.back().second++;
    if (next < succ.degree(static_cast<size_t>(node))) {
      int s = succ.begin(static_cast<size_t>(node))[next];
      if (!seen[static_cast<size_t>(s)]) {
        seen[static_cast<size_t>(s)] = true;
        stack.push_back({s, 0});
      }
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// The edges of `succ` from the nodes `from` accepts, reversed, in a graph of `count` nodes; each
// node's predecessors in ascending order (as pushing them in node order left them).
template <class From>
Graph reversed_graph(const Graph& succ, size_t count, From from) {
  Graph reversed;
  reversed.first.assign(count + 1, 0);
  for (size_t u = 0; u < succ.size(); ++u) {
    if (!from(u)) continue;
    for (const int* s = succ.begin(u); s != succ.end(u); ++s)
      ++reversed.first[static_cast<size_t>(*s) + 1];
  }
  for (size_t k = 0; k < count; ++k) reversed.first[k + 1] += reversed.first[k];
  reversed.edges.resize(reversed.first[count]);
  std::vector<size_t> fill(reversed.first.begin(), reversed.first.end() - 1);
  for (size_t u = 0; u < succ.size(); ++u) {
    if (!from(u)) continue;
    for (const int* s = succ.begin(u); s != succ.end(u); ++s)
      reversed.edges[fill[static_cast<size_t>(*s)]++] = static_cast<int>(u);
  }
  return reversed;
}

// Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm": walk the nodes in reverse
// postorder, meeting the dominators of each node's processed predecessors, until nothing changes.
std::vector<int> immediate_dominators(const Graph& succ, int root) {
  size_t count = succ.size();
  std::vector<int> order = reverse_postorder(succ, root);
  std::vector<int> rank(count, -1);
  for (size_t k = 0; k < order.size(); ++k)
    rank[static_cast<size_t>(order[k])] = static_cast<int>(k);
  Graph pred = reversed_graph(succ, count, [&](size_t u) { return rank[u] >= 0; });
  std::vector<int> idom(count, -1);
  idom[static_cast<size_t>(root)] = root;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (rank[static_cast<size_t>(a)] > rank[static_cast<size_t>(b)])
        a = idom[static_cast<size_t>(a)];
      while (rank[static_cast<size_t>(b)] > rank[static_cast<size_t>(a)])
        b = idom[static_cast<size_t>(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 1; k < order.size(); ++k) {
      int b = order[k];
      int best = -1;
      for (const int* it = pred.begin(static_cast<size_t>(b));
           it != pred.end(static_cast<size_t>(b)); ++it) {
        int p = *it;
        if (idom[static_cast<size_t>(p)] < 0) continue;
        best = best < 0 ? p : intersect(p, best);
      }
      if (best != idom[static_cast<size_t>(b)]) {
        idom[static_cast<size_t>(b)] = best;
        changed = true;
      }
    }
  }
  return idom;
}

// Whether `a` is on the tree path from `b` up to the root of `tree` (a parent per node).
bool above(const std::vector<int>& tree, int a, int b) {
  if (a < 0 || b < 0 || static_cast<size_t>(b) >= tree.size() || tree[static_cast<size_t>(b)] < 0)
    return false;
  while (b != a) {
    int up = tree[static_cast<size_t>(b)];
    if (up == b) return false;
    b = up;
  }
  return true;
}

}  // namespace

bool Dominators::dominates(int a, int b) const { return above(idom, a, b); }

bool Dominators::post_dominates(int a, int b) const { return above(ipdom, a, b); }

Dominators find_dominators(const ControlFlowGraph& cfg, PostDominators post) {
  size_t count = cfg.blocks.size();
  Dominators dom;
  dom.exit = static_cast<int>(count);
  // The blocks, then (for the post-dominators) the exit, after every block with no successor.
  Graph succ;
  succ.first.reserve(count + 2);
  succ.edges.reserve(count * 2);
  for (size_t b = 0; b < count; ++b) {
    succ.first.push_back(succ.edges.size());
    for (const Edge& edge : cfg.blocks[b].successors) {
      if (transfers_control(edge.kind)) succ.edges.push_back(edge.block);
    }
  }
  succ.first.push_back(succ.edges.size());
  dom.idom = count == 0 ? std::vector<int>() : immediate_dominators(succ, 0);
  if (post == PostDominators::Skip) return dom;
  // Reversed, with the exit's edges to the blocks that end the code (their ascending order is
  // the order the exit's list had).
  Graph reversed = reversed_graph(succ, count, [](size_t) { return true; });
  for (size_t b = 0; b < count; ++b) {
    if (succ.degree(b) == 0) reversed.edges.push_back(static_cast<int>(b));
  }
  reversed.first.push_back(reversed.edges.size());
  dom.ipdom = immediate_dominators(reversed, dom.exit);
  return dom;
}

bool Loop::contains(int block) const { return std::binary_search(body.begin(), body.end(), block); }

namespace {

// The head and every block that reaches a latch without passing the head.
std::vector<int> loop_body(const ControlFlowGraph& cfg, const Dominators& dom, const Loop& loop) {
  std::vector<char> in(cfg.blocks.size(), false);
  in[static_cast<size_t>(loop.head)] = true;
  std::vector<int> work = loop.latches;
  while (!work.empty()) {
    int b = work.back();
    work.pop_back();
    if (in[static_cast<size_t>(b)] || dom.idom[static_cast<size_t>(b)] < 0) continue;
    in[static_cast<size_t>(b)] = true;
    for (const Edge& edge : cfg.blocks[static_cast<size_t>(b)].predecessors) {
      if (transfers_control(edge.kind)) work.push_back(edge.block);
    }
  }
  std::vector<int> body;
  for (size_t b = 0; b < in.size(); ++b) {
    if (in[b]) body.push_back(static_cast<int>(b));
  }
  return body;
}

std::vector<std::pair<int, int>> loop_exits(const ControlFlowGraph& cfg, const Loop& loop) {
  std::vector<std::pair<int, int>> exits;
  for (int b : loop.body) {
    for (const Edge& edge : cfg.blocks[static_cast<size_t>(b)].successors) {
      if (transfers_control(edge.kind) && !loop.contains(edge.block))
        exits.push_back({b, edge.block});
    }
  }
  exits.erase(std::unique(exits.begin(), exits.end()), exits.end());
  return exits;
}

}  // namespace

std::vector<Loop> find_loops(const ControlFlowGraph& cfg, const Dominators& dom) {
  std::map<int, Loop> by_head;
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    if (dom.idom[b] < 0) continue;
    for (const Edge& edge : cfg.blocks[b].successors) {
      if (!transfers_control(edge.kind) || !dom.dominates(edge.block, static_cast<int>(b)))
        continue;
      Loop& loop = by_head[edge.block];
      loop.head = edge.block;
      if (loop.latches.empty() || loop.latches.back() != static_cast<int>(b))
        loop.latches.push_back(static_cast<int>(b));
    }
  }
  std::vector<Loop> loops;
  for (auto& [head, loop] : by_head) {
    loop.body = loop_body(cfg, dom, loop);
    loop.exits = loop_exits(cfg, loop);
    loops.push_back(std::move(loop));
  }
  for (Loop& inner : loops) {
    for (size_t k = 0; k < loops.size(); ++k) {
      const Loop& outer = loops[k];
      if (&outer == &inner || outer.body.size() <= inner.body.size() || !outer.contains(inner.head))
        continue;
      if (inner.parent < 0 ||
          outer.body.size() < loops[static_cast<size_t>(inner.parent)].body.size())
        inner.parent = static_cast<int>(k);
    }
  }
  return loops;
}

}  // namespace glassbox::decompiler
