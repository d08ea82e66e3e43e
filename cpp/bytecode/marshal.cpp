// The marshal reader. One `Reader` walks the input once; every read checks the bytes it needs
// against what is left, so a corrupt or hostile input ends in a BytecodeError, never a crash.
#include "bytecode/marshal.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace glassbox::bytecode {
namespace {

constexpr int kMaxNestingDepth = kMaxMarshalDepth;
constexpr std::uint8_t kFlagRef = 0x80;
constexpr int kLongDigitBits = 15;  // marshal stores ints in base 2**15
constexpr std::uint32_t kLongDigitBase = 1u << kLongDigitBits;
// Longs beyond this many digits are not converted to decimal at all (bounded time); shorter
// ones whose decimal form exceeds sys.int_info.default_max_str_digits get the same placeholder,
// since CPython refuses to repr them.
constexpr std::size_t kMaxLongDigits = 1000;
constexpr std::size_t kMaxIntStrDigits = 4300;
constexpr std::size_t kPycHeaderSize = 16;
constexpr int kCoVarargs = 0x04;
constexpr int kCoVarkeywords = 0x08;

// What reading one object yields. Shared references ('r') let a short input describe a tree
// that is very deep or very large once expanded; `height` and `weight` (nodes plus bytes of
// text) measure that expanded tree so the reader can refuse inputs that would make the
// consumers which walk it (repr, destructors, the decompiler) recurse too deep or run too long.
struct Node {
  ObjectRef object;  // null for TYPE_NULL, and for a reserved, not yet filled reference slot
  int height = 1;
  std::uint64_t weight = 1;
  bool hashable = true;
};

const char* kind_name(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::None:
      return "None";
    case ObjectKind::False:
    case ObjectKind::True:
      return "bool";
    case ObjectKind::StopIteration:
      return "StopIteration";
    case ObjectKind::Ellipsis:
      return "ellipsis";
    case ObjectKind::Int:
      return "int";
    case ObjectKind::Float:
      return "float";
    case ObjectKind::Complex:
      return "complex";
    case ObjectKind::Bytes:
      return "bytes";
    case ObjectKind::Str:
      return "str";
    case ObjectKind::Tuple:
      return "tuple";
    case ObjectKind::List:
      return "list";
    case ObjectKind::Dict:
      return "dict";
    case ObjectKind::Set:
      return "set";
    case ObjectKind::FrozenSet:
      return "frozenset";
    case ObjectKind::Code:
      return "code";
  }
  return "object";
}

std::string describe_type_code(std::uint8_t type) {
  static const char kHex[] = "0123456789abcdef";
  std::string text = "0x";
  text += kHex[type >> 4];
  text += kHex[type & 0xf];
  if (type >= 0x20 && type < 0x7f) {
    text += " ('";
    text += static_cast<char>(type);
    text += "')";
  }
  return text;
}

// --- number conversions -------------------------------------------------------------------

// The decimal form of a magnitude given as base-2**15 digits, least significant first.
std::string digits_to_decimal(const std::vector<std::uint16_t>& digits) {
  constexpr std::uint32_t kLimbBase = 1000000000;  // nine decimal digits per limb
  std::vector<std::uint32_t> limbs;                // least significant first
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    std::uint64_t carry = *it;
    for (std::uint32_t& limb : limbs) {
      const std::uint64_t value = static_cast<std::uint64_t>(limb) * kLongDigitBase + carry;
      limb = static_cast<std::uint32_t>(value % kLimbBase);
      carry = value / kLimbBase;
    }
    while (carry != 0) {
      limbs.push_back(static_cast<std::uint32_t>(carry % kLimbBase));
      carry /= kLimbBase;
    }
  }
  if (limbs.empty()) return "0";
  std::string text = std::to_string(limbs.back());
  for (auto it = limbs.rbegin() + 1; it != limbs.rend(); ++it) {
    const std::string limb = std::to_string(*it);
    text.append(9 - limb.size(), '0');
    text += limb;
  }
  return text;
}

std::uint64_t bit_length(const std::vector<std::uint16_t>& digits) {
  std::uint64_t bits = static_cast<std::uint64_t>(digits.size() - 1) * kLongDigitBits;
  for (std::uint16_t top = digits.back(); top != 0; top >>= 1) ++bits;
  return bits;
}

