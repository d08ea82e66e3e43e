// The marshal reader against real .pyc images of every supported version (their expected fields
// come from the interpreters themselves, see scripts/gen_marshal_test_data.py), and its errors
// on truncated, corrupt and hostile input.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "bytecode/marshal.hpp"
#include "bytecode/repr.hpp"

namespace glassbox::bytecode {
namespace {

using namespace std::string_literals;

const std::string kTooDeep = "nesting deeper than " + std::to_string(kMaxMarshalDepth) + " levels";

struct ExpectedCode {
  const char* qualname;
  const char* name;
  // argcount, posonlyargcount, kwonlyargcount, nlocals, stacksize, flags, firstlineno
  std::vector<int> ints;
  // len(co_code), len(co_linetable), len(co_exceptiontable)
  std::vector<std::size_t> sizes;
  std::vector<std::string> varnames;
  std::vector<std::string> cellvars;
  std::vector<std::string> freevars;
  std::vector<std::string> names;
  std::vector<std::string> consts;  // repr() of each; code objects with address 0x0
};

struct SampleModule {
  int minor;
  int magic;
  const char* pyc_hex;
  std::vector<ExpectedCode> codes;  // depth first, in co_consts order
};

#include "marshal_samples.inc"

std::string unhex(const char* hex) {
  std::string out;
  for (std::size_t i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16));
  }
  return out;
}

void collect_codes(const CodeObject& code, std::vector<const CodeObject*>& out) {
  out.push_back(&code);
  for (const ObjectRef& constant : code.consts) {
    if (constant->kind == ObjectKind::Code) collect_codes(*constant->code, out);
  }
}

std::vector<std::string> const_reprs(const CodeObject& code) {
  std::vector<std::string> reprs;
  for (const ObjectRef& constant : code.consts) reprs.push_back(python_repr(*constant));
  return reprs;
}

// Runs `parse` and returns the BytecodeError it throws; fails the test if it throws none.
BytecodeError expect_error(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const BytecodeError& error) {
    return error;
  }
  ADD_FAILURE() << "no BytecodeError thrown";
  return BytecodeError("none");
}

BytecodeError marshal_error(const std::string& data, PyMinor minor = 11) {
  return expect_error([&] { read_marshal(data, minor); });
}

// --- builders for hand-made marshal data ---------------------------------------------------

std::string i32(std::int32_t value) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    out += static_cast<char>((static_cast<std::uint32_t>(value) >> (8 * i)) & 0xff);
  }
  return out;
}

std::string bytes_obj(const std::string& raw) {
  return "s" + i32(static_cast<std::int32_t>(raw.size())) + raw;
}
std::string str_obj(const std::string& text) {
  return "z" + std::string(1, static_cast<char>(text.size())) + text;
}

std::string tuple_obj(std::initializer_list<std::string> items) {
  std::string out = ")" + std::string(1, static_cast<char>(items.size()));
  for (const std::string& item : items) out += item;
  return out;
}

// The fields of a hand-made code object; the defaults make a valid `def f(a): pass` shape.
struct CodeSpec {
  std::int32_t argcount = 1, posonlyargcount = 0, kwonlyargcount = 0, nlocals = 1, stacksize = 1,
               flags = 3;
  std::string code = bytes_obj(std::string("\x97\x00\x64\x00\x53\x00", 6));
  std::string consts = tuple_obj({"N"});
  std::string names = tuple_obj({});
  std::string localsplusnames = tuple_obj({str_obj("a")});
  std::string localspluskinds = bytes_obj("\x26");  // CO_FAST_LOCAL | CO_FAST_ARG(_POS)
  std::string varnames = tuple_obj({str_obj("a")}), freevars = tuple_obj({}),
              cellvars = tuple_obj({});
  std::string filename = str_obj("f.py"), name = str_obj("f"), qualname = str_obj("f");
  std::int32_t firstlineno = 7;
  std::string linetable = bytes_obj(""), exceptiontable = bytes_obj("");
};

// Where each marshalled field of a 3.11+ code object built from defaults starts.
constexpr std::size_t kOffsetOfCode311 = 21;  // 'c' + five int32

std::string code_311(const CodeSpec& s) {
  return "c" + i32(s.argcount) + i32(s.posonlyargcount) + i32(s.kwonlyargcount) + i32(s.stacksize) +
         i32(s.flags) + s.code + s.consts + s.names + s.localsplusnames + s.localspluskinds +
         s.filename + s.name + s.qualname + i32(s.firstlineno) + s.linetable + s.exceptiontable;
}

