// python_repr and its helpers against the text CPython prints. The marshalled cases and their
// expected repr come from Python 3.11 itself (scripts/gen_marshal_test_data.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "bytecode/marshal.hpp"
#include "bytecode/repr.hpp"

namespace glassbox::bytecode {
namespace {

using namespace std::string_literals;

struct ReprCase {
  const char* marshal_hex;
  const char* expected;
};

#include "repr_cases.inc"

std::string unhex(const char* hex) {
  std::string out;
  for (std::size_t i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16));
  }
  return out;
}

ObjectRef make(ObjectKind kind, std::vector<ObjectRef> items = {}) {
  auto object = std::make_shared<Object>();
  object->kind = kind;
  object->items = std::move(items);
  return object;
}

ObjectRef make_int(const std::string& decimal) {
  auto object = std::make_shared<Object>();
  object->kind = ObjectKind::Int;
  object->int_decimal = decimal;
  return object;
}

ObjectRef make_str(const std::string& text) {
  auto object = std::make_shared<Object>();
  object->kind = ObjectKind::Str;
  object->text = text;
  return object;
}

TEST(ReprCPython, MarshalledConstantsPrintAsCPythonPrintsThem) {
  for (const ReprCase& c : kReprCases) {
    const ObjectRef value = read_marshal(unhex(c.marshal_hex), 11);
    EXPECT_EQ(python_repr(*value), c.expected) << "marshal " << c.marshal_hex;
  }
}