std::string huge_int_placeholder(const std::vector<std::uint16_t>& digits) {
  return "<int of " + std::to_string(bit_length(digits)) + " bits>";
}

// Whether a float's text (as marshal's old 'f' format stores it) that std::from_chars found out of
// range overflowed (true) or underflowed (false): the sign of its decimal magnitude decides.
bool decimal_text_overflows(std::string_view text) {
  std::int64_t magnitude = 0;  // position of the first significant digit relative to the point
  bool seen_point = false;
  bool seen_significant = false;
  std::size_t i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    const char c = text[i];
    if (c == '.') {
      seen_point = true;
    } else if (c >= '0' && c <= '9') {
      if (c != '0') seen_significant = true;
      if (!seen_point && seen_significant) ++magnitude;
      if (seen_point && !seen_significant) --magnitude;
    }
  }
  std::int64_t exponent = 0;
  bool negative_exponent = false;
  for (++i; i < text.size(); ++i) {
    if (text[i] == '-') negative_exponent = true;
    if (text[i] >= '0' && text[i] <= '9' && exponent < 100000) {
      exponent = exponent * 10 + (text[i] - '0');
    }
  }
  return magnitude + (negative_exponent ? -exponent : exponent) > 0;
}

// Parses a float as PyOS_string_to_double does for marshal: an optional sign, then a decimal
// number or inf/infinity/nan in any case, the whole text and nothing else. Overflow gives inf.
std::optional<double> parse_float_text(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text[0] == '+' || text[0] == '-') return std::nullopt;
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (ptr != end) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    value = decimal_text_overflows(text) ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (error != std::errc()) {
    return std::nullopt;
  }
  return negative ? -value : value;
}

std::shared_ptr<Object> make_int(std::string decimal) {
  auto object = std::make_shared<Object>();
  object->kind = ObjectKind::Int;
  object->int_decimal = std::move(decimal);
  return object;
}

std::shared_ptr<Object> make_number(ObjectKind kind, double real, double imag = 0.0) {
  auto object = std::make_shared<Object>();
  object->kind = kind;
  object->real = real;
  object->imag = imag;
  return object;
}

// --- text encodings -----------------------------------------------------------------------

// The length of the UTF-8 sequence starting at `text[i]` if it is well formed, where encoded
// surrogates (U+D800..U+DFFF) are allowed as Python's "surrogatepass" allows them; 0 if not.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const auto continuation = [&](std::size_t k, std::uint8_t lo = 0x80, std::uint8_t hi = 0xbf) {
    return k < text.size() && byte(k) >= lo && byte(k) <= hi;
  };
  const std::uint8_t lead = byte(i);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(i + 1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const std::uint8_t lo = lead == 0xe0 ? 0xa0 : 0x80;
    return continuation(i + 1, lo) && continuation(i + 2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const std::uint8_t lo = lead == 0xf0 ? 0x90 : 0x80;
    const std::uint8_t hi = lead == 0xf4 ? 0x8f : 0xbf;
    return continuation(i + 1, lo, hi) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

// The index of the first byte that does not start a well-formed sequence, or npos.
std::size_t find_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string latin1_to_utf8(std::string_view text) {
  const bool ascii = std::all_of(text.begin(), text.end(),
                                 [](char c) { return static_cast<std::uint8_t>(c) < 0x80; });
  if (ascii) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<std::uint8_t>(c);
    if (byte < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xc0 | (byte >> 6));
      out += static_cast<char>(0x80 | (byte & 0x3f));
    }
  }
  return out;
}

// --- the reader ---------------------------------------------------------------------------

class Reader {
 public:
  Reader(std::string_view data, std::size_t start, PyMinor minor)
      : data_(data),
        pos_(start),
        minor_(minor),
        max_weight_(
            std::max<std::uint64_t>(std::uint64_t{1} << 22, 64 * std::uint64_t{data.size()})) {}

  // One object, which must not be TYPE_NULL.
  Node read_required(const char* context);

 private:
  // Counts nesting for the lifetime of one read_object call.
  class DepthGuard {
   public:
    explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    int& depth_;
  };