std::string code_310(const CodeSpec& s) {
  return "c" + i32(s.argcount) + i32(s.posonlyargcount) + i32(s.kwonlyargcount) + i32(s.nlocals) +
         i32(s.stacksize) + i32(s.flags) + s.code + s.consts + s.names + s.varnames + s.freevars +
         s.cellvars + s.filename + s.name + i32(s.firstlineno) + s.linetable;
}

std::string pyc_header(std::uint16_t magic) {
  std::string header = {static_cast<char>(magic & 0xff), static_cast<char>(magic >> 8), '\r', '\n'};
  return header + std::string(12, '\0');
}

// --- real .pyc images ----------------------------------------------------------------------

TEST(MarshalSample, EveryCodeObjectMatchesCPython) {
  for (const SampleModule& sample : kSampleModules) {
    SCOPED_TRACE("Python 3." + std::to_string(sample.minor));
    const PycFile pyc = read_pyc(unhex(sample.pyc_hex));
    EXPECT_EQ(pyc.minor, sample.minor);
    EXPECT_EQ(pyc.magic, sample.magic);
    EXPECT_EQ(pyc.flags, 0u);
    std::vector<const CodeObject*> codes;
    collect_codes(*pyc.code, codes);
    ASSERT_EQ(codes.size(), sample.codes.size());
    for (std::size_t i = 0; i < codes.size(); ++i) {
      const CodeObject& code = *codes[i];
      const ExpectedCode& expected = sample.codes[i];
      SCOPED_TRACE(expected.qualname);
      EXPECT_EQ(code.minor, sample.minor);
      EXPECT_EQ(code.qualname, expected.qualname);
      EXPECT_EQ(code.name, expected.name);
      EXPECT_EQ(code.filename, "sample.py");
      const std::vector<int> ints = {code.argcount,   code.posonlyargcount, code.kwonlyargcount,
                                     code.nlocals,    code.stacksize,       code.flags,
                                     code.firstlineno};
      EXPECT_EQ(ints, expected.ints);
      const std::vector<std::size_t> sizes = {code.code.size(), code.linetable.size(),
                                              code.exceptiontable.size()};
      EXPECT_EQ(sizes, expected.sizes);
      EXPECT_EQ(code.varnames, expected.varnames);
      EXPECT_EQ(code.cellvars, expected.cellvars);
      EXPECT_EQ(code.freevars, expected.freevars);
      EXPECT_EQ(code.names, expected.names);
      EXPECT_EQ(const_reprs(code), expected.consts);
      EXPECT_EQ(code.localsplusnames.size(), code.localspluskinds.size());
    }
  }
}

const CodeObject& find_code(const CodeObject& root, const std::string& name) {
  std::vector<const CodeObject*> codes;
  collect_codes(root, codes);
  for (const CodeObject* code : codes) {
    if (code->name == name) return *code;
  }
  throw std::runtime_error("no code object " + name);
}

TEST(MarshalSample, CellArgumentIsBothLocalAndCell) {
  for (const SampleModule& sample : kSampleModules) {
    SCOPED_TRACE("Python 3." + std::to_string(sample.minor));
    const PycFile pyc = read_pyc(unhex(sample.pyc_hex));
    const CodeObject& outer = find_code(*pyc.code, "outer");
    EXPECT_EQ(outer.varnames, (std::vector<std::string>{"arg", "other", "inner"}));
    EXPECT_EQ(outer.cellvars, (std::vector<std::string>{"arg", "captured"}));
    if (sample.minor == 10) {
      // Built as varnames + cellvars + freevars, so "arg" is listed twice.
      EXPECT_EQ(outer.localsplusnames,
                (std::vector<std::string>{"arg", "other", "inner", "arg", "captured"}));
      EXPECT_EQ(outer.localspluskinds,
                (std::vector<std::uint8_t>{kLocalKindLocal, kLocalKindLocal, kLocalKindLocal,
                                           kLocalKindCell, kLocalKindCell}));
    } else {
      EXPECT_EQ(outer.localsplusnames.size(), 4u);
      EXPECT_EQ(outer.localspluskinds[0] & (kLocalKindLocal | kLocalKindCell),
                kLocalKindLocal | kLocalKindCell);
    }
    const CodeObject& inner = find_code(*pyc.code, "inner");
    EXPECT_EQ(inner.freevars, (std::vector<std::string>{"arg", "captured"}));
  }
}

