// Python's repr() of marshalled constants, following the rules of CPython's float_repr,
// complex_repr, bytes_repr and unicode_repr.
#include "bytecode/repr.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace glassbox::bytecode {
namespace {

// --- floats -------------------------------------------------------------------------------

struct FloatFormat {
  bool add_dot_0 = true;     // "1.0" rather than "1" (float repr; complex parts omit it)
  bool always_sign = false;  // "+1" (the imaginary part of a complex)
};

// The shortest round-tripping decimal digits of |value| (finite, may be zero) and its decimal
// point position: |value| = 0.DIGITS * 10**point.
void shortest_digits(double value, std::string& digits, int& point) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value),
                                    std::chars_format::scientific);
  // "d.ddde+XX", or "de+XX" for a single digit
  const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  const std::size_t e = text.find('e');
  digits.clear();
  for (const char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  const std::string_view exponent_text = text.substr(e + 1);
  const bool negative = exponent_text[0] == '-';
  std::from_chars(exponent_text.data() + 1, exponent_text.data() + exponent_text.size(), exponent);
  point = (negative ? -exponent : exponent) + 1;
}

// PyOS_double_to_string(value, 'r', 0, flags): shortest digits, written positionally when the
// point falls in (-4, 16] and in exponent form ("1e-05", "1.5e+16") otherwise.
std::string format_float(double value, FloatFormat format) {
  std::string sign;
  if (std::signbit(value) && !std::isnan(value)) {
    sign = "-";
  } else if (format.always_sign) {
    sign = "+";
  }
  if (std::isnan(value)) return sign + "nan";  // a NaN's sign bit is never shown
  if (std::isinf(value)) return sign + "inf";
  std::string digits;
  int point = 0;
  shortest_digits(value, digits, point);
  const auto count = static_cast<int>(digits.size());
  std::string out = sign;
  if (point <= -4 || point > 16) {
    out += digits[0];
    if (count > 1) out += "." + digits.substr(1);
    const int exponent = point - 1;
    out += exponent < 0 ? "e-" : "e+";
    const std::string magnitude = std::to_string(std::abs(exponent));
    if (magnitude.size() < 2) out += '0';
    out += magnitude;
  } else if (point <= 0) {
    out += "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  } else if (point >= count) {
    out += digits + std::string(static_cast<std::size_t>(point - count), '0');
    if (format.add_dot_0) out += ".0";
  } else {
    out += digits.substr(0, static_cast<std::size_t>(point)) + "." +
           digits.substr(static_cast<std::size_t>(point));
  }
  return out;
}

// --- str ----------------------------------------------------------------------------------

struct CodePointRange {
  std::uint32_t first;
  std::uint32_t last;
};

// Each version's own Unicode database decides what str.isprintable() says (3.13 knows
// characters 3.11 does not), so there is one table per version.
constexpr CodePointRange kNonPrintable310[] = {
#include "bytecode/unicode_printable_310.inc"
};
constexpr CodePointRange kNonPrintable311[] = {
#include "bytecode/unicode_printable_311.inc"
};
constexpr CodePointRange kNonPrintable312[] = {
#include "bytecode/unicode_printable_312.inc"
};
constexpr CodePointRange kNonPrintable313[] = {
#include "bytecode/unicode_printable_313.inc"
};

template <std::size_t N>
bool is_printable_in(const CodePointRange (&table)[N], std::uint32_t cp) {
  const auto* it = std::upper_bound(
      std::begin(table), std::end(table), cp,
      [](std::uint32_t value, const CodePointRange& range) { return value < range.first; });
  return it == std::begin(table) || cp > std::prev(it)->last;
}

// str.isprintable() for one code point, per the Unicode database of CPython 3.`minor`.
bool is_printable(std::uint32_t cp, PyMinor minor) {
  switch (minor) {
    case 10:
      return is_printable_in(kNonPrintable310, cp);
    case 12:
      return is_printable_in(kNonPrintable312, cp);
    case 13:
      return is_printable_in(kNonPrintable313, cp);
    default:
      return is_printable_in(kNonPrintable311, cp);
  }
}

// One decoded character of a str's UTF-8 text.
struct Decoded {
  std::uint32_t cp;
  bool valid;  // false: `cp` is a lone byte that starts no well-formed sequence
};

// Decodes the code point at text[i] and advances i. Encoded surrogates decode to themselves
// (surrogatepass). Marshal never yields malformed text, but repr_str takes any string, so a
// malformed byte decodes as itself, marked invalid, and prints as \xNN.
Decoded next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = [&text](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t lead = byte(i);
  if (lead < 0x80) return {byte(i++), true};
  std::size_t length = 0;
  std::uint32_t cp = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, cp = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, cp = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, cp = lead & 0x07u;
  }
  if (length == 0 || i + length > text.size()) return {byte(i++), false};
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return {byte(i++), false};
    cp = (cp << 6) | (byte(i + k) & 0x3fu);
  }
  const std::uint32_t smallest = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
  if (cp < smallest || cp > 0x10ffff) return {byte(i++), false};  // overlong or out of range
  i += length;
  return {cp, true};
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

void append_hex(std::string& out, std::uint32_t value, int digits) {
  static const char kHex[] = "0123456789abcdef";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xf];
}

// Single quotes unless the text holds a single quote and no double quote, as CPython chooses.
char choose_quote(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  return has_single && !has_double ? '"' : '\'';
}

