// The 3.11+ exception table (co_exceptiontable), read as dis._parse_exception_table does.
#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/error.hpp"
#include "bytecode/instructions.hpp"

namespace glassbox::bytecode {
namespace {

// Each entry is four varints: start, length and target in code units, then depth << 1 | lasti.
// Varints are 6-bit big-endian chunks with bit 6 as "more follows"; bit 7 marks an entry's start
// and is ignored when reading.
class ExceptionTableReader {
 public:
  explicit ExceptionTableReader(const std::string& table) : table_(table) {}

  bool at_end() const { return pos_ >= table_.size(); }

  int read_varint() {
    constexpr std::uint32_t kLimit = 1u << 24;  // far beyond any code size, and no overflow below
    std::uint32_t byte = next_byte();
    std::uint32_t value = byte & 63;
    while (byte & 64) {
      if (value >= kLimit) throw BytecodeError("exception table value too large", pos_);
      byte = next_byte();
      value = (value << 6) | (byte & 63);
    }
    return static_cast<int>(value);
  }

 private:
  std::uint32_t next_byte() {
    if (at_end()) throw BytecodeError("truncated exception table", pos_);
    return static_cast<std::uint8_t>(table_[pos_++]);
  }

  const std::string& table_;
  std::size_t pos_ = 0;
};

// Byte offsets of one entry, checked against the code before they become ints.
ExceptionTableEntry make_entry(long long start, long long length, long long target, int depth_lasti,
                               const CodeObject& code) {
  const auto code_size = static_cast<long long>(code.code.size());
  const long long end = start + length;
  if (end > code_size) {
    throw BytecodeError("exception table entry " + std::to_string(start) + " to " +
                        std::to_string(end) + " runs past the end of the code (" +
                        std::to_string(code_size) + " bytes)");
  }
  if (target >= code_size) {
    throw BytecodeError("exception table target " + std::to_string(target) +
                        " is outside the code (" + std::to_string(code_size) + " bytes)");
  }
  ExceptionTableEntry entry;
  entry.start = static_cast<int>(start);
  entry.end = static_cast<int>(end);
  entry.target = static_cast<int>(target);
  entry.depth = depth_lasti >> 1;
  entry.lasti = depth_lasti & 1;
  return entry;
}

}  // namespace

std::vector<ExceptionTableEntry> parse_exception_table(const CodeObject& code) {
  std::vector<ExceptionTableEntry> entries;
  if (code.minor < 11) return entries;
  ExceptionTableReader reader(code.exceptiontable);
  while (!reader.at_end()) {
    const long long start = reader.read_varint() * 2LL;
    const long long length = reader.read_varint() * 2LL;
    const long long target = reader.read_varint() * 2LL;
    const int depth_lasti = reader.read_varint();
    entries.push_back(make_entry(start, length, target, depth_lasti, code));
  }
  return entries;
}

}  // namespace glassbox::bytecode