  [[noreturn]] static void fail(const std::string& reason, std::size_t offset) {
    throw BytecodeError(reason, offset);
  }
  [[noreturn]] void fail_expansion(std::size_t offset) const {
    fail("shared references expand to more than " + std::to_string(max_weight_) +
             " objects and bytes",
         offset);
  }

  std::size_t remaining() const { return data_.size() - pos_; }
  void require(std::size_t count) const;
  std::uint8_t read_u8();
  std::int32_t read_i32();
  std::int64_t read_i64();
  double read_binary_double();
  std::string_view read_raw(std::size_t count);
  std::size_t read_size(std::size_t unit, const char* what);

  Node read_object();
  Node read_value(std::uint8_t type, std::size_t start);
  static Node singleton(ObjectKind kind);
  Node read_ref();
  Node read_long(std::size_t start);
  double read_float_text();
  Node read_string(std::uint8_t type, std::size_t start);
  Node read_collection(ObjectKind kind, std::size_t count, std::size_t start);
  Node read_dict(std::size_t start);
  Node read_code(std::size_t start);
  void read_code_310(CodeObject& code, Node& tally);
  void read_code_311(CodeObject& code, Node& tally);

  // Code-object fields: each checks the field's type and adds it to `tally`.
  Node read_field(const char* field, ObjectKind kind, Node& tally);
  std::string read_bytes_field(const char* field, Node& tally);
  std::string read_str_field(const char* field, Node& tally);
  std::vector<ObjectRef> read_tuple_field(const char* field, Node& tally);
  std::vector<std::string> read_str_tuple_field(const char* field, Node& tally);

  Node finish(std::shared_ptr<Object> object, std::size_t start, int height = 1,
              std::uint64_t weight = 1, bool hashable = true) const;
  void add_child(Node& parent, const Node& child, std::size_t start) const;

  std::string_view data_;
  std::size_t pos_;
  PyMinor minor_;
  int depth_ = 0;
  std::uint64_t max_weight_;
  std::vector<Node> refs_;
};

void Reader::require(std::size_t count) const {
  if (count > remaining()) {
    fail("unexpected end of data: need " + std::to_string(count) + " byte(s), " +
             std::to_string(remaining()) + " left",
         pos_);
  }
}

std::uint8_t Reader::read_u8() {
  require(1);
  return static_cast<std::uint8_t>(data_[pos_++]);
}

std::int32_t Reader::read_i32() {
  require(4);
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(data_[pos_ + i]);
  pos_ += 4;
  return static_cast<std::int32_t>(value);
}

std::int64_t Reader::read_i64() {
  require(8);
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(data_[pos_ + i]);
  pos_ += 8;
  return static_cast<std::int64_t>(value);
}

