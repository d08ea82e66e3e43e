#include "runtime/team_stalls.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace glassbox::runtime {
namespace {

constexpr std::int64_t kFirstBackoff = 256, kLastBackoff = 65536;
std::atomic<std::int64_t> skip_left{0};
std::atomic<std::int64_t> backoff{kFirstBackoff};

}  // namespace

bool TeamStalls::may_fork() {
  std::int64_t left = skip_left.load(std::memory_order_relaxed);
  while (left > 0) {
    if (skip_left.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) return false;
  }
  return true;
}

void TeamStalls::record(double worked, double waited) {
  std::int64_t b = backoff.load(std::memory_order_relaxed);
  if (waited > kStallSeconds && waited > kStallRatio * worked) {
    skip_left.store(b, std::memory_order_relaxed);
    backoff.store(std::min(2 * b, kLastBackoff), std::memory_order_relaxed);
  } else if (b > kFirstBackoff) {
    backoff.store(b / 2, std::memory_order_relaxed);
  }
}

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace glassbox::runtime