TEST(MarshalSample, ReadMarshalReadsTheBodyWithoutHeader) {
  for (const SampleModule& sample : kSampleModules) {
    const std::string pyc = unhex(sample.pyc_hex);
    const ObjectRef top = read_marshal(pyc.substr(16), sample.minor);
    ASSERT_EQ(top->kind, ObjectKind::Code);
    EXPECT_EQ(top->code->name, "<module>");
    EXPECT_EQ(top->code->qualname, "<module>");
  }
}

TEST(MarshalSample, EveryTruncationIsAnErrorWithinTheInput) {
  for (const SampleModule& sample : kSampleModules) {
    const std::string pyc = unhex(sample.pyc_hex);
    for (std::size_t length = 0; length < pyc.size(); ++length) {
      const BytecodeError error = expect_error([&] { read_pyc(pyc.substr(0, length)); });
      EXPECT_LE(error.offset(), length) << error.what();
    }
  }
}

// Flipping bits anywhere must give a result or a BytecodeError, never a crash (run under ASan).
TEST(MarshalSample, CorruptBytesNeverCrash) {
  for (const SampleModule& sample : kSampleModules) {
    const std::string pyc = unhex(sample.pyc_hex);
    for (std::size_t i = 0; i < pyc.size(); ++i) {
      static const int kMasks[] = {0x01, 0x80, 0xff};  // one a position keeps the test quick
      std::string corrupt = pyc;
      corrupt[i] = static_cast<char>(corrupt[i] ^ kMasks[i % 3]);
      try {
        const PycFile parsed = read_pyc(corrupt);
        std::vector<const CodeObject*> codes;
        collect_codes(*parsed.code, codes);
        for (const CodeObject* code : codes) const_reprs(*code);
      } catch (const BytecodeError& error) {
        EXPECT_LE(error.offset(), corrupt.size());
      }
    }
  }
}

TEST(MarshalSample, ReadingWithTheWrongVersionFailsCleanly) {
  for (const SampleModule& sample : kSampleModules) {
    const std::string pyc = unhex(sample.pyc_hex);
    for (PyMinor minor = 10; minor <= 13; ++minor) {
      if ((minor == 10) == (sample.minor == 10)) continue;  // 3.11-3.13 share a layout
      EXPECT_THROW(read_pyc(pyc, minor), BytecodeError);
    }
  }
}

// --- .pyc headers --------------------------------------------------------------------------

TEST(MarshalPyc, MagicNumberRanges) {
  EXPECT_EQ(minor_from_magic(3430), 10);
  EXPECT_EQ(minor_from_magic(3439), 10);
  EXPECT_EQ(minor_from_magic(3450), 11);
  EXPECT_EQ(minor_from_magic(3495), 11);
  EXPECT_EQ(minor_from_magic(3500), 12);
  EXPECT_EQ(minor_from_magic(3531), 12);
  EXPECT_EQ(minor_from_magic(3550), 13);
  EXPECT_EQ(minor_from_magic(3571), 13);
  for (const int magic : {0, 3413, 3429, 3440, 3449, 3496, 3499, 3532, 3549, 3572, 3600, 65535}) {
    EXPECT_EQ(minor_from_magic(static_cast<std::uint16_t>(magic)), std::nullopt) << magic;
  }
}

TEST(MarshalPyc, HeaderErrors) {
  BytecodeError error = expect_error([] { read_pyc(std::string("\x6f\x0d\x0d\x0a", 4)); });
  EXPECT_EQ(error.offset(), 4u);
  EXPECT_EQ(error.reason(), "truncated .pyc header: 4 byte(s), need 16");

  error = expect_error([] { read_pyc(pyc_header(1234) + "N"); });
  EXPECT_EQ(error.offset(), 0u);
  EXPECT_EQ(error.reason(), "unknown magic number 1234");

  std::string bad_suffix = pyc_header(3495) + "N";
  bad_suffix[3] = 'x';
  error = expect_error([&] { read_pyc(bad_suffix); });
  EXPECT_EQ(error.offset(), 2u);

  error = expect_error([] { read_pyc(pyc_header(3495) + "N"); });
  EXPECT_EQ(error.offset(), 16u);
  EXPECT_EQ(error.reason(), "top-level object is None, not a code object");

  error = expect_error([] { read_pyc(pyc_header(3495)); });
  EXPECT_EQ(error.offset(), 16u);
  EXPECT_EQ(error.reason(), "unexpected end of data: need 1 byte(s), 0 left");

  EXPECT_THROW(read_pyc(pyc_header(3495) + code_311(CodeSpec{}), 9), BytecodeError);
  EXPECT_THROW(read_marshal("N", 14), BytecodeError);
}