TEST(ReprFloat, PositionalAndExponentForms) {
  EXPECT_EQ(repr_float(0.0), "0.0");
  EXPECT_EQ(repr_float(-0.0), "-0.0");
  EXPECT_EQ(repr_float(1.0), "1.0");
  EXPECT_EQ(repr_float(0.1), "0.1");
  EXPECT_EQ(repr_float(0.0001), "0.0001");
  EXPECT_EQ(repr_float(0.00012), "0.00012");
  EXPECT_EQ(repr_float(1e-05), "1e-05");
  EXPECT_EQ(repr_float(1.5e-05), "1.5e-05");
  EXPECT_EQ(repr_float(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(repr_float(1e15), "1000000000000000.0");
  EXPECT_EQ(repr_float(1e16), "1e+16");
  EXPECT_EQ(repr_float(1.5e20), "1.5e+20");
  EXPECT_EQ(repr_float(1e100), "1e+100");
  EXPECT_EQ(repr_float(-2.5e-300), "-2.5e-300");
  EXPECT_EQ(repr_float(5e-324), "5e-324");
  EXPECT_EQ(repr_float(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(repr_float(0.30000000000000004), "0.30000000000000004");
  EXPECT_EQ(repr_float(123456.789), "123456.789");
  EXPECT_EQ(repr_float(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(repr_float(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(repr_float(std::nan("")), "nan");
  EXPECT_EQ(repr_float(-std::nan("")), "nan");
}

// Python's repr is the shortest text that reads back as the same double.
TEST(ReprFloat, RandomDoublesRoundTrip) {
  std::mt19937_64 random(12345);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = random();
    double value = 0.0;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isfinite(value)) continue;
    const std::string text = repr_float(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
    const bool exponent_form = text.find('e') != std::string::npos;
    EXPECT_TRUE(exponent_form || text.find('.') != std::string::npos) << text;
  }
}

TEST(ReprComplex, CPythonRules) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::nan("");
  EXPECT_EQ(repr_complex(0.0, 1.0), "1j");
  EXPECT_EQ(repr_complex(0.0, -1.0), "-1j");
  EXPECT_EQ(repr_complex(0.0, 0.0), "0j");
  EXPECT_EQ(repr_complex(0.0, -0.0), "-0j");
  EXPECT_EQ(repr_complex(-0.0, -1.0), "(-0-1j)");
  EXPECT_EQ(repr_complex(-0.0, 0.0), "(-0+0j)");
  EXPECT_EQ(repr_complex(1.0, 2.0), "(1+2j)");
  EXPECT_EQ(repr_complex(-1.5, -2.5), "(-1.5-2.5j)");
  EXPECT_EQ(repr_complex(1e16, 1e-5), "(1e+16+1e-05j)");
  EXPECT_EQ(repr_complex(1234567890123456.0, 0.0), "(1234567890123456+0j)");
  EXPECT_EQ(repr_complex(0.0, inf), "infj");
  EXPECT_EQ(repr_complex(0.0, -inf), "-infj");
  EXPECT_EQ(repr_complex(nan, nan), "(nan+nanj)");
  EXPECT_EQ(repr_complex(-nan, -nan), "(nan+nanj)");
  EXPECT_EQ(repr_complex(0.0, -nan), "nanj");
  EXPECT_EQ(repr_complex(inf, -inf), "(inf-infj)");
  EXPECT_EQ(repr_complex(1.0, nan), "(1+nanj)");
}

TEST(ReprBytes, QuotesAndEscapes) {
  EXPECT_EQ(repr_bytes(""), "b''");
  EXPECT_EQ(repr_bytes("abc"), "b'abc'");
  EXPECT_EQ(repr_bytes("'"), "b\"'\"");
  EXPECT_EQ(repr_bytes("\""), "b'\"'");
  EXPECT_EQ(repr_bytes("'\""), "b'\\'\"'");
  EXPECT_EQ(repr_bytes("\\"), "b'\\\\'");
  EXPECT_EQ(repr_bytes("\t\n\r\x0b"), "b'\\t\\n\\r\\x0b'");
  EXPECT_EQ(repr_bytes("\x00\x1f\x7f\x80\xff"s), "b'\\x00\\x1f\\x7f\\x80\\xff'");
}

TEST(ReprStr, QuotesAndEscapes) {
  EXPECT_EQ(repr_str(""), "''");
  EXPECT_EQ(repr_str("abc"), "'abc'");
  EXPECT_EQ(repr_str("it's"), "\"it's\"");
  EXPECT_EQ(repr_str("say \"hi\""), "'say \"hi\"'");
  EXPECT_EQ(repr_str("'\""), "'\\'\"'");
  EXPECT_EQ(repr_str("a\\b"), "'a\\\\b'");
  EXPECT_EQ(repr_str("\t\n\r\x00\x1b\x7f"s), "'\\t\\n\\r\\x00\\x1b\\x7f'");
}

TEST(ReprStr, NonAsciiByPrintability) {
  EXPECT_EQ(repr_str("caf\xc3\xa9"), "'caf\xc3\xa9'");            // é is printable
  EXPECT_EQ(repr_str("\xc2\x80"), "'\\x80'");                     // U+0080, a control
  EXPECT_EQ(repr_str("\xc2\xa0"), "'\\xa0'");                     // no-break space (Zs)
  EXPECT_EQ(repr_str("\xc2\xad"), "'\\xad'");                     // soft hyphen (Cf)
  EXPECT_EQ(repr_str("\xcd\xb8"), "'\\u0378'");                   // unassigned
  EXPECT_EQ(repr_str("\xe2\x80\xa8"), "'\\u2028'");               // line separator (Zl)
  EXPECT_EQ(repr_str("\xe4\xb8\xad"), "'\xe4\xb8\xad'");          // CJK
  EXPECT_EQ(repr_str("\xed\xa0\x80"), "'\\ud800'");               // lone surrogate (surrogatepass)
  EXPECT_EQ(repr_str("\xf0\x9f\x98\x80"), "'\xf0\x9f\x98\x80'");  // emoji
  EXPECT_EQ(repr_str("\xf3\xa0\x80\x81"), "'\\U000e0001'");       // language tag (Cf)
  EXPECT_EQ(repr_str("\xf4\x8f\xbf\xbf"), "'\\U0010ffff'");       // noncharacter
}

TEST(ReprStr, MalformedUtf8NeverFails) {
  EXPECT_EQ(repr_str("\xff"), "'\\xff'");
  EXPECT_EQ(repr_str("a\xc3"), "'a\\xc3'");
  EXPECT_EQ(repr_str("\xc0\x80"), "'\\xc0\\x80'");
}

TEST(ReprObject, SingletonsAndInts) {
  EXPECT_EQ(python_repr(*make(ObjectKind::None)), "None");
  EXPECT_EQ(python_repr(*make(ObjectKind::True)), "True");
  EXPECT_EQ(python_repr(*make(ObjectKind::False)), "False");
  EXPECT_EQ(python_repr(*make(ObjectKind::Ellipsis)), "Ellipsis");
  EXPECT_EQ(python_repr(*make(ObjectKind::StopIteration)), "<class 'StopIteration'>");
  EXPECT_EQ(python_repr(*make_int("-12")), "-12");
}

TEST(ReprObject, Containers) {
  const ObjectRef one = make_int("1");
  const ObjectRef two = make_int("2");
  EXPECT_EQ(python_repr(*make(ObjectKind::Tuple)), "()");
  EXPECT_EQ(python_repr(*make(ObjectKind::Tuple, {one})), "(1,)");
  EXPECT_EQ(python_repr(*make(ObjectKind::Tuple, {one, two})), "(1, 2)");
  EXPECT_EQ(python_repr(*make(ObjectKind::List)), "[]");
  EXPECT_EQ(python_repr(*make(ObjectKind::List, {one})), "[1]");
  EXPECT_EQ(python_repr(*make(ObjectKind::Dict)), "{}");
  EXPECT_EQ(python_repr(*make(ObjectKind::Dict, {make_str("a"), one, two, make(ObjectKind::None)})),
            "{'a': 1, 2: None}");
  EXPECT_EQ(python_repr(*make(ObjectKind::Set)), "set()");
  EXPECT_EQ(python_repr(*make(ObjectKind::Set, {one, two})), "{1, 2}");
  EXPECT_EQ(python_repr(*make(ObjectKind::FrozenSet)), "frozenset()");
  EXPECT_EQ(python_repr(*make(ObjectKind::FrozenSet, {two, one})), "frozenset({2, 1})");
  EXPECT_EQ(python_repr(
                *make(ObjectKind::Tuple, {make(ObjectKind::Tuple, {one}), make(ObjectKind::List)})),
            "((1,), [])");
}

TEST(ReprObject, CodeObjectUsesTheRawFileName) {
  auto code = std::make_shared<CodeObject>();
  code->name = "<lambda>";
  code->filename = "dir/it's.py";
  code->firstlineno = 12;
  auto object = std::make_shared<Object>();
  object->kind = ObjectKind::Code;
  object->code = code;
  EXPECT_EQ(python_repr(*object), "<code object <lambda> at 0x0, file \"dir/it's.py\", line 12>");
}

}  // namespace
}  // namespace glassbox::bytecode