double Reader::read_binary_double() {
  const std::uint64_t bits = static_cast<std::uint64_t>(read_i64());
  double value = 0.0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::string_view Reader::read_raw(std::size_t count) {
  require(count);
  const std::string_view bytes = data_.substr(pos_, count);
  pos_ += count;
  return bytes;
}

// A 32-bit element count, checked against the input left: every element takes at least `unit`
// bytes, so a count the rest of the input cannot hold is corrupt and nothing is reserved for it.
std::size_t Reader::read_size(std::size_t unit, const char* what) {
  const std::size_t start = pos_;
  const std::int32_t size = read_i32();
  if (size < 0) fail(std::string("negative ") + what + " size " + std::to_string(size), start);
  const auto count = static_cast<std::size_t>(size);
  if (count > remaining() / unit) {
    fail(std::string(what) + " size " + std::to_string(count) + " exceeds the " +
             std::to_string(remaining()) + " byte(s) left",
         start);
  }
  return count;
}

Node Reader::finish(std::shared_ptr<Object> object, std::size_t start, int height,
                    std::uint64_t weight, bool hashable) const {
  if (object->kind == ObjectKind::Str || object->kind == ObjectKind::Bytes ||
      object->kind == ObjectKind::Int) {
    weight += object->kind == ObjectKind::Int ? object->int_decimal.size() : object->text.size();
  }
  if (height > kMaxNestingDepth) {
    fail("objects nest deeper than " + std::to_string(kMaxNestingDepth) +
             " levels through shared references",
         start);
  }
  if (weight > max_weight_) {
    fail_expansion(start);
  }
  return Node{std::move(object), height, weight, hashable};
}

void Reader::add_child(Node& parent, const Node& child, std::size_t start) const {
  parent.height = std::max(parent.height, child.height + 1);
  parent.weight += child.weight;
  if (parent.weight > max_weight_) {
    fail_expansion(start);
  }
}

Node Reader::singleton(ObjectKind kind) {
  auto object = std::make_shared<Object>();
  object->kind = kind;
  return Node{std::move(object)};
}

Node Reader::read_required(const char* context) {
  const std::size_t start = pos_;
  Node node = read_object();
  if (!node.object) fail(std::string("NULL object (type code '0') in ") + context, start);
  return node;
}

Node Reader::read_object() {
  const std::size_t start = pos_;
  const std::uint8_t code = read_u8();
  const DepthGuard guard(depth_);
  if (depth_ > kMaxNestingDepth) {
    fail("nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels", start);
  }
  const std::uint8_t type = code & ~kFlagRef;
  switch (type) {
    case 'r':
      return read_ref();
    // Singletons never take a reference slot, even with FLAG_REF set, as in CPython.
    case '0':
      return Node{};
    case 'N':
      return singleton(ObjectKind::None);
    case 'F':
      return singleton(ObjectKind::False);
    case 'T':
      return singleton(ObjectKind::True);
    case 'S':
      return singleton(ObjectKind::StopIteration);
    case '.':
      return singleton(ObjectKind::Ellipsis);
    default:
      break;
  }
  // Like CPython, take the slot before reading the contents, so that slots are numbered in
  // the order objects start; it is filled once the object is complete.
  const bool flagged = (code & kFlagRef) != 0;
  const std::size_t slot = refs_.size();
  if (flagged) refs_.emplace_back();
  Node node = read_value(type, start);
  if (flagged) refs_[slot] = node;
  return node;
}

Node Reader::read_ref() {
  const std::size_t index_offset = pos_;
  const std::int32_t index = read_i32();
  if (index < 0 || static_cast<std::size_t>(index) >= refs_.size()) {
    fail("invalid reference " + std::to_string(index) + " (" + std::to_string(refs_.size()) +
             " object(s) referenced so far)",
         index_offset);
  }
  const Node& node = refs_[static_cast<std::size_t>(index)];
  if (!node.object) {
    fail("reference " + std::to_string(index) + " to an object that is not complete yet",
         index_offset);
  }
  return node;
}

Node Reader::read_value(std::uint8_t type, std::size_t start) {
  switch (type) {
    case 'i':
      return finish(make_int(std::to_string(read_i32())), start);
    case 'I':
      return finish(make_int(std::to_string(read_i64())), start);
    case 'l':
      return read_long(start);
    case 'f':
      return finish(make_number(ObjectKind::Float, read_float_text()), start);
    case 'g':
      return finish(make_number(ObjectKind::Float, read_binary_double()), start);
    case 'x': {
      const double real = read_float_text();
      return finish(make_number(ObjectKind::Complex, real, read_float_text()), start);
    }
    case 'y': {
      const double real = read_binary_double();
      return finish(make_number(ObjectKind::Complex, real, read_binary_double()), start);
    }
    case 's':
    case 't':
    case 'u':
    case 'a':
    case 'A':
    case 'z':
    case 'Z':
      return read_string(type, start);
    case '(':
      return read_collection(ObjectKind::Tuple, read_size(1, "tuple"), start);
    case ')':
      return read_collection(ObjectKind::Tuple, read_u8(), start);
    case '[':
      return read_collection(ObjectKind::List, read_size(1, "list"), start);
    case '<':
      return read_collection(ObjectKind::Set, read_size(1, "set"), start);
    case '>':
      return read_collection(ObjectKind::FrozenSet, read_size(1, "frozenset"), start);
    case '{':
      return read_dict(start);
    case 'c':
      return read_code(start);
    case '?':
      fail("type code '?' marks an object marshal could not write", start);
    default:
      fail("unknown type code " + describe_type_code(type), start);
  }
}

Node Reader::read_long(std::size_t start) {
  const std::size_t size_offset = pos_;
  const std::int32_t signed_count = read_i32();
  if (signed_count == std::numeric_limits<std::int32_t>::min()) {
    fail("long size out of range", size_offset);
  }
  const std::size_t count =
      static_cast<std::size_t>(signed_count < 0 ? -signed_count : signed_count);
  if (count > remaining() / 2) {
    fail("long size " + std::to_string(count) + " digits exceeds the " +
             std::to_string(remaining()) + " byte(s) left",
         size_offset);
  }
  std::vector<std::uint16_t> digits(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t digit_offset = pos_;
    const std::string_view raw = read_raw(2);
    const std::uint32_t digit =
        static_cast<std::uint8_t>(raw[0]) | (static_cast<std::uint8_t>(raw[1]) << 8);
    if (digit >= kLongDigitBase) {
      fail("long digit " + std::to_string(digit) + " out of range", digit_offset);
    }
    if (i + 1 == count && digit == 0) {
      fail("unnormalized long data (top digit is zero)", digit_offset);
    }
    digits[i] = static_cast<std::uint16_t>(digit);
  }
  if (count == 0) return finish(make_int("0"), start);
  if (count > kMaxLongDigits) return finish(make_int(huge_int_placeholder(digits)), start);
  const std::string decimal = digits_to_decimal(digits);
  if (decimal.size() > kMaxIntStrDigits) {
    return finish(make_int(huge_int_placeholder(digits)), start);
  }
  return finish(make_int((signed_count < 0 ? "-" : "") + decimal), start);
}

double Reader::read_float_text() {
  const std::size_t start = pos_;
  const std::size_t length = read_u8();
  const std::string_view text = read_raw(length);
  const std::optional<double> value = parse_float_text(text);
  if (!value) fail("invalid float text \"" + latin1_to_utf8(text) + "\"", start);
  return *value;
}

Node Reader::read_string(std::uint8_t type, std::size_t start) {
  const bool short_length = type == 'z' || type == 'Z';
  const std::size_t length = short_length ? read_u8() : read_size(1, type == 's' ? "bytes" : "str");
  const std::size_t text_offset = pos_;
  const std::string_view raw = read_raw(length);
  auto object = std::make_shared<Object>();
  if (type == 's') {
    object->kind = ObjectKind::Bytes;
    object->text.assign(raw);
  } else if (type == 't' || type == 'u') {
    const std::size_t bad = find_invalid_utf8(raw);
    if (bad != std::string_view::npos) fail("invalid UTF-8 in str", text_offset + bad);
    object->kind = ObjectKind::Str;
    object->text.assign(raw);
  } else {
    // The "ASCII" types are read as Latin-1 by CPython, without checking.
    object->kind = ObjectKind::Str;
    object->text = latin1_to_utf8(raw);
  }
  return finish(std::move(object), start);
}

Node Reader::read_collection(ObjectKind kind, std::size_t count, std::size_t start) {
  const bool is_set = kind == ObjectKind::Set || kind == ObjectKind::FrozenSet;
  const char* context = kind_name(kind);
  Node tally;
  std::vector<ObjectRef> items;
  items.reserve(count);  // bounded: read_size checked count against the input left
  bool hashable = kind == ObjectKind::Tuple || kind == ObjectKind::FrozenSet;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t item_offset = pos_;
    Node item = read_required(context);
    if (is_set && !item.hashable) {
      fail(std::string("unhashable ") + kind_name(item.object->kind) + " as a " + context +
               " element",
           item_offset);
    }
    add_child(tally, item, start);
    hashable = hashable && item.hashable;
    items.push_back(std::move(item.object));
  }
  auto object = std::make_shared<Object>();
  object->kind = kind;
  object->items = std::move(items);
  return finish(std::move(object), start, tally.height, tally.weight, hashable);
}