TEST(MarshalPyc, ForcedVersionOverridesTheMagic) {
  std::string pyc = pyc_header(1234) + code_311(CodeSpec{});
  pyc[4] = 1;  // flags
  const PycFile parsed = read_pyc(pyc, 12);
  EXPECT_EQ(parsed.minor, 12);
  EXPECT_EQ(parsed.magic, 1234);
  EXPECT_EQ(parsed.flags, 1u);
  EXPECT_EQ(parsed.code->minor, 12);
  EXPECT_EQ(parsed.code->name, "f");
}

// --- scalars and containers ----------------------------------------------------------------

std::string repr_of(const std::string& data) { return python_repr(*read_marshal(data, 11)); }

TEST(MarshalValues, Scalars) {
  EXPECT_EQ(repr_of("N"), "None");
  EXPECT_EQ(repr_of("\xce"), "None");  // FLAG_REF on a singleton is ignored
  EXPECT_EQ(repr_of("T"), "True");
  EXPECT_EQ(repr_of("S"), "<class 'StopIteration'>");
  EXPECT_EQ(repr_of("i" + i32(-7)), "-7");
  EXPECT_EQ(repr_of(std::string("I\xff\xff\xff\xff\xff\xff\xff\x7f", 9)), "9223372036854775807");
  EXPECT_EQ(repr_of(std::string("l\x00\x00\x00\x00", 5)), "0");
  EXPECT_EQ(repr_of(std::string("l\xfe\xff\xff\xff\x01\x00\x01\x00", 9)), "-32769");
  EXPECT_EQ(repr_of("f\x03"
                    "1.5"),
            "1.5");
  EXPECT_EQ(repr_of("f\x05"
                    "1e999"),
            "inf");
  EXPECT_EQ(repr_of("f\x07"
                    "-1e-999"),
            "-0.0");
  EXPECT_EQ(repr_of("f\x04"
                    "+nan"),
            "nan");
  EXPECT_EQ(repr_of("x\x01"
                    "1\x02"
                    "-2"),
            "(1-2j)");
  EXPECT_EQ(repr_of(std::string("g\x00\x00\x00\x00\x00\x00\xf8\x3f", 9)), "1.5");
  EXPECT_EQ(
      repr_of(std::string("y\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f", 17)),
      "1j");
}

TEST(MarshalValues, Strings) {
  EXPECT_EQ(read_marshal("a\x02\x00\x00\x00\xe9x"s, 11)->text,
            "\xc3\xa9x");  // ASCII types read as Latin-1
  EXPECT_EQ(read_marshal("z\x02\xe9x", 11)->text, "\xc3\xa9x");
  EXPECT_EQ(read_marshal("u\x03\x00\x00\x00\xed\xa0\x80"s, 11)->text,
            "\xed\xa0\x80");  // lone surrogate kept
  EXPECT_EQ(repr_of("u\x03\x00\x00\x00\xed\xa0\x80"s), "'\\ud800'");
  EXPECT_EQ(repr_of(std::string("s\x02\x00\x00\x00\x00'", 7)), "b\"\\x00'\"");
}

TEST(MarshalValues, LongsBeyondReprLimitBecomePlaceholders) {
  // 1001 digits of 0x7fff: too long to convert at all.
  std::string data = "l" + i32(1001);
  for (int i = 0; i < 1001; ++i) data += "\xff\x7f";
  EXPECT_EQ(repr_of(data), "<int of 15015 bits>");
}

