// Helpers of handlers.cpp (exception tables) that block_stack.cpp (3.10's block stack) uses too.
#pragma once

#include <string>
#include <vector>

#include "decompiler/ast.hpp"
#include "decompiler/lift.hpp"

namespace glassbox::decompiler {

// Whether a jump of [from, to) lands in [begin, end): code there starts a block of its own, so
// it is no copy of a short exit block (3.10 copies one whole, without a label inside).
bool jumped_into(const std::vector<Operation>& ops, int from, int to, int begin, int end);

// The finally body's copies before the exits that leave the try, stripped from `body`; false
// when an exit lacks its copy; with `may_defer`, an exit whose copy an enclosing statement's
// follows keeps it pending (handlers.cpp).
bool strip_finally_copies(Body& body, const std::string& copy_text, size_t copy_size, bool in_loop,
                          int depth, bool may_defer);

// Whether a statement of `body` still holds finally copies pending: no enclosing statement
// stripped them (handlers.cpp).
bool has_pending_copies(const Body& body, int depth = 0);

// How many times `text` (n statements) ends `body` or one of its trailing if's branches; with
// `strip`, those copies go (handlers.cpp).
int branch_end_copies(Body& body, const std::string& text, size_t n, bool strip);

inline bool is_pop_tops(const std::vector<Operation>& ops, int at, int count) {
  for (int k = 0; k < count; ++k) {
    if (static_cast<size_t>(at + k) >= ops.size() ||
        ops[static_cast<size_t>(at + k)].op != Op::PopTop)
      return false;
  }
  return true;
}

// Whether the handler at `at` is a try/except's (DUP_TOP of a typed clause, or a bare except's
// three POP_TOPs), not a finally body.
inline bool starts_except(const std::vector<Operation>& ops, int at) {
  return (ops[static_cast<size_t>(at)].op == Op::Copy && ops[static_cast<size_t>(at)].arg == 1) ||
         is_pop_tops(ops, at, 3);
}

}  // namespace glassbox::decompiler
