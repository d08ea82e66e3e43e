// What holds for the graph, dominators and loops of every code object in the samples, nested
// ones included: edges are symmetric, blocks partition the operations, the entry dominates
// every reachable block, every loop head dominates its body.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "bytecode/marshal.hpp"
#include "decompiler/blocks.hpp"
#include "decompiler/dominators.hpp"
#include "decompiler/lift.hpp"
#include "decompiler_samples.hpp"

namespace {

using glassbox::bytecode::CodeObject;
using glassbox::bytecode::ObjectKind;
using glassbox::bytecode::ObjectRef;
using glassbox::bytecode::read_marshal;
using namespace glassbox::decompiler;
using glassbox::test::CfgSample;
using glassbox::test::from_hex;
using glassbox::test::kCfgSamples;
using glassbox::test::kSamples;
using glassbox::test::Sample;

void collect(const CodeObject& code, std::vector<const CodeObject*>& out) {
  out.push_back(&code);
  for (const ObjectRef& constant : code.consts) {
    if (constant && constant->kind == ObjectKind::Code) collect(*constant->code, out);
  }
}

using EdgeKey = std::tuple<int, int, int>;  // from, to, kind

void check_edges_symmetric(const ControlFlowGraph& cfg) {
  std::vector<EdgeKey> out, in;
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    for (const Edge& e : cfg.blocks[b].successors)
      out.emplace_back(static_cast<int>(b), e.block, static_cast<int>(e.kind));
    for (const Edge& e : cfg.blocks[b].predecessors)
      in.emplace_back(e.block, static_cast<int>(b), static_cast<int>(e.kind));
  }
  std::sort(out.begin(), out.end());
  std::sort(in.begin(), in.end());
  EXPECT_EQ(out, in);
}

void check_partition(const LiftedCode& code, const ControlFlowGraph& cfg) {
  int next = 0;
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    const BasicBlock& block = cfg.blocks[b];
    EXPECT_EQ(block.start, next);
    EXPECT_LT(block.start, block.end);
    for (int k = block.start; k < block.end; ++k)
      EXPECT_EQ(cfg.block_of[static_cast<size_t>(k)], static_cast<int>(b));
    // Only the last operation transfers control; the lifter leaves no unreachable operation.
    for (int k = block.start; k + 1 < block.end; ++k) {
      EXPECT_LT(code.ops[static_cast<size_t>(k)].target, 0);
      EXPECT_TRUE(falls_through(code.ops[static_cast<size_t>(k)].op));
    }
    EXPECT_TRUE(cfg.reachable[b]) << "block " << b;
    next = block.end;
  }
  EXPECT_EQ(next, static_cast<int>(code.ops.size()));
}

void check_dominators(const ControlFlowGraph& cfg, const Dominators& dom,
                      const std::vector<Loop>& loops) {
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    if (!cfg.reachable[b]) continue;
    EXPECT_TRUE(dom.dominates(0, static_cast<int>(b))) << "block " << b;
    int up = dom.idom[b];
    EXPECT_TRUE(b == 0 ? up == 0 : up >= 0 && up != static_cast<int>(b));
    if (dom.ipdom[b] >= 0) {
      EXPECT_TRUE(dom.post_dominates(dom.exit, static_cast<int>(b)));
    }
  }
  for (const Loop& loop : loops) {
    EXPECT_TRUE(loop.contains(loop.head));
    for (int b : loop.body) EXPECT_TRUE(dom.dominates(loop.head, b)) << loop.head << " " << b;
    for (int latch : loop.latches) EXPECT_TRUE(loop.contains(latch));
    for (auto [from, to] : loop.exits) EXPECT_TRUE(loop.contains(from) && !loop.contains(to));
    if (loop.parent >= 0) {
      const Loop& outer = loops[static_cast<size_t>(loop.parent)];
      for (int b : loop.body) EXPECT_TRUE(outer.contains(b));
    }
  }
}

int check_all(const CodeObject& module, const std::string& trace) {
  std::vector<const CodeObject*> codes;
  collect(module, codes);
  for (const CodeObject* code : codes) {
    SCOPED_TRACE(trace + " " + code->name);
    LiftedCode lifted = lift(*code);
    ControlFlowGraph cfg = build_cfg(lifted);
    Dominators dom = find_dominators(cfg);
    check_edges_symmetric(cfg);
    check_partition(lifted, cfg);
    check_dominators(cfg, dom, find_loops(cfg, dom));
  }
  return static_cast<int>(codes.size());
}

// Every code object of one marshalled module; returns how many were checked.
int check_module(int minor, const char* name, const char* hex) {
  ObjectRef module = read_marshal(from_hex(hex), minor);
  return check_all(*module->code, std::string("3.") + std::to_string(minor) + " " + name);
}

TEST(DecompilerCfgInvariants, HoldForEverySampleCodeObject) {
  int checked = 0;
  for (const Sample& s : kSamples) checked += check_module(s.minor, s.name, s.hex);
  for (const CfgSample& s : kCfgSamples) checked += check_module(s.minor, s.name, s.hex);
  EXPECT_GT(checked, 100);
}

}  // namespace