Node Reader::read_dict(std::size_t start) {
  Node tally;
  std::vector<ObjectRef> items;
  for (;;) {
    const std::size_t key_offset = pos_;
    Node key = read_object();
    if (!key.object) break;  // TYPE_NULL ends the dict
    if (!key.hashable) {
      fail(std::string("unhashable ") + kind_name(key.object->kind) + " as a dict key", key_offset);
    }
    Node value = read_required("dict value");
    add_child(tally, key, start);
    add_child(tally, value, start);
    items.push_back(std::move(key.object));
    items.push_back(std::move(value.object));
  }
  auto object = std::make_shared<Object>();
  object->kind = ObjectKind::Dict;
  object->items = std::move(items);
  return finish(std::move(object), start, tally.height, tally.weight, false);
}

// --- code objects -------------------------------------------------------------------------

Node Reader::read_field(const char* field, ObjectKind kind, Node& tally) {
  const std::size_t start = pos_;
  Node node = read_required(field);
  if (node.object->kind != kind) {
    fail(std::string("code object field ") + field + " must be " + kind_name(kind) + ", not " +
             kind_name(node.object->kind),
         start);
  }
  add_child(tally, node, start);
  return node;
}

std::string Reader::read_bytes_field(const char* field, Node& tally) {
  return read_field(field, ObjectKind::Bytes, tally).object->text;
}

