#include "runtime/arena_layout.hpp"

#include <algorithm>
#include <utility>

namespace glassbox::runtime {

namespace {

constexpr std::size_t kAlign = 64;

std::size_t block_size(const ValueDesc& v) {
  return std::max((v.nbytes() + kAlign - 1) / kAlign * kAlign, kAlign);
}

// Position of the last read of each root slot (instructions.size() for program outputs).
std::vector<std::size_t> last_uses(const std::vector<ValueDesc>& values,
                                   const std::vector<InstrDesc>& instructions,
                                   const std::vector<std::int32_t>& outputs) {
  std::vector<std::size_t> last(values.size(), 0);
  auto root = [&](std::int32_t s) {
    return values[s].kind == ValueKind::Alias ? static_cast<std::size_t>(values[s].index)
                                              : static_cast<std::size_t>(s);
  };
  for (std::size_t pos = 0; pos < instructions.size(); ++pos) {
    for (std::int32_t s : instructions[pos].inputs) last[root(s)] = pos;
    for (std::int32_t s : instructions[pos].outputs) last[s] = std::max(last[s], pos);
  }
  for (std::int32_t s : outputs) last[root(s)] = instructions.size();
  return last;
}

using Block = std::pair<std::size_t, std::size_t>;  // (offset, size)

void coalesce(std::vector<Block>& free) {
  std::sort(free.begin(), free.end());
  std::vector<Block> out;
  for (const Block& b : free) {
    if (!out.empty() && out.back().first + out.back().second == b.first) {
      out.back().second += b.second;
    } else {
      out.push_back(b);
    }
  }
  free = std::move(out);
}

// The offset of a block of `size` bytes: the first free block large enough, else the top.
std::size_t take(std::vector<Block>& free, std::size_t size, std::size_t& top) {
  for (std::size_t i = 0; i < free.size(); ++i) {
    if (free[i].second >= size) {
      std::size_t offset = free[i].first;
      free[i] = {offset + size, free[i].second - size};
      if (free[i].second == 0) free.erase(free.begin() + static_cast<std::ptrdiff_t>(i));
      return offset;
    }
  }
  std::size_t offset = top;
  top += size;
  return offset;
}

}  // namespace

std::size_t place_arena(std::vector<ValueDesc>& values, const std::vector<InstrDesc>& instructions,
                        const std::vector<std::int32_t>& outputs) {
  std::vector<std::size_t> last = last_uses(values, instructions, outputs);
  std::vector<Block> free;
  std::vector<std::pair<std::size_t, Block>> live;  // (last use, block)
  std::size_t top = 0;
  for (std::size_t pos = 0; pos < instructions.size(); ++pos) {
    auto ended = std::stable_partition(live.begin(), live.end(),
                                       [&](const auto& l) { return l.first >= pos; });
    for (auto it = ended; it != live.end(); ++it) free.push_back(it->second);
    live.erase(ended, live.end());
    coalesce(free);
    for (std::int32_t s : instructions[pos].outputs) {
      ValueDesc& v = values[s];
      std::size_t size = block_size(v);
      v.index = static_cast<std::int64_t>(take(free, size, top));
      live.push_back({last[s], {static_cast<std::size_t>(v.index), size}});
    }
  }
  return top;
}

}  // namespace glassbox::runtime
