// The dis.dis text, checked against what each CPython version prints for small programs.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "bytecode/disassembler.hpp"
#include "bytecode/error.hpp"
#include "bytecode/marshal.hpp"
#include "bytecode/opcodes.hpp"

namespace glassbox::bytecode {
namespace {

// The source of the embedded .pyc files below (compiled as "m.py"):
//
//   def f(a, *, k=1):
//       for x in a:
//           if x < k:
//               return x
//       try:
//           g(a.b)
//       except E:
//           pass
//       return None
// m.py compiled by CPython 3.10, and what its dis.dis prints (addresses as 0x0).
constexpr const char* kModulePyc310 =
    "6f0d0d0a000000000000000000000000e3000000000000000000000000000000000300000040000000731200000064"
    "00"
    "64019c016402640384025a00640453002905e9010000002901da016b63010000000000000001000000030000000800"
    "00"
    "004300000073400000007c0044005d0a7d027c027c016b00720c7c0202000100530071027a0874007c006a01830101"
    "00"
    "57006400530004007402791f010001000100590064005300770029014e2903da0167da0162da01452903da01617202"
    "00"
    "0000da0178a9007208000000fa046d2e7079da016601000000731600000008010801080102ff02020c0104030cfe02"
    "01"
    "040102fe720a0000004e2901720a0000007208000000720800000072080000007209000000da083c6d6f64756c653e"
    "01"
    "00000073020000001200";
constexpr const char* kModuleDis310 = R"dis(  1           0 LOAD_CONST               0 (1)
              2 LOAD_CONST               1 (('k',))
              4 BUILD_CONST_KEY_MAP      1
              6 LOAD_CONST               2 (<code object f at 0x0, file "m.py", line 1>)
              8 LOAD_CONST               3 ('f')
             10 MAKE_FUNCTION            2 (kwdefaults)
             12 STORE_NAME               0 (f)
             14 LOAD_CONST               4 (None)
             16 RETURN_VALUE

Disassembly of <code object f at 0x0, file "m.py", line 1>:
  2           0 LOAD_FAST                0 (a)
              2 GET_ITER
        >>    4 FOR_ITER                10 (to 26)
              6 STORE_FAST               2 (x)

  3           8 LOAD_FAST                2 (x)
             10 LOAD_FAST                1 (k)
             12 COMPARE_OP               0 (<)
             14 POP_JUMP_IF_FALSE       12 (to 24)

  4          16 LOAD_FAST                2 (x)
             18 ROT_TWO
             20 POP_TOP
             22 RETURN_VALUE

  3     >>   24 JUMP_ABSOLUTE            2 (to 4)

  5     >>   26 SETUP_FINALLY            8 (to 44)

  6          28 LOAD_GLOBAL              0 (g)
             30 LOAD_FAST                0 (a)
             32 LOAD_ATTR                1 (b)
             34 CALL_FUNCTION            1
             36 POP_TOP
             38 POP_BLOCK

  9          40 LOAD_CONST               0 (None)
             42 RETURN_VALUE

  7     >>   44 DUP_TOP
             46 LOAD_GLOBAL              2 (E)
             48 JUMP_IF_NOT_EXC_MATCH    31 (to 62)
             50 POP_TOP
             52 POP_TOP
             54 POP_TOP

  8          56 POP_EXCEPT

  9          58 LOAD_CONST               0 (None)
             60 RETURN_VALUE

  7     >>   62 RERAISE                  0
)dis";

// m.py compiled by CPython 3.11, and what its dis.dis prints (addresses as 0x0).
constexpr const char* kModulePyc311 =
    "a70d0d0a000000000000000000000000e30000000000000000000000000200000000000000f3120000009700640064"
    "01"
    "9c01640284025a00640353002904e9010000002901da016b630100000000000000010000000400000003000000f370"
    "00"
    "000097007c0044005d0c7d027c027c016b000000000072047c026302010053008c0d09007401000000000000000000"
    "00"
    "7c006a010000000000000000a6010000ab01000000000000000001006e102300740400000000000000000000240072"
    "03"
    "010059006e0477007803590077016400530029014e2903da0167da0162da01452903da01617203000000da01787303"
    "00"
    "0000202020fa046d2e7079da0166720b0000000100000073610000008000d80d0ef000020515f0000205158801d80b"
    "0c"
    "88718a358835d81314884888488848f003000c11f00403050ddd080988218c2389068c0688068806f8dd0b0cf00001"
    "05"
    "0df00001050df00001050dd8080c8804f00301050df8f8f8e00b0f8834730c00000091142600a60a3303b20133034e"
    "29"
    "01720b000000a900f300000000720a000000fa083c6d6f64756c653e720e00000001000000732b000000f003010101"
    "d8"
    "0e0ff000080110f000080110f000080110f000080110f000080110f000080110f000080110720d000000";
constexpr const char* kModuleDis311 = R"dis(  0           0 RESUME                   0