TEST(MarshalValues, ContainersAndReferences) {
  EXPECT_EQ(repr_of(")\x02\xe9\x05\x00\x00\x00r\x00\x00\x00\x00"s), "(5, 5)");
  // Singletons take no reference slot even when flagged, so slot 0 is the 7.
  EXPECT_EQ(repr_of(std::string(")\x03\xce\xe9\x07\x00\x00\x00r\x00\x00\x00\x00", 13)),
            "(None, 7, 7)");
  EXPECT_EQ(repr_of("{i\x01\x00\x00\x00N0"s), "{1: None}");
  EXPECT_EQ(repr_of(std::string("<\x00\x00\x00\x00", 5)), "set()");
  EXPECT_EQ(repr_of(std::string(">\x02\x00\x00\x00i\x02\x00\x00\x00i\x01\x00\x00\x00", 15)),
            "frozenset({2, 1})");
  EXPECT_EQ(repr_of(std::string("[\x01\x00\x00\x00)\x00", 7)), "[()]");
}

TEST(MarshalValues, NestingUpToTheLimitIsRead) {
  std::string data;
  for (int i = 0; i < kMaxMarshalDepth - 1; ++i) data += ")\x01";
  EXPECT_NO_THROW(read_marshal(data + "N", 11));
}

// --- errors --------------------------------------------------------------------------------

void expect_marshal_error(const std::string& data, std::size_t offset, const std::string& reason) {
  const BytecodeError error = marshal_error(data);
  EXPECT_EQ(error.offset(), offset) << error.what();
  EXPECT_EQ(error.reason(), reason);
}

TEST(MarshalErrors, TruncatedAndUnknown) {
  expect_marshal_error("", 0, "unexpected end of data: need 1 byte(s), 0 left");
  expect_marshal_error(std::string("i\x01\x00", 3), 1,
                       "unexpected end of data: need 4 byte(s), 2 left");
  expect_marshal_error("Q", 0, "unknown type code 0x51 ('Q')");
  expect_marshal_error("\x01", 0, "unknown type code 0x01");
  expect_marshal_error("\xd1", 0, "unknown type code 0x51 ('Q')");  // FLAG_REF | 'Q'
  expect_marshal_error("?", 0, "type code '?' marks an object marshal could not write");
  expect_marshal_error("0", 0, "NULL object (type code '0') in top-level object");
  expect_marshal_error(
      ")\x01"
      "0",
      2, "NULL object (type code '0') in tuple");
  expect_marshal_error(std::string("z\x05"
                                   "ab",
                                   4),
                       2, "unexpected end of data: need 5 byte(s), 2 left");
  expect_marshal_error(
      "f\x03"
      "1x5",
      1, "invalid float text \"1x5\"");
}

TEST(MarshalErrors, SizesAreCheckedAgainstTheInputLeft) {
  expect_marshal_error("s\xff\xff\xff\xff", 1, "negative bytes size -1");
  expect_marshal_error("s\xff\xff\xff\x7f", 1, "bytes size 2147483647 exceeds the 0 byte(s) left");
  expect_marshal_error(
      "u\x03\x00\x00\x00"s
      "ab",
      1, "str size 3 exceeds the 2 byte(s) left");
  expect_marshal_error(std::string("(\x00\x00\x00\x10", 5), 1,
                       "tuple size 268435456 exceeds the 0 byte(s) left");
  expect_marshal_error(std::string("[\x02\x00\x00\x00N", 6), 1,
                       "list size 2 exceeds the 1 byte(s) left");
  expect_marshal_error(std::string("l\x00\x00\x00\x80", 5), 1, "long size out of range");
  expect_marshal_error(std::string("l\x03\x00\x00\x00\x01\x00", 7), 1,
                       "long size 3 digits exceeds the 2 byte(s) left");
}

TEST(MarshalErrors, BadLongDigits) {
  expect_marshal_error(std::string("l\x01\x00\x00\x00\x00\x80", 7), 5,
                       "long digit 32768 out of range");
  expect_marshal_error(std::string("l\x02\x00\x00\x00\x01\x00\x00\x00", 9), 7,
                       "unnormalized long data (top digit is zero)");
}

TEST(MarshalErrors, InvalidUtf8) {
  expect_marshal_error("u\x02\x00\x00\x00\xc3\x28"s, 5, "invalid UTF-8 in str");
  expect_marshal_error(
      "t\x03\x00\x00\x00"s
      "a\xc0\x80",
      6, "invalid UTF-8 in str");  // overlong NUL
  expect_marshal_error("u\x04\x00\x00\x00\xf4\x90\x80\x80"s, 5,
                       "invalid UTF-8 in str");  // beyond U+10FFFF
}

