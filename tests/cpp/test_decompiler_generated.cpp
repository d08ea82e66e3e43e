// The decompiler on code that was not compiled from source (Dynamo generates such code): names and
// locals the instructions never use, and values left on the stack across a statement.
#include <gtest/gtest.h>

#include <string>

#include "bytecode/marshal.hpp"
#include "decompiler/decompiler.hpp"

namespace {

using glassbox::bytecode::read_marshal;
using namespace glassbox::decompiler;

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// CPython 3.11: `def f(a): b = a.x; return g(b)` with co_names += ("unused_name",) and
// co_varnames += ("unused_local",) (code.replace). Recompiling the output gives the same names in
// the same order (checked when this sample was made); the dead block tests None, the only
// constant (`if 0:` would leave a 0 in co_consts on 3.10/3.11).
const char* kUnusedNamesHex =
    "e30100000000000000000000000300000003000000f32e00000097007c006a0000000000000000007d017403000000"
    "000000000000007c01a6010000ab0100000000000000005300a9014e2903da0178da0167da0b756e757365645f6e61"
    "6d652903da0161da0162da0c756e757365645f6c6f63616c7303000000202020fa033c733eda0166720a0000000100"
    "0000f3140000008000d808098c038041dd0b0c885189348c34804bf300000000";

TEST(DecompilerGenerated, UnusedNamesKeepTheirOrderInADeadBlock) {
  glassbox::bytecode::ObjectRef code = read_marshal(from_hex(kUnusedNamesHex), 11);
  ASSERT_TRUE(code->code);
  DecompileResult result = decompile_function(*code->code);
  EXPECT_TRUE(result.fallbacks.empty());
  EXPECT_EQ(result.source,
            "def f(a):\n"
            "    # glassbox: never runs; lists the names in the order of the original code object\n"
            "    if None:\n"
            "        del b, unused_local\n"
            "        None.x\n"
            "        None.g\n"
            "        None.unused_name\n"
            "    b = a.x\n"
            "    return g(b)\n");
}

TEST(DecompilerGenerated, ReadableOutputLeavesTheNameOrderOut) {
  glassbox::bytecode::ObjectRef code = read_marshal(from_hex(kUnusedNamesHex), 11);
  ASSERT_TRUE(code->code);
  DecompileResult result = decompile_function(*code->code, Output::Readable);
  EXPECT_TRUE(result.fallbacks.empty());
  EXPECT_EQ(result.source,
            "def f(a):\n"
            "    b = a.x\n"
            "    return g(b)\n");
}

// CPython 3.11, torch 2.13: Dynamo's transformed code of `def f_plain(x, y): return torch.relu(x) +
// y * 2`. It calls the compiled graph while values wait on the stack, deletes locals the waiting
// values were read from, and juggles lists; the source keeps the order of evaluation with
// temporaries.
const char* kDynamoPlainHex =
    "e30200000000000000000000000600000003000000f3a4000000970074050000000000000000000074070000000000"
    "00"
    "000000006a04000000000000000078017d03a6000000ab0000000000000000007d047c007407000000000000000000"
    "00"
    "6a05000000000000000078017d057c04a6010000ab0100000000000000000100a6010000ab0100000000000000007e"
    "03"
    "7e057d0267007c026402190000000000000000006700670063026700a2020100670163027e02630301000100530029"
    "03"
    "4ee902000000e9000000002906da05746f726368da0472656c75da345f5f636f6d70696c65645f666e5f315f633161"
    "38"
    "363731395f306666375f346265385f383338395f663865633237393231393937da245f5f696d706f72745f746f7263"
    "68"
    "5f646f745f5f64796e616d6f5f646f745f7574696c73da1e7265636f72645f70726567726170685f62797465636f64"
    "65"
    "5f656e746572da1d7265636f72645f70726567726170685f62797465636f64655f657869742906da0178da0179da0b"
    "67"
    "726170685f6f75745f30da05746d705f31da05746d705f32da05746d705f3373060000002020202020207a0e2f746d"
    "70"
    "2f64322f7a6f6f2e7079da07665f706c61696e72100000000d0000007353000000f000000101ed00ed00ec00e800e8"
    "00"
    "e900ec00e800e800ed00ec00e800e800e800e900ec00e800e900ec00e800e800e800e800e800e800ec00e800e800e8"
    "00"
    "e800e800e800e800e800e800e800e800e800e800f300000000";

TEST(DecompilerGenerated, DynamoValuesOnTheStackMoveToTemporaries) {
  glassbox::bytecode::ObjectRef code = read_marshal(from_hex(kDynamoPlainHex), 11);
  ASSERT_TRUE(code->code);
  DecompileResult result = decompile_function(*code->code);
  EXPECT_TRUE(result.fallbacks.empty());
  const std::string& source = result.source;
  // The graph runs before the temporaries of the prologue are deleted, as in the bytecode.
  size_t call = source.find("_gb_tmp0 = __compiled_fn_1_");
  size_t del = source.find("del tmp_1");
  ASSERT_NE(call, std::string::npos) << source;
  ASSERT_NE(del, std::string::npos) << source;
  EXPECT_LT(call, del) << source;
  // graph_out_0[0] is read before `del graph_out_0`, not after it.
  EXPECT_NE(source.find("_gb_tmp2 = graph_out_0[0]"), std::string::npos) << source;
  EXPECT_NE(source.find("del graph_out_0\n    return _gb_tmp2\n"), std::string::npos) << source;
  EXPECT_EQ(source.find("return graph_out_0"), std::string::npos) << source;
  // The list Dynamo extends in place is named, and extended by name.
  EXPECT_NE(source.find("_gb_tmp3.extend([])"), std::string::npos) << source;
}

}  // namespace