  1           2 LOAD_CONST               0 (1)
              4 LOAD_CONST               1 (('k',))
              6 BUILD_CONST_KEY_MAP      1
              8 LOAD_CONST               2 (<code object f at 0x0, file "m.py", line 1>)
             10 MAKE_FUNCTION            2 (kwdefaults)
             12 STORE_NAME               0 (f)
             14 LOAD_CONST               3 (None)
             16 RETURN_VALUE

Disassembly of <code object f at 0x0, file "m.py", line 1>:
  1           0 RESUME                   0

  2           2 LOAD_FAST                0 (a)
              4 GET_ITER
        >>    6 FOR_ITER                12 (to 32)
              8 STORE_FAST               2 (x)

  3          10 LOAD_FAST                2 (x)
             12 LOAD_FAST                1 (k)
             14 COMPARE_OP               0 (<)
             20 POP_JUMP_FORWARD_IF_FALSE     4 (to 30)

  4          22 LOAD_FAST                2 (x)
             24 SWAP                     2
             26 POP_TOP
             28 RETURN_VALUE

  3     >>   30 JUMP_BACKWARD           13 (to 6)

  5     >>   32 NOP

  6          34 LOAD_GLOBAL              1 (NULL + g)
             46 LOAD_FAST                0 (a)
             48 LOAD_ATTR                1 (b)
             58 PRECALL                  1
             62 CALL                     1
             72 POP_TOP
             74 JUMP_FORWARD            16 (to 108)
        >>   76 PUSH_EXC_INFO

  7          78 LOAD_GLOBAL              4 (E)
             90 CHECK_EXC_MATCH
             92 POP_JUMP_FORWARD_IF_FALSE     3 (to 100)
             94 POP_TOP

  8          96 POP_EXCEPT
             98 JUMP_FORWARD             4 (to 108)

  7     >>  100 RERAISE                  0
        >>  102 COPY                     3
            104 POP_EXCEPT
            106 RERAISE                  1

  9     >>  108 LOAD_CONST               0 (None)
            110 RETURN_VALUE
ExceptionTable:
  34 to 72 -> 76 [0]
  76 to 94 -> 102 [1] lasti
  100 to 100 -> 102 [1] lasti
)dis";

// m.py compiled by CPython 3.12, and what its dis.dis prints (addresses as 0x0).
constexpr const char* kModulePyc312 =
    "cb0d0d0a000000000000000000000000e30000000000000000000000000200000000000000f3100000009700640064"
    "01"
    "9c01640284025a0079032904e9010000002901da016b630100000000000000010000000400000003000000f36e0000"
    "00"
    "97007c0044005d0b00007d027c027c016b02000073018c097c0263020100530004000900740100000000000000007c"
    "00"
    "6a02000000000000000000000000000000000000ab0100000000000001007900230074040000000000000000240072"
    "03"
    "010059007900770078035900770129014e2903da0167da0162da01452903da01617203000000da0178730300000020"
    "20"
    "20fa046d2e7079da0166720b0000000100000073490000008000d80d0ef2000205158801d80b0c88718b35d813148a"
    "48"
    "f005020515f00603050ddc080988218f2389238c06f006000c10f8f405000c0df20001050dd8080cd80b0ff0050105"
    "0d"
    "fa730c00000092152800a8093403b30134034e2901720b000000a900f300000000720a000000fa083c6d6f64756c65"
    "3e"
    "720e00000001000000730d000000f003010101d80e0ff500080110720d000000";
constexpr const char* kModuleDis312 = R"dis(  0           0 RESUME                   0

  1           2 LOAD_CONST               0 (1)
              4 LOAD_CONST               1 (('k',))
              6 BUILD_CONST_KEY_MAP      1
              8 LOAD_CONST               2 (<code object f at 0x0, file "m.py", line 1>)
             10 MAKE_FUNCTION            2 (kwdefaults)
             12 STORE_NAME               0 (f)
             14 RETURN_CONST             3 (None)

Disassembly of <code object f at 0x0, file "m.py", line 1>:
  1           0 RESUME                   0

  2           2 LOAD_FAST                0 (a)
              4 GET_ITER
        >>    6 FOR_ITER                11 (to 32)
             10 STORE_FAST               2 (x)

  3          12 LOAD_FAST                2 (x)
             14 LOAD_FAST                1 (k)
             16 COMPARE_OP               2 (<)
             20 POP_JUMP_IF_TRUE         1 (to 24)
             22 JUMP_BACKWARD            9 (to 6)

  4     >>   24 LOAD_FAST                2 (x)
             26 SWAP                     2
             28 POP_TOP
             30 RETURN_VALUE

  2     >>   32 END_FOR

  5          34 NOP

  6          36 LOAD_GLOBAL              1 (NULL + g)
             46 LOAD_FAST                0 (a)
             48 LOAD_ATTR                2 (b)
             68 CALL                     1
             76 POP_TOP

  9          78 RETURN_CONST             0 (None)
        >>   80 PUSH_EXC_INFO

  7          82 LOAD_GLOBAL              4 (E)
             92 CHECK_EXC_MATCH
             94 POP_JUMP_IF_FALSE        3 (to 102)
             96 POP_TOP

  8          98 POP_EXCEPT

  9         100 RETURN_CONST             0 (None)

  7     >>  102 RERAISE                  0
        >>  104 COPY                     3
            106 POP_EXCEPT
            108 RERAISE                  1