std::string Reader::read_str_field(const char* field, Node& tally) {
  return read_field(field, ObjectKind::Str, tally).object->text;
}

std::vector<ObjectRef> Reader::read_tuple_field(const char* field, Node& tally) {
  return read_field(field, ObjectKind::Tuple, tally).object->items;
}

std::vector<std::string> Reader::read_str_tuple_field(const char* field, Node& tally) {
  const std::size_t start = pos_;
  const Node tuple = read_field(field, ObjectKind::Tuple, tally);
  const std::vector<ObjectRef>& items = tuple.object->items;
  std::vector<std::string> names;
  names.reserve(items.size());
  for (const ObjectRef& item : items) {
    if (item->kind != ObjectKind::Str) {
      fail(std::string("code object field ") + field + " must hold only str, not " +
               kind_name(item->kind),
           start);
    }
    names.push_back(item->text);
  }
  return names;
}

void Reader::read_code_310(CodeObject& code, Node& tally) {
  code.argcount = read_i32();
  code.posonlyargcount = read_i32();
  code.kwonlyargcount = read_i32();
  code.nlocals = read_i32();
  code.stacksize = read_i32();
  code.flags = read_i32();
  code.code = read_bytes_field("co_code", tally);
  code.consts = read_tuple_field("co_consts", tally);
  code.names = read_str_tuple_field("co_names", tally);
  code.varnames = read_str_tuple_field("co_varnames", tally);
  code.freevars = read_str_tuple_field("co_freevars", tally);
  code.cellvars = read_str_tuple_field("co_cellvars", tally);
  code.filename = read_str_field("co_filename", tally);
  code.name = read_str_field("co_name", tally);
  code.firstlineno = read_i32();
  code.linetable = read_bytes_field("co_linetable", tally);
  code.qualname = code.name;
  // 3.10 numbers fast locals by co_varnames and cells/frees by co_cellvars + co_freevars;
  // laying them end to end keeps both numberings as offsets into one list.
  const auto append = [&code](const std::vector<std::string>& names, std::uint8_t kind) {
    for (const std::string& name : names) {
      code.localsplusnames.push_back(name);
      code.localspluskinds.push_back(kind);
    }
  };
  append(code.varnames, kLocalKindLocal);
  append(code.cellvars, kLocalKindCell);
  append(code.freevars, kLocalKindFree);
}

void Reader::read_code_311(CodeObject& code, Node& tally) {
  code.argcount = read_i32();
  code.posonlyargcount = read_i32();
  code.kwonlyargcount = read_i32();
  code.stacksize = read_i32();
  code.flags = read_i32();
  code.code = read_bytes_field("co_code", tally);
  code.consts = read_tuple_field("co_consts", tally);
  code.names = read_str_tuple_field("co_names", tally);
  code.localsplusnames = read_str_tuple_field("co_localsplusnames", tally);
  const std::size_t kinds_offset = pos_;
  const std::string kinds = read_bytes_field("co_localspluskinds", tally);
  if (kinds.size() != code.localsplusnames.size()) {
    fail("co_localspluskinds has " + std::to_string(kinds.size()) +
             " entries but co_localsplusnames has " + std::to_string(code.localsplusnames.size()),
         kinds_offset);
  }
  code.localspluskinds.assign(kinds.begin(), kinds.end());
  code.filename = read_str_field("co_filename", tally);
  code.name = read_str_field("co_name", tally);
  code.qualname = read_str_field("co_qualname", tally);
  code.firstlineno = read_i32();
  code.linetable = read_bytes_field("co_linetable", tally);
  code.exceptiontable = read_bytes_field("co_exceptiontable", tally);
  derive_local_views(code);
}

