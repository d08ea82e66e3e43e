// Line numbers: CPython's code.co_lines() over the 3.10 line table or the 3.11+ location table,
// and dis.findlinestarts on top of it, per version.
#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/error.hpp"
#include "bytecode/instructions.hpp"

namespace glassbox::bytecode {
namespace {

constexpr int kNoLine = -1;

// One (start, end, line) triple of co_lines(); line is kNoLine for None.
struct LineRange {
  int start;
  int end;
  int line;
};

struct LineRules {
  PyMinor minor;
  bool location_table;  // 3.11+: the location table format; 3.10: (offset delta, line delta) pairs
  bool negative_is_none;   // 3.10, 3.11: every negative line reads None; 3.12+: only -1 does
  bool merge_equal_lines;  // 3.12+: co_lines() merges neighbouring ranges with the same line
  bool starts_keep_none;   // 3.13: findlinestarts lists a change to "no line" too
};

constexpr LineRules kLineRules[] = {
    {10, false, true, false, false},
    {11, true, true, false, false},
    {12, true, false, true, false},
    {13, true, false, true, true},
};

const LineRules& line_rules(PyMinor minor) {
  for (const LineRules& rules : kLineRules) {
    if (rules.minor == minor) return rules;
  }
  throw BytecodeError("unsupported Python version 3." + std::to_string(minor));
}

[[noreturn]] __attribute__((noinline, cold)) void truncated(std::size_t pos) {
  throw BytecodeError("truncated line table", pos);
}

// (Inlined into the loops that read each byte: the throw lives out of line.)
inline std::uint8_t byte_at(const std::string& table, std::size_t pos) {
  if (pos >= table.size()) truncated(pos);
  return static_cast<std::uint8_t>(table[pos]);
}

// Code offsets stay far below int overflow; a table that reaches past this is not a real one.
constexpr int kMaxCodeOffset = 1 << 30;

int advance_offset(int end, int length, std::size_t pos) {
  if (end > kMaxCodeOffset - length)
    throw BytecodeError("line table covers more than 1 GiB of code", pos);
  return end + length;
}

// Wrapping int arithmetic, as CPython's C ints behave on the machines it runs on.
int wrapping_add(int a, int b) {
  return static_cast<int>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// 3.10: pairs of (unsigned offset delta, signed line delta); a line delta of -128 means "no line".
// Zero-length ranges only move the line.
std::vector<LineRange> ranges_from_line_table(const CodeObject& code) {
  const std::string& table = code.linetable;
  std::vector<LineRange> ranges;
  ranges.reserve(table.size() / 2);  // at most one per two-byte entry
  std::size_t pos = 0;
  int end = 0;
  int computed_line = code.firstlineno;
  while (pos < table.size()) {
    int start = end;
    int line = kNoLine;
    do {
      start = end;
      end = advance_offset(end, byte_at(table, pos), pos);
      const auto line_delta = static_cast<std::int8_t>(byte_at(table, pos + 1));
      pos += 2;
      if (line_delta == -128) {
        line = kNoLine;
      } else {
        computed_line = wrapping_add(computed_line, line_delta);
        line = computed_line;
      }
      if (start == end && pos >= table.size())
        throw BytecodeError("line table ends in an empty range", pos);
    } while (start == end);
    ranges.push_back({start, end, line});
  }
  return ranges;
}

// The 6-bit little-endian varint of the location table, starting at `pos`.
std::uint32_t read_location_varint(const std::string& table, std::size_t pos) {
  std::uint32_t byte = byte_at(table, pos);
  std::uint32_t value = byte & 63;
  unsigned shift = 0;
  while (byte & 64) {
    shift += 6;
    if (shift > 30) throw BytecodeError("location table varint too long", pos);
    byte = byte_at(table, ++pos);
    value |= (byte & 63) << shift;
  }
  return value;
}

int read_location_signed_varint(const std::string& table, std::size_t pos) {
  const std::uint32_t value = read_location_varint(table, pos);
  const int magnitude = static_cast<int>(value >> 1);
  return (value & 1) ? -magnitude : magnitude;
}

// How far an entry of the location table moves the line (Objects/locations.md): codes 0-9 and
// 15 stay, 10-12 move by 0-2, 13 and 14 carry a signed varint.
int location_line_delta(const std::string& table, std::size_t pos) {
  const int kind = (byte_at(table, pos) >> 3) & 15;
  if (kind == 13 || kind == 14) return read_location_signed_varint(table, pos + 1);
  if (kind >= 10 && kind <= 12) return kind - 10;
  return 0;
}

// 3.11+: one entry per run of code units; the first byte holds the kind and the length. Calls
// visit(range) for each entry's range, in order.
template <class Visit>
void visit_location_table(const CodeObject& code, Visit visit) {
  const std::string& table = code.linetable;
  std::size_t pos = 0;
  int end = 0;
  int computed_line = code.firstlineno;
  while (pos < table.size()) {
    const std::uint8_t first = byte_at(table, pos);
    computed_line = wrapping_add(computed_line, location_line_delta(table, pos));
    const bool no_line = (first >> 3) == 0x1f;
    const int start = end;
    end = advance_offset(end, ((first & 7) + 1) * 2, pos);
    visit(LineRange{start, end, no_line ? kNoLine : computed_line});
    do {
      ++pos;
    } while (pos < table.size() && (static_cast<std::uint8_t>(table[pos]) & 128) == 0);
  }
}

std::vector<LineRange> ranges_from_location_table(const CodeObject& code) {
  std::vector<LineRange> ranges;
  ranges.reserve(code.linetable.size() / 2);  // entries are 1 to ~8 bytes, most 1 to 3
  visit_location_table(code, [&](const LineRange& range) { ranges.push_back(range); });
  return ranges;
}

// co_lines() of `code`, with None as kNoLine.
std::vector<LineRange> co_lines(const CodeObject& code, const LineRules& rules) {
  std::vector<LineRange> ranges =
      rules.location_table ? ranges_from_location_table(code) : ranges_from_line_table(code);
  // Merged in place: `kept` never passes the range being read.
  std::size_t kept = 0;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const LineRange range = ranges[k];
    if (rules.merge_equal_lines && kept > 0 && ranges[kept - 1].line == range.line) {
      ranges[kept - 1].end = range.end;
      continue;
    }
    ranges[kept++] = range;
  }
  ranges.resize(kept);
  for (LineRange& range : ranges) {
    if (rules.negative_is_none && range.line < 0) range.line = kNoLine;
  }
  return ranges;
}

}  // namespace

std::vector<std::pair<int, int>> line_starts(const CodeObject& code) {
  const LineRules& rules = line_rules(code.minor);
  std::vector<std::pair<int, int>> starts;
  bool have_last = false;
  int last_line = kNoLine;
  auto start = [&](const LineRange& range) {
    if (range.line == kNoLine && !rules.starts_keep_none) return;
    if (have_last && range.line == last_line) return;
    have_last = true;
    last_line = range.line;
    starts.emplace_back(range.start, range.line);
  };
  if (rules.location_table) {
    // Straight from the table, without co_lines' list: merging neighbours of one line (3.12+)
    // changes no start (the second of two equal lines is never one), and 3.11, the one location
    // table version whose negative lines read None, merges none.
    starts.reserve(code.linetable.size() / 2);
    visit_location_table(code, [&](LineRange range) {
      if (rules.negative_is_none && range.line < 0) range.line = kNoLine;
      start(range);
    });
    return starts;
  }
  const std::vector<LineRange> ranges = co_lines(code, rules);
  starts.reserve(ranges.size());  // at most one per range
  for (const LineRange& range : ranges) start(range);
  return starts;
}

}  // namespace glassbox::bytecode