ExceptionTable:
  36 to 76 -> 80 [0]
  80 to 96 -> 104 [1] lasti
  102 to 102 -> 104 [1] lasti
)dis";

// m.py compiled by CPython 3.13, and what its dis.dis prints (addresses as 0x0).
constexpr const char* kModulePyc313 =
    "f30d0d0a000000000000000000000000e30000000000000000000000000200000000000000f3120000009500530053"
    "01"
    "2e0153021a006a02720067032904e9010000002901da016b630100000000000000010000000400000003000000f374"
    "00"
    "0000950055001300480c00006e0258213a120000640200004d0a000055027302200024000b0020001e005b01000000"
    "00"
    "000000005500520200000000000000000000000000000000000035010000000000002000670021005b040000000000"
    "00"
    "000007006103000020001f00670066003d031f00660129014e2903da0167da0162da01452903da01617203000000da"
    "01"
    "787303000000202020da046d2e7079da0166720b0000000100000073420000008000db0d0e8801d80b0c8d35d81314"
    "8a"
    "48f105000e0ff00603050ddc080988218f2389238c06f006000c10f8f405000c0df30001050dd8080cd80b0ff00501"
    "05"
    "0dfa730c00000094152a00aa0a3703b60137034e2901720b000000a900f300000000720a000000da083c6d6f64756c"
    "65"
    "3e720e00000001000000730d000000f003010101d80e0ff600080110720d000000";
constexpr const char* kModuleDis313 = R"dis(  0           RESUME                   0

  1           LOAD_CONST               0 (1)
              LOAD_CONST               1 (('k',))
              BUILD_CONST_KEY_MAP      1
              LOAD_CONST               2 (<code object f at 0x0, file "m.py", line 1>)
              MAKE_FUNCTION
              SET_FUNCTION_ATTRIBUTE   2 (kwdefaults)
              STORE_NAME               0 (f)
              RETURN_CONST             3 (None)

Disassembly of <code object f at 0x0, file "m.py", line 1>:
   1           RESUME                   0

   2           LOAD_FAST                0 (a)
               GET_ITER
       L1:     FOR_ITER                12 (to L3)
               STORE_FAST               2 (x)

   3           LOAD_FAST_LOAD_FAST     33 (x, k)
               COMPARE_OP              18 (bool(<))
               POP_JUMP_IF_TRUE         2 (to L2)
               JUMP_BACKWARD           10 (to L1)

   4   L2:     LOAD_FAST                2 (x)
               SWAP                     2
               POP_TOP
               RETURN_VALUE

   2   L3:     END_FOR
               POP_TOP

   5           NOP

   6   L4:     LOAD_GLOBAL              1 (g + NULL)
               LOAD_FAST                0 (a)
               LOAD_ATTR                2 (b)
               CALL                     1
               POP_TOP

   9   L5:     RETURN_CONST             0 (None)

  --   L6:     PUSH_EXC_INFO

   7           LOAD_GLOBAL              4 (E)
               CHECK_EXC_MATCH
               POP_JUMP_IF_FALSE        3 (to L8)
               POP_TOP

   8   L7:     POP_EXCEPT

   9           RETURN_CONST             0 (None)

   7   L8:     RERAISE                  0

  --   L9:     COPY                     3
               POP_EXCEPT
               RERAISE                  1
ExceptionTable:
  L4 to L5 -> L6 [0]
  L6 to L7 -> L9 [1] lasti
  L8 to L9 -> L9 [1] lasti
)dis";

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string listing_of_pyc(const char* hex) {
  const PycFile pyc = read_pyc(from_hex(hex));
  return disassemble(*pyc.code);
}

TEST(Disassemble, MatchesDis310) { EXPECT_EQ(listing_of_pyc(kModulePyc310), kModuleDis310); }
TEST(Disassemble, MatchesDis311) { EXPECT_EQ(listing_of_pyc(kModulePyc311), kModuleDis311); }
TEST(Disassemble, MatchesDis312) { EXPECT_EQ(listing_of_pyc(kModulePyc312), kModuleDis312); }
TEST(Disassemble, MatchesDis313) { EXPECT_EQ(listing_of_pyc(kModulePyc313), kModuleDis313); }

