// The cfg and dominators passes on small functions compiled by each CPython version
// (cfg_samples.inc, written by scripts/gen_cfg_test_data.py): blocks, edges, handler regions,
// dominators, post-dominators and loops, asserted through the calls each function makes, so
// that one assertion holds for every version's layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bytecode/marshal.hpp"
#include "decompiler/blocks.hpp"
#include "decompiler/cfg.hpp"
#include "decompiler/dominators.hpp"
#include "decompiler/lift.hpp"
#include "decompiler_samples.hpp"

namespace {

using glassbox::bytecode::ObjectKind;
using glassbox::bytecode::ObjectRef;
using glassbox::bytecode::read_marshal;
using namespace glassbox::decompiler;
using glassbox::test::CfgSample;
using glassbox::test::from_hex;
using glassbox::test::kCfgSamples;

// One sample's function `f`, lifted, with its graph, dominators and loops.
struct Analyzed {
  int minor = 0;
  ObjectRef module;
  LiftedCode code;
  ControlFlowGraph cfg;
  Dominators dom;
  std::vector<Loop> loops;

  // The blocks that load the name `name` (a call's callee, a parameter).
  std::vector<int> loading(const std::string& name) const {
    std::vector<int> found;
    for (size_t i = 0; i < code.ops.size(); ++i) {
      const Operation& op = code.ops[i];
      if (op.op == Op::LoadName && op.text == name) found.push_back(cfg.block_of[i]);
    }
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }
  // The one block that loads `name`.
  int only(const std::string& name) const {
    std::vector<int> found = loading(name);
    EXPECT_EQ(found.size(), 1u) << name;
    return found.empty() ? -1 : found[0];
  }
  bool has_op(int block, Op kind) const {
    const BasicBlock& b = cfg.blocks[static_cast<size_t>(block)];
    for (int k = b.start; k < b.end; ++k) {
      if (code.ops[static_cast<size_t>(k)].op == kind) return true;
    }
    return false;
  }
  std::vector<Edge> edges(int from, int to) const {
    std::vector<Edge> found;
    for (const Edge& edge : cfg.blocks[static_cast<size_t>(from)].successors) {
      if (edge.block == to) found.push_back(edge);
    }
    return found;
  }
};

Analyzed analyze(const CfgSample& sample) {
  Analyzed out;
  out.minor = sample.minor;
  out.module = read_marshal(from_hex(sample.hex), sample.minor);
  const glassbox::bytecode::CodeObject* function = nullptr;
  for (const ObjectRef& constant : out.module->code->consts) {
    if (constant && constant->kind == ObjectKind::Code) function = constant->code.get();
  }
  EXPECT_NE(function, nullptr);
  out.code = lift(*function);
  out.cfg = build_cfg(out.code);
  out.dom = find_dominators(out.cfg);
  out.loops = find_loops(out.cfg, out.dom);
  return out;
}

// Runs `check` on every version's sample called `name`; fails when no version has it.
template <typename Check>
void for_each_version(const std::string& name, Check check) {
  int seen = 0;
  for (const CfgSample& sample : kCfgSamples) {
    if (name != sample.name) continue;
    SCOPED_TRACE(std::string("3.") + std::to_string(sample.minor) + " " + name);
    ++seen;
    check(analyze(sample));
  }
  EXPECT_GE(seen, 1);
}

// Every path from block `from` to the exit meets a block that loads `name`: one block that
// post-dominates it, or copies of a small join that the compiler put on each path (3.12+),
// none of which post-dominates it alone.
void expect_joined(const Analyzed& a, int from, const std::string& name) {
  std::vector<int> copies = a.loading(name);
  ASSERT_FALSE(copies.empty());
  if (copies.size() == 1) {
    EXPECT_TRUE(a.dom.post_dominates(copies[0], from));
    return;
  }
  for (int copy : copies) {
    EXPECT_FALSE(a.dom.post_dominates(copy, from));
    const BasicBlock& block = a.cfg.blocks[static_cast<size_t>(copy)];
    EXPECT_EQ(a.dom.ipdom[static_cast<size_t>(copy)], a.dom.exit);  // each copy returns
    EXPECT_TRUE(a.has_op(copy, Op::ReturnConst) || a.has_op(copy, Op::ReturnValue)) << block.start;
  }
  EXPECT_EQ(a.dom.ipdom[static_cast<size_t>(from)], a.dom.exit);
}

TEST(DecompilerCfg, IfElseBranchesAndJoins) {
  for_each_version("if_else", [](const Analyzed& a) {
    int test = a.only("a"), then = a.only("b"), orelse = a.only("c");
    EXPECT_EQ(a.edges(test, then).size(), 1u);
    ASSERT_EQ(a.edges(test, orelse).size(), 1u);
    EXPECT_EQ(a.edges(test, then)[0].kind, EdgeKind::Next);
    EXPECT_EQ(a.edges(test, orelse)[0].kind, EdgeKind::Taken);
    EXPECT_EQ(a.dom.idom[static_cast<size_t>(then)], test);
    EXPECT_EQ(a.dom.idom[static_cast<size_t>(orelse)], test);
    for (int join : a.loading("d")) EXPECT_TRUE(a.dom.dominates(test, join));
    expect_joined(a, test, "d");
    EXPECT_FALSE(a.dom.post_dominates(then, test));
    EXPECT_TRUE(a.loops.empty());
    EXPECT_TRUE(a.cfg.rows.empty());
  });
}

TEST(DecompilerCfg, WhileElseLoopsOverItsBodyOnly) {
  for_each_version("while_else", [](const Analyzed& a) {
    ASSERT_EQ(a.loops.size(), 1u);
    const Loop& loop = a.loops[0];
    int body = a.only("b"), orelse = a.only("c"), after = a.only("d");
    EXPECT_TRUE(loop.contains(body));
    EXPECT_TRUE(a.dom.dominates(loop.head, body));
    EXPECT_FALSE(loop.contains(orelse));
    EXPECT_FALSE(loop.contains(after));
    // The else clause runs when the test fails, also before the first iteration: the body
    // dominates neither it nor what follows, which every path reaches.
    EXPECT_FALSE(a.dom.dominates(body, orelse));
    EXPECT_TRUE(a.dom.post_dominates(after, loop.head));
    EXPECT_TRUE(a.dom.post_dominates(orelse, body));
  });
}

TEST(DecompilerCfg, ForLoopHeadIsTheForIter) {
  for_each_version("for", [](const Analyzed& a) {
    ASSERT_EQ(a.loops.size(), 1u);
    const Loop& loop = a.loops[0];
    const BasicBlock& head = a.cfg.blocks[static_cast<size_t>(loop.head)];
    EXPECT_EQ(a.code.ops[static_cast<size_t>(head.end) - 1].op, Op::ForIter);
    EXPECT_TRUE(loop.contains(a.only("b")));
    EXPECT_FALSE(loop.contains(a.only("d")));
    ASSERT_EQ(loop.exits.size(), 1u);  // only the exhausted iterator leaves
    EXPECT_EQ(loop.exits[0].first, loop.head);
    EXPECT_EQ(a.edges(loop.head, loop.exits[0].second)[0].kind, EdgeKind::Taken);
    EXPECT_EQ(loop.latches.size(), 1u);
    EXPECT_EQ(loop.parent, -1);
    EXPECT_TRUE(a.dom.post_dominates(a.only("d"), a.only("b")));
  });
}

TEST(DecompilerCfg, BreakLeavesAndContinueClosesTheLoop) {
  for_each_version("break_continue", [](const Analyzed& a) {
    ASSERT_EQ(a.loops.size(), 1u);
    const Loop& loop = a.loops[0];
    int body = a.only("c"), orelse = a.only("e");
    EXPECT_TRUE(loop.contains(body));
    EXPECT_FALSE(loop.contains(orelse));
    for (int after : a.loading("d")) EXPECT_FALSE(loop.contains(after));
    EXPECT_GE(loop.latches.size(), 2u);  // the end of the body and the continue
    std::vector<int> sources;
    for (auto [from, to] : loop.exits) sources.push_back(from);
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    EXPECT_GE(sources.size(), 2u);  // the exhausted iterator and the break
    // The break skips the else clause.
    EXPECT_FALSE(a.dom.post_dominates(orelse, loop.head));
    expect_joined(a, loop.head, "d");
  });
}

TEST(DecompilerCfg, NestedLoopsNest) {
  for_each_version("nested_loops", [](const Analyzed& a) {
    ASSERT_EQ(a.loops.size(), 2u);
    int inner_index = a.loops[0].body.size() < a.loops[1].body.size() ? 0 : 1;
    const Loop& inner = a.loops[static_cast<size_t>(inner_index)];
    const Loop& outer = a.loops[static_cast<size_t>(1 - inner_index)];
    EXPECT_EQ(inner.parent, 1 - inner_index);
    EXPECT_EQ(outer.parent, -1);
    for (int b : inner.body) EXPECT_TRUE(outer.contains(b)) << b;
    EXPECT_TRUE(inner.contains(a.only("b")));
    EXPECT_FALSE(inner.contains(a.only("c")));
    EXPECT_TRUE(outer.contains(a.only("c")));
    EXPECT_FALSE(outer.contains(a.only("d")));
    EXPECT_TRUE(a.dom.dominates(outer.head, inner.head));
  });
}

TEST(DecompilerCfg, TryExceptFinallyHasExceptionEdgesToItsHandlers) {
  for_each_version("try_except_finally", [](const Analyzed& a) {
    std::vector<int> calls = a.loading("a");
    ASSERT_FALSE(calls.empty());
    int body = calls.back();  // (the parameter is loaded once, for the call)
    const BasicBlock& block = a.cfg.blocks[static_cast<size_t>(body)];
    ASSERT_GE(block.handler, 0);
    ASSERT_EQ(a.edges(body, block.handler).size(), 1u);
    EXPECT_EQ(a.edges(body, block.handler)[0].kind, EdgeKind::Exception);
    // Only an exception (or the block push that opens it) enters a handler.
    for (const Edge& in : a.cfg.blocks[static_cast<size_t>(block.handler)].predecessors)
      EXPECT_TRUE(in.kind == EdgeKind::Exception || in.kind == EdgeKind::Push);
    // The same region representation for table rows and block pushes: the innermost region
    // around the call is its handler's (3.10's finally region also spans the inner try).
    const HandlerRegion* innermost = nullptr;
    for (const HandlerRegion& region : a.cfg.regions) {
      if (region.start <= block.start && block.start < region.end &&
          (!innermost || region.end - region.start < innermost->end - innermost->start))
        innermost = &region;
    }
    ASSERT_NE(innermost, nullptr);
    EXPECT_EQ(a.cfg.block_of[static_cast<size_t>(innermost->target)], block.handler);
    EXPECT_GE(a.cfg.regions.size(), 2u);   // the except clause's and the finally's
    EXPECT_GE(a.loading("c").size(), 2u);  // the finally body, normal and exceptional copies
    EXPECT_TRUE(a.dom.dominates(body, block.handler));
    EXPECT_TRUE(a.dom.dominates(block.handler, a.only("b")));
    EXPECT_FALSE(a.dom.post_dominates(a.only("d"), body));  // an exception may leave f
    EXPECT_TRUE(a.loops.empty());
  });
}

TEST(DecompilerCfg, WithBodyRaisesToTheExitCall) {
  for_each_version("with", [](const Analyzed& a) {
    int body = a.only("b");
    int handler = a.cfg.blocks[static_cast<size_t>(body)].handler;
    ASSERT_GE(handler, 0);
    EXPECT_TRUE(a.has_op(handler, Op::WithExceptStart));
    EXPECT_TRUE(a.dom.dominates(body, handler));
    for (int after : a.loading("d")) {
      EXPECT_TRUE(a.dom.dominates(body, after));
      EXPECT_FALSE(a.dom.post_dominates(after, body));  // __exit__ may let it propagate
    }
    EXPECT_TRUE(a.cfg.reachable[static_cast<size_t>(handler)]);
  });
}

// The decoder's loop heads (FlowInfo) are the natural loops' heads. 3.13 places the else
// clause of an `async for` left by a break after the code, from where it jumps back to the
// join: a backward jump, but no loop.
TEST(DecompilerCfg, LoopHeadsForTheDecoderAreNaturalLoopHeads) {
  for_each_version("async_for_break_else", [](const Analyzed& a) {
    ASSERT_EQ(a.loops.size(), 1u);
    const BasicBlock& head = a.cfg.blocks[static_cast<size_t>(a.loops[0].head)];
    EXPECT_EQ(a.code.ops[static_cast<size_t>(head.end) - 1].op, Op::ForIter);
    FlowInfo flow = analyze_flow(a.code);
    std::vector<int> marked;
    for (size_t i = 0; i < a.code.ops.size(); ++i) {
      if (flow.last_backward_source[i] >= 0) marked.push_back(static_cast<int>(i));
    }
    EXPECT_EQ(marked, std::vector<int>{head.start});
    for (int join : a.loading("d")) EXPECT_FALSE(a.loops[0].contains(join));
  });
}

}  // namespace

// Lift keeps 3.13's JUMP_BACKWARD_NO_INTERRUPT apart from a plain jump: compiler_try_except ends
// a clause falling off with JUMP_NO_INTERRUPT, compiler_continue jumps plainly. Earlier versions
// (and both jumps before 3.13) lift as plain jumps.
TEST(DecompilerLift, ClauseFallOffKeepsNoInterrupt) {
  for_each_version("clause_continue_or_pass", [](const Analyzed& a) {
    std::vector<bool> leaving;  // each jump right after a clause's POP_EXCEPT: no_interrupt
    for (size_t i = 1; i < a.code.ops.size(); ++i) {
      const Operation& op = a.code.ops[i];
      if (op.op == Op::Jump && a.code.ops[i - 1].op == Op::PopExcept)
        leaving.push_back(op.no_interrupt);
    }
    std::vector<bool> expected{false, a.minor >= 13};  // the continue, then the pass
    EXPECT_EQ(leaving, expected);
  });
}
