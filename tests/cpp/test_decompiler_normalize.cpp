// The normalize pass on small functions compiled by each CPython version (cfg_samples.inc): what
// each normalization reads back where that version's compiler applied its transformation, and
// nothing where it did not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bytecode/marshal.hpp"
#include "decompiler/cfg.hpp"
#include "decompiler/lift.hpp"
#include "decompiler/normalize.hpp"
#include "decompiler/profile.hpp"
#include "decompiler_samples.hpp"

namespace {

using glassbox::bytecode::ObjectKind;
using glassbox::bytecode::ObjectRef;
using glassbox::bytecode::read_marshal;
using namespace glassbox::decompiler;
using glassbox::test::CfgSample;
using glassbox::test::from_hex;
using glassbox::test::kCfgSamples;

// The function `f` of the sample, lifted.
LiftedCode lifted_f(const CfgSample& sample) {
  ObjectRef module = read_marshal(from_hex(sample.hex), sample.minor);
  for (const ObjectRef& constant : module->code->consts) {
    if (constant && constant->kind == ObjectKind::Code) return lift(*constant->code);
  }
  ADD_FAILURE() << "no function in " << sample.name;
  return {};
}

// The chains of exit copies: each chain's members, by their first operation.
std::vector<std::vector<int>> exit_chains(const Normalized& n) {
  std::vector<std::vector<int>> chains;
  for (size_t k = 0; k < n.exit_chain.size(); ++k) {
    int chain = n.exit_chain[k];
    if (chain < 0) continue;
    if (chain == static_cast<int>(k)) chains.push_back({});
    chains.back().push_back(static_cast<int>(k));
  }
  return chains;
}

TEST(DecompilerNormalize, ExitCopiesWhereTheCompilerDuplicatesExits) {
  int seen = 0;
  for (const CfgSample& sample : kCfgSamples) {
    if (std::string(sample.name) != "exit_copies") continue;
    SCOPED_TRACE("3." + std::to_string(sample.minor));
    ++seen;
    LiftedCode code = lifted_f(sample);
    CompilerProfile profile(sample.minor);
    Normalized n = normalize(code, analyze_flow(code), profile);
    std::vector<std::vector<int>> chains = exit_chains(n);
    if (!profile.copies_exits_per_jump) {
      EXPECT_TRUE(chains.empty());  // 3.12+: one return block, jumped to by both tests
      continue;
    }
    // 3.10/3.11: the loop's two tests each end at a copy of `return None`, back to back.
    ASSERT_EQ(chains.size(), 1u);
    ASSERT_EQ(chains[0].size(), 2u);
    int length = n.exit_length[static_cast<size_t>(chains[0][0])];
    EXPECT_EQ(chains[0][1] - chains[0][0], length);
    const Operation& last = code.ops[static_cast<size_t>(chains[0][1] + length - 1)];
    EXPECT_TRUE(last.op == Op::ReturnValue || last.op == Op::ReturnConst);
    EXPECT_TRUE(same_operations(code.ops, chains[0][0], chains[0][1], length));
    for (int member : chains[0]) {
      EXPECT_EQ(n.exit_run[static_cast<size_t>(member)], length);
    }
  }
  EXPECT_EQ(seen, 4);
}

TEST(DecompilerNormalize, NoChainsInCodeWithoutCopies) {
  for (const CfgSample& sample : kCfgSamples) {
    if (std::string(sample.name) != "if_else") continue;
    LiftedCode code = lifted_f(sample);
    Normalized n = normalize(code, analyze_flow(code), CompilerProfile(sample.minor));
    EXPECT_TRUE(exit_chains(n).empty()) << "3." << sample.minor;
  }
}

// On every sample and version: each exit run ends in its one return or raise, with no jump
// before it, and every return starts a run of its own.
TEST(DecompilerNormalize, ExitRunsEndInAReturnOrRaise) {
  auto exits = [](Op op) {
    return op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs;
  };
  for (const CfgSample& sample : kCfgSamples) {
    SCOPED_TRACE(std::string(sample.name) + " 3." + std::to_string(sample.minor));
    LiftedCode code = lifted_f(sample);
    Normalized n = normalize(code, analyze_flow(code), CompilerProfile(sample.minor));
    for (size_t k = 0; k < code.ops.size(); ++k) {
      int run = n.exit_run[k];
      if (exits(code.ops[k].op)) {
        EXPECT_EQ(run, 1);
      }
      if (run == 0) continue;
      EXPECT_TRUE(exits(code.ops[k + static_cast<size_t>(run) - 1].op));
      for (size_t j = k; j + 1 < k + static_cast<size_t>(run); ++j) {
        EXPECT_FALSE(is_jump(code.ops[j].op) || exits(code.ops[j].op));
      }
    }
  }
}

}  // namespace