// --- Layout details, on hand-made code objects ---------------------------------------------------

CodeObject code_of(PyMinor minor, std::initializer_list<std::pair<std::string_view, int>> units) {
  CodeObject code;
  code.minor = minor;
  for (const auto& [name, arg] : units) {
    code.code += static_cast<char>(name.empty() ? 0 : opcode_table(minor).opcode_of(name));
    code.code += static_cast<char>(arg);
  }
  auto none = std::make_shared<Object>();
  code.consts = {none};
  code.name = code.qualname = "f";
  code.filename = "t.py";
  return code;
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int value : values) out += static_cast<char>(value);
  return out;
}

TEST(Disassemble, NoLineTableMeansNoLineColumn) {
  const CodeObject code = code_of(12, {{"NOP", 0}, {"JUMP_BACKWARD", 2}});
  EXPECT_EQ(disassemble(code),
            "    >>    0 NOP\n"
            "          2 JUMP_BACKWARD            2 (to 0)\n");
}

TEST(Disassemble, WideLineNumbersWidenTheColumn) {
  CodeObject code = code_of(10, {{"NOP", 0}, {"LOAD_CONST", 0}, {"RETURN_VALUE", 0}});
  code.firstlineno = 1233;
  code.linetable = bytes({2, 1, 4, 1});
  EXPECT_EQ(disassemble(code),
            "1234           0 NOP\n"
            "\n"
            "1235           2 LOAD_CONST               0 (None)\n"
            "               4 RETURN_VALUE\n");
}

TEST(Disassemble, LargeCodeWidensTheOffsetColumn) {
  CodeObject code = code_of(11, {});
  for (int i = 0; i < 5001; ++i) code.code += bytes({opcode_table(11).opcode_of("NOP"), 0});
  const std::string text = disassemble(code);
  EXPECT_EQ(text.substr(0, 28), "           0 NOP\n           ");
  EXPECT_NE(text.find("       10000 NOP\n"), std::string::npos);
}

TEST(Disassemble, ExceptionTable311) {
  CodeObject code = code_of(11, {{"NOP", 0}, {"NOP", 0}, {"PUSH_EXC_INFO", 0}, {"RERAISE", 0}});
  code.exceptiontable = bytes({0x80, 2, 2, 3});
  EXPECT_EQ(disassemble(code),
            "          0 NOP\n"
            "          2 NOP\n"
            "    >>    4 PUSH_EXC_INFO\n"
            "          6 RERAISE                  0\n"
            "ExceptionTable:\n"
            "  0 to 2 -> 4 [1] lasti\n");
}

TEST(Disassemble, LabelsAndMissingLines313) {
  // Lines: 1 for the NOP, none for the handler ("--", column widened to 4).
  CodeObject code = code_of(
      13, {{"NOP", 0}, {"JUMP_BACKWARD_NO_INTERRUPT", 2}, {"PUSH_EXC_INFO", 0}, {"RERAISE", 0}});
  code.firstlineno = 1;
  code.linetable = bytes({0x80 | (13 << 3) | 1, 0, 0x80 | (15 << 3) | 1});
  code.exceptiontable = bytes({0x80, 1, 2, 0});
  EXPECT_EQ(disassemble(code),
            "   1   L1:     NOP\n"
            "       L2:     JUMP_BACKWARD_NO_INTERRUPT 2 (to L1)\n"
            "\n"
            "  --   L3:     PUSH_EXC_INFO\n"
            "               RERAISE                  0\n"
            "ExceptionTable:\n"
            "  L1 to L2 -> L3 [0]\n");
}

TEST(Disassemble, NestedCodeObjectsFollowInConstOrder) {
  CodeObject inner = code_of(12, {{"RETURN_CONST", 0}});
  inner.name = inner.qualname = "g";
  inner.firstlineno = 7;
  CodeObject outer = code_of(12, {{"LOAD_CONST", 1}, {"RETURN_VALUE", 0}});
  auto nested = std::make_shared<Object>();
  nested->kind = ObjectKind::Code;
  nested->code = std::make_shared<const CodeObject>(inner);
  outer.consts.push_back(nested);
  EXPECT_EQ(
      disassemble(outer),
      "          0 LOAD_CONST               1 (<code object g at 0x0, file \"t.py\", line 7>)\n"
      "          2 RETURN_VALUE\n"
      "\n"
      "Disassembly of <code object g at 0x0, file \"t.py\", line 7>:\n"
      "          0 RETURN_CONST             0 (None)\n");
}

TEST(Disassemble, BadCodeThrows) {
  const CodeObject code = code_of(13, {{"LOAD_CONST", 5}});
  EXPECT_THROW(disassemble(code), BytecodeError);
}

}  // namespace
}  // namespace glassbox::bytecode