TEST(MarshalErrors, References) {
  expect_marshal_error(std::string("r\x00\x00\x00\x00", 5), 1,
                       "invalid reference 0 (0 object(s) referenced so far)");
  expect_marshal_error(std::string("r\xff\xff\xff\xff", 5), 1,
                       "invalid reference -1 (0 object(s) referenced so far)");
  // A tuple that refers to itself: CPython would build a cycle; here it is an error.
  expect_marshal_error(std::string("\xa9\x01r\x00\x00\x00\x00", 7), 3,
                       "reference 0 to an object that is not complete yet");
}

TEST(MarshalErrors, Unhashable) {
  expect_marshal_error(std::string("{[\x00\x00\x00\x00N0", 8), 1, "unhashable list as a dict key");
  expect_marshal_error(std::string("<\x01\x00\x00\x00[\x00\x00\x00\x00", 10), 5,
                       "unhashable list as a set element");
  expect_marshal_error(std::string(">\x01\x00\x00\x00)\x01{0", 9), 5,
                       "unhashable tuple as a frozenset element");
  expect_marshal_error(std::string("{i\x01\x00\x00\x00"
                                   "0",
                                   7),
                       6, "NULL object (type code '0') in dict value");
}

TEST(MarshalErrors, NestingDepth) {
  std::string data;
  for (int i = 0; i < kMaxMarshalDepth; ++i) data += ")\x01";
  expect_marshal_error(data + "N", 2 * kMaxMarshalDepth, kTooDeep);
}

// Shared references make a chain of 1-tuples, each holding the previous one: shallow in the
// input, but deeper than the limit once expanded.
TEST(MarshalErrors, DepthThroughReferences) {
  const int count = kMaxMarshalDepth + 100;
  std::string data = "[" + i32(count) + "\xa9\x00"s;
  for (int k = 1; k < count; ++k) data += "\xa9\x01r" + i32(k - 1);
  const std::size_t item_at_limit = 5 + 2 + 7 * static_cast<std::size_t>(kMaxMarshalDepth - 1);
  expect_marshal_error(data, item_at_limit,
                       "objects nest deeper than " + std::to_string(kMaxMarshalDepth) +
                           " levels through shared references");
}

// Pairs of references to the previous tuple double the expanded size at each step.
TEST(MarshalErrors, ExpansionThroughReferences) {
  std::string data = "[" + i32(40) + "\xa9\x00"s;
  for (int k = 1; k < 40; ++k) data += "\xa9\x02r" + i32(k - 1) + "r" + i32(k - 1);
  const BytecodeError error = marshal_error(data);
  EXPECT_EQ(error.reason(), "shared references expand to more than 4194304 objects and bytes");
}

// --- code objects --------------------------------------------------------------------------

TEST(MarshalCode, HandMade311) {
  CodeSpec spec;
  spec.argcount = 1;
  spec.localsplusnames = tuple_obj({str_obj("a"), str_obj("b"), str_obj("c"), str_obj("h")});
  spec.localspluskinds =
      bytes_obj(std::string("\x66\x20\x80\x30", 4));  // arg+cell, local, free, hidden local
  const ObjectRef top = read_marshal(code_311(spec), 13);
  ASSERT_EQ(top->kind, ObjectKind::Code);
  const CodeObject& code = *top->code;
  EXPECT_EQ(code.varnames, (std::vector<std::string>{"a", "b", "h"}));
  EXPECT_EQ(code.cellvars, (std::vector<std::string>{"a"}));
  EXPECT_EQ(code.freevars, (std::vector<std::string>{"c"}));
  EXPECT_EQ(code.nlocals, 3);
  EXPECT_EQ(code.firstlineno, 7);
  EXPECT_EQ(code.qualname, "f");
  EXPECT_EQ(python_repr(*top), "<code object f at 0x0, file \"f.py\", line 7>");
}

TEST(MarshalCode, HandMade310) {
  CodeSpec spec;
  spec.varnames = tuple_obj({str_obj("a"), str_obj("b")});
  spec.cellvars = tuple_obj({str_obj("a")});
  spec.freevars = tuple_obj({str_obj("z")});
  spec.nlocals = 2;
  const ObjectRef top = read_marshal(code_310(spec), 10);
  const CodeObject& code = *top->code;
  EXPECT_EQ(code.nlocals, 2);
  EXPECT_EQ(code.qualname, "f");
  EXPECT_EQ(code.exceptiontable, "");
  EXPECT_EQ(code.localsplusnames, (std::vector<std::string>{"a", "b", "a", "z"}));
  EXPECT_EQ(code.localspluskinds, (std::vector<std::uint8_t>{kLocalKindLocal, kLocalKindLocal,
                                                             kLocalKindCell, kLocalKindFree}));
}