Node Reader::read_code(std::size_t start) {
  auto code = std::make_shared<CodeObject>();
  code->minor = minor_;
  Node tally;
  if (minor_ == 10) {
    read_code_310(*code, tally);
  } else {
    read_code_311(*code, tally);
  }
  validate_code(*code, start);
  auto object = std::make_shared<Object>();
  object->kind = ObjectKind::Code;
  object->code = std::move(code);
  return finish(std::move(object), start, tally.height, tally.weight);
}

void check_minor(PyMinor minor) {
  if (minor < kMinSupportedMinor || minor > kMaxSupportedMinor) {
    throw BytecodeError("unsupported Python version 3." + std::to_string(minor) +
                        " (supported: 3.10 to 3.13)");
  }
}

}  // namespace

void validate_code(const CodeObject& code, std::size_t start) {
  const auto fail = [start](const std::string& reason) {
    throw BytecodeError("code object: " + reason, start);
  };
  if (code.argcount < 0 || code.posonlyargcount < 0 || code.kwonlyargcount < 0 ||
      code.stacksize < 0 || code.nlocals < 0 || code.flags < 0) {
    fail("negative count or flags");
  }
  if (code.posonlyargcount > code.argcount) fail("co_posonlyargcount exceeds co_argcount");
  if (code.code.size() % 2 != 0) {
    fail("co_code has an odd length " + std::to_string(code.code.size()));
  }
  const std::int64_t total_args = std::int64_t{code.argcount} + code.kwonlyargcount +
                                  ((code.flags & kCoVarargs) != 0) +
                                  ((code.flags & kCoVarkeywords) != 0);
  if (total_args > static_cast<std::int64_t>(code.varnames.size())) {
    fail(std::to_string(total_args) + " arguments but only " +
         std::to_string(code.varnames.size()) + " local names");
  }
}

ObjectRef read_marshal(std::string_view data, PyMinor minor) {
  check_minor(minor);
  Reader reader(data, 0, minor);
  return reader.read_required("top-level object").object;
}

std::optional<PyMinor> minor_from_magic(std::uint16_t magic) {
  // The magic numbers of each version's alphas through its final release.
  if (magic >= 3430 && magic <= 3439) return 10;
  if (magic >= 3450 && magic <= 3495) return 11;
  if (magic >= 3500 && magic <= 3531) return 12;
  if (magic >= 3550 && magic <= 3571) return 13;
  return std::nullopt;
}

PycFile read_pyc(std::string_view data, std::optional<PyMinor> forced_minor) {
  if (data.size() < kPycHeaderSize) {
    throw BytecodeError(
        "truncated .pyc header: " + std::to_string(data.size()) + " byte(s), need 16", data.size());
  }
  const auto byte = [&data](std::size_t i) { return static_cast<std::uint8_t>(data[i]); };
  PycFile pyc;
  pyc.magic = static_cast<std::uint16_t>(byte(0) | (byte(1) << 8));
  if (byte(2) != '\r' || byte(3) != '\n') {
    throw BytecodeError("bad .pyc magic: bytes 2-3 are not \\r\\n", 2);
  }
  pyc.flags = static_cast<std::uint32_t>(byte(4)) | (static_cast<std::uint32_t>(byte(5)) << 8) |
              (static_cast<std::uint32_t>(byte(6)) << 16) |
              (static_cast<std::uint32_t>(byte(7)) << 24);
  if (forced_minor) {
    check_minor(*forced_minor);
    pyc.minor = *forced_minor;
  } else {
    const std::optional<PyMinor> minor = minor_from_magic(pyc.magic);
    if (!minor) throw BytecodeError("unknown magic number " + std::to_string(pyc.magic), 0);
    pyc.minor = *minor;
  }
  Reader reader(data, kPycHeaderSize, pyc.minor);
  const ObjectRef top = reader.read_required("top-level object").object;
  if (top->kind != ObjectKind::Code) {
    throw BytecodeError(
        std::string("top-level object is ") + kind_name(top->kind) + ", not a code object",
        kPycHeaderSize);
  }
  pyc.code = top->code;
  return pyc;
}

}  // namespace glassbox::bytecode