// The escapes bytes and str share: the quote, backslash, \t \n \r, and \xNN for other
// control characters and DEL. Returns false for a character that needs none of them.
bool append_common_escape(std::string& out, std::uint32_t c, char quote) {
  if (c == static_cast<std::uint32_t>(quote) || c == '\\') {
    out += '\\';
    out += static_cast<char>(c);
  } else if (c == '\t') {
    out += "\\t";
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c < 0x20 || c == 0x7f) {
    out += "\\x";
    append_hex(out, c, 2);
  } else {
    return false;
  }
  return true;
}

void append_str_repr(std::string& out, std::string_view text, PyMinor minor) {
  const char quote = choose_quote(text);
  out += quote;
  out.reserve(out.size() + text.size() + 1);
  for (std::size_t i = 0; i < text.size();) {
    // A run of printable ASCII other than the quote and the backslash stands as it is.
    std::size_t plain = i;
    while (plain < text.size() && text[plain] >= 0x20 && text[plain] < 0x7f &&
           text[plain] != quote && text[plain] != '\\') {
      ++plain;
    }
    if (plain > i) {
      out.append(text, i, plain - i);
      i = plain;
      continue;
    }
    const auto [cp, valid] = next_code_point(text, i);
    if (append_common_escape(out, cp, quote)) continue;
    if (valid && (cp < 0x7f || is_printable(cp, minor))) {
      append_utf8(out, cp);
    } else if (cp <= 0xff) {
      out += "\\x";
      append_hex(out, cp, 2);
    } else if (cp <= 0xffff) {
      out += "\\u";
      append_hex(out, cp, 4);
    } else {
      out += "\\U";
      append_hex(out, cp, 8);
    }
  }
  out += quote;
}

void append_bytes_repr(std::string& out, std::string_view raw) {
  const char quote = choose_quote(raw);
  out += 'b';
  out += quote;
  for (const char c : raw) {
    const auto byte = static_cast<std::uint8_t>(c);
    if (append_common_escape(out, byte, quote)) continue;
    if (byte < 0x80) {
      out += c;
    } else {
      out += "\\x";
      append_hex(out, byte, 2);
    }
  }
  out += quote;
}

// --- containers ---------------------------------------------------------------------------

void append_repr(std::string& out, const Object& obj, PyMinor minor);

void append_items(std::string& out, const std::vector<ObjectRef>& items, PyMinor minor) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += ", ";
    append_repr(out, *items[i], minor);
  }
}

void append_dict(std::string& out, const std::vector<ObjectRef>& items, PyMinor minor) {
  out += '{';
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    if (i != 0) out += ", ";
    append_repr(out, *items[i], minor);
    out += ": ";
    append_repr(out, *items[i + 1], minor);
  }
  out += '}';
}

void append_code(std::string& out, const CodeObject& code) {
  // CPython formats the file name with %U: raw, not repr'd.
  out += "<code object " + code.name + " at 0x0, file \"" + code.filename + "\", line " +
         std::to_string(code.firstlineno) + ">";
}

void append_repr(std::string& out, const Object& obj, PyMinor minor) {
  switch (obj.kind) {
    case ObjectKind::None:
      out += "None";
      return;
    case ObjectKind::False:
      out += "False";
      return;
    case ObjectKind::True:
      out += "True";
      return;
    case ObjectKind::StopIteration:
      out += "<class 'StopIteration'>";
      return;
    case ObjectKind::Ellipsis:
      out += "Ellipsis";
      return;
    case ObjectKind::Int:
      out += obj.int_decimal;
      return;
    case ObjectKind::Float:
      out += repr_float(obj.real);
      return;
    case ObjectKind::Complex:
      out += repr_complex(obj.real, obj.imag);
      return;
    case ObjectKind::Bytes:
      append_bytes_repr(out, obj.text);
      return;
    case ObjectKind::Str:
      append_str_repr(out, obj.text, minor);
      return;
    case ObjectKind::Tuple:
      out += '(';
      append_items(out, obj.items, minor);
      if (obj.items.size() == 1) out += ',';
      out += ')';
      return;
    case ObjectKind::List:
      out += '[';
      append_items(out, obj.items, minor);
      out += ']';
      return;
    case ObjectKind::Dict:
      append_dict(out, obj.items, minor);
      return;
    case ObjectKind::Set:
      if (obj.items.empty()) {
        out += "set()";
        return;
      }
      out += '{';
      append_items(out, obj.items, minor);
      out += '}';
      return;
    case ObjectKind::FrozenSet:
      if (obj.items.empty()) {
        out += "frozenset()";
        return;
      }
      out += "frozenset({";
      append_items(out, obj.items, minor);
      out += "})";
      return;
    case ObjectKind::Code:
      if (obj.code) append_code(out, *obj.code);
      return;
  }
}

}  // namespace

std::string repr_float(double value) { return format_float(value, FloatFormat{}); }

// complex_repr: a complex with a real part of +0.0 prints as its imaginary part alone ("1j",
// "-0j", "nanj"); any other prints both parts in parentheses ("(-0-1j)", "(1+nanj)").
std::string repr_complex(double real, double imag) {
  if (real == 0.0 && !std::signbit(real)) {
    return format_float(imag, FloatFormat{false, false}) + "j";
  }
  return "(" + format_float(real, FloatFormat{false, false}) +
         format_float(imag, FloatFormat{false, true}) + "j)";
}

std::string repr_bytes(const std::string& raw) {
  std::string out;
  append_bytes_repr(out, raw);
  return out;
}

std::string repr_str(const std::string& utf8, PyMinor minor) {
  std::string out;
  append_str_repr(out, utf8, minor);
  return out;
}

std::string python_repr(const Object& obj, PyMinor minor) {
  std::string out;
  append_repr(out, obj, minor);
  return out;
}

}  // namespace glassbox::bytecode