void expect_code_error(const CodeSpec& spec, std::size_t offset, const std::string& reason) {
  const BytecodeError error = marshal_error(code_311(spec), 12);
  EXPECT_EQ(error.offset(), offset) << error.what();
  EXPECT_EQ(error.reason(), reason);
}

TEST(MarshalCode, FieldTypesAreChecked) {
  CodeSpec spec;
  spec.code = tuple_obj({});
  expect_code_error(spec, kOffsetOfCode311, "code object field co_code must be bytes, not tuple");
  spec = CodeSpec{};
  spec.consts = "N";
  expect_code_error(spec, kOffsetOfCode311 + 11,
                    "code object field co_consts must be tuple, not None");
  spec = CodeSpec{};
  spec.names = tuple_obj({"i" + i32(1)});
  expect_code_error(spec, kOffsetOfCode311 + 14,
                    "code object field co_names must hold only str, not int");
  spec = CodeSpec{};
  spec.filename = bytes_obj("f.py");
  EXPECT_EQ(marshal_error(code_311(spec)).reason(),
            "code object field co_filename must be str, not bytes");
  spec = CodeSpec{};
  spec.localspluskinds = bytes_obj("\x20\x20");
  EXPECT_EQ(marshal_error(code_311(spec)).reason(),
            "co_localspluskinds has 2 entries but co_localsplusnames has 1");
  spec = CodeSpec{};
  spec.exceptiontable = "0";
  EXPECT_EQ(marshal_error(code_311(spec)).reason(),
            "NULL object (type code '0') in co_exceptiontable");
}

TEST(MarshalCode, CountsAreChecked) {
  CodeSpec spec;
  spec.stacksize = -1;
  expect_code_error(spec, 0, "code object: negative count or flags");
  spec = CodeSpec{};
  spec.posonlyargcount = 2;
  expect_code_error(spec, 0, "code object: co_posonlyargcount exceeds co_argcount");
  spec = CodeSpec{};
  spec.code = bytes_obj("\x97");
  expect_code_error(spec, 0, "code object: co_code has an odd length 1");
  spec = CodeSpec{};
  spec.flags = 0x0c;  // CO_VARARGS | CO_VARKEYWORDS: three arguments, one local name
  expect_code_error(spec, 0, "code object: 3 arguments but only 1 local names");
}

TEST(MarshalCode, TruncatedCodeObject) {
  const std::string full = code_311(CodeSpec{});
  for (std::size_t length = 0; length < full.size(); ++length) {
    const BytecodeError error = marshal_error(full.substr(0, length));
    EXPECT_LE(error.offset(), length);
    const bool truncated = error.reason().find("unexpected end of data") != std::string::npos ||
                           error.reason().find("exceeds the") != std::string::npos;
    EXPECT_TRUE(truncated) << error.what();
  }
}

// Code objects nested 999 deep (each level is a code object and its co_consts tuple).
TEST(MarshalCode, DeeplyNestedCodeObjects) {
  std::string data = "N";
  const int levels = kMaxMarshalDepth / 2 - 1;  // each level is a code object and its consts tuple
  for (int level = 0; level < levels; ++level) {
    CodeSpec spec;
    spec.consts = ")\x01" + data;
    data = code_311(spec);
  }
  const ObjectRef top = read_marshal(data, 11);
  const CodeObject* code = top->code.get();
  int depth = 1;
  for (; code->consts[0]->kind == ObjectKind::Code; ++depth) code = code->consts[0]->code.get();
  EXPECT_EQ(depth, levels);
  CodeSpec spec;
  spec.consts = ")\x01" + data;
  EXPECT_EQ(marshal_error(code_311(spec)).reason(), kTooDeep);
}

TEST(MarshalCode, SharedCodeObjectThroughReference) {
  const std::string code = code_311(CodeSpec{});
  const std::string data = ")\x02\xe3" + code.substr(1) + "r" + i32(0);  // 0xe3 = FLAG_REF | 'c'
  const ObjectRef top = read_marshal(data, 11);
  ASSERT_EQ(top->items.size(), 2u);
  EXPECT_EQ(top->items[0], top->items[1]);
}

}  // namespace
}  // namespace glassbox::bytecode
