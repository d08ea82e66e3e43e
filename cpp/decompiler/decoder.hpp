// The decoder of one code object: lifted operations to a statement tree.
//
// A symbolic value stack turns operations into expression trees (expressions.cpp); structured
// regions of the operation list become if/while/for/try/with statements (structure.cpp);
// functions, classes, lambdas, comprehensions and imports are rebuilt from their stack shapes
// (definitions.cpp). Anything the decoder cannot reconstruct raises DecodeFailure, which the
// caller (decompiler.cpp) turns into a marked fallback.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bytecode/code.hpp"
#include "decompiler/ast.hpp"
#include "decompiler/cfg.hpp"
#include "decompiler/decompiler.hpp"
#include "decompiler/lift.hpp"
#include "decompiler/normalize.hpp"
#include "decompiler/profile.hpp"

namespace glassbox::decompiler {

struct DecodeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Puts a decoder member back to the value it had at construction when the scope ends, however
// it ends (a DecodeFailure included).
template <class T>
struct Restore {
  explicit Restore(T& member) : slot(member), saved(member) {}
  Restore(const Restore&) = delete;
  Restore& operator=(const Restore&) = delete;
  ~Restore() { slot = saved; }
  T& slot;
  T saved;
};

// Marks the try statement whose handler is at `handler` open while its body is read, and closed
// again however that read ends: a DecodeFailure leaves the statement to another reading (a
// retry, the region fallbacks), which must find the try region there again, never read its body
// as code no handler covers.
struct OpenTry {
  OpenTry(std::vector<bool>& open, int handler) : slot(open), at(static_cast<size_t>(handler)) {
    slot[at] = true;
  }
  OpenTry(const OpenTry&) = delete;
  OpenTry& operator=(const OpenTry&) = delete;
  ~OpenTry() { slot[at] = false; }
  std::vector<bool>& slot;
  size_t at;
};

// Shared by the decoders of one compilation unit (a module and everything nested in it).
struct DecodeSession {
  long steps_left = 2000000;  // bounds the time of one decompilation
  Output output = Output::Exact;
  struct Failure {
    std::string code_name;
    int first_line = 0;
    std::string reason;
  };
  std::vector<Failure> failures;
};

enum class CodeRole { Module, Function, Class, Lambda, Comprehension };

// One loop being decoded: where `continue` and `break` go.
struct LoopContext {
  int continue_target = -1;
  int break_target = -1;
  int back_jump = -1;  // the loop's own jump back to its head, ending its body; -1 if none
  // Where a `break` lands (after the loop and its else) goes on with the enclosing loop's next
  // iteration: a jump there from the body may be a break the compiler threaded.
  bool breaks_thread = true;
  // The body falls into the exit (no else), the bottom test being cold: see decode_while.
  bool falls_into_break = false;
  // 3.12+: a `while True` whose cold jump back only the clauses of a try ending the body reach
  // (cold_loop_break_exit): they go on with the next iteration.
  bool clauses_jump_back = false;
  // A for loop's body end (its FOR_ITER's exit), for a body without a jump back of its own
  // (every way back threaded into the body's tests); -1 if not known.
  int body_end = -1;
};

// Whether `at` starts a named except clause's unbinding of its name, `name = None; del name`
// (three operations).
bool unbinds_clause_name(const std::vector<Operation>& ops, int at);
bool unbinds_after_pop_except(const std::vector<Operation>& ops, int at);
// The line of operation `k` (operations carry the line only where one starts); -1 if none.
int line_at(const std::vector<Operation>& ops, int k);
// Whether `at` starts `__exit__(None, None, None)` and the POP_TOP of its result (3.11+).
bool is_exit_call(const std::vector<Operation>& ops, int at);
// The same for 3.10's `__exit__(None, None, None)` and the POP_TOP of its result.
bool is_exit_call_310(const std::vector<Operation>& ops, int at);
// Whether a statement may start with `op` (it loads something, or is a NOP).
bool may_start_statement(Op op);
// Whether `op` ends a statement: a store, delete or pop, a return, raise or jump (a NOP too).
bool ends_statement(Op op);
// Whether [copy, copy + n) is a copy of the code at `original`, kept with its lines (3.12+
// copies short exit blocks into the blocks that jump to them): the same operations, starting a
// statement or returning a constant, from the same source lines.
bool is_line_copy(const std::vector<Operation>& ops, int copy, int original, int n);

class CodeDecoder {
 public:
  CodeDecoder(const bytecode::CodeObject& code, CodeRole role, DecodeSession& session,
              std::string class_name);

  // The statements of the whole code object. Throws DecodeFailure. With region_fallbacks, a
  // top-level statement that cannot be read becomes a marked fallback of its region instead
  // (regions.cpp); throws where none does.
  Body decode(bool region_fallbacks = false);

  // The decoded body of a nested code object, or a fallback body when it cannot be decoded.
  static Body decode_nested(const bytecode::CodeObject& code, CodeRole role, DecodeSession& session,
                            const std::string& class_name);

 private:
  const bytecode::CodeObject& code_;
  const CompilerProfile profile_;  // what this version's compiler does (profile.hpp)
  CodeRole role_;
  DecodeSession& session_;
  std::string class_name_;  // the enclosing class, for private name mangling
  LiftedCode lifted_;
  FlowInfo flow_;
  Normalized normalized_;  // what the compiler copied or moved (normalize.hpp)
  std::map<int, std::pair<int, int>> break_copies_;  // POP_TOP -> (loop head, copy length)
  // 3.10 `while True`: an except clause's break, the copy of the code after the loop that
  // follows its POP_EXCEPT -> (loop head, copy length); how many were read as breaks.
  std::map<int, std::pair<int, int>> clause_breaks_;
  int clause_breaks_read_ = 0;
  // 3.12+: the copy that breaks out of except clauses hold of the code after a `while True` that
  // nothing else reaches (decode_clause_break_copy), its first operation and length; -1 if none.
  int clause_break_tail_ = -1;
  int clause_break_tail_length_ = 0;
  std::vector<int> max_line_before_;  // on_new_line: the highest line before each operation
  std::set<int> shared_lines_;        // on_return_line: lines started by anything but a return
  bool returns_after_ = false;        // decode_with: the statement's code-after is a copied return
  // decode_with: the with statements whose bodies are being decoded, by handler: the body's end
  // and where the statement goes on (enclosing_with_exit_end)
  std::map<int, std::pair<int, int>> open_with_ends_;
  // Readings that rest on the exception table alone (its coverage deciding between two readings
  // of the same jumps, decode_condition; where a try body ends, decode_try): whether they may be
  // used, and whether one was. A decode that fails after using one is read again without them.
  bool table_readings_ = true;
  bool used_table_reading_ = false;
  // 3.12+: whether tests jumping to copies of one exit on other lines read as nested ifs
  // (exit_copies_on_other_lines), and whether a finally copy failed to match the finally body
  // after one did so: a decode that fails so is read again with them as an and-chain.
  bool chains_apart_by_lines_ = true;
  mutable bool read_chain_apart_ = false;
  bool copy_unmatched_apart_ = false;
  std::vector<ExprPtr> stack_;
  Body* out_ = nullptr;
  std::vector<LoopContext> loops_;
  int threaded_breaks_ = 0;  // breaks of the innermost for loop read where !breaks_thread
  std::vector<std::shared_ptr<const bytecode::CodeObject>> functions_;  // Internal "function" refs
  std::vector<int> function_loads_;  // the LOAD_CONST of each, or -1
  bool starts_own_line(int function_ref) const;
  std::vector<bool> opened_try_;
  // 3.10: the SETUP_FINALLY of each try/except whose body is being read, innermost last.
  std::vector<int> open_except_bodies_;
  std::vector<int> try_covering_;  // per operation: the try/with handler covering it, else -1
  std::vector<bool> consumed_;     // handler code decoded with its statement, or cleanup blocks  //
                                   // handler targets whose try statement is being decoded
  std::vector<int> open_loop_entries_;  // loop entry points being decoded (no re-detection)
  std::vector<int> clause_end_jumps_;   // copies of an except clause's exit, now to its end
  int evaluate_depth_ = 0;              // nesting of evaluate() (conditional expressions)
  size_t statement_depth_ = 0;  // stack depth between statements (an enclosing for loop's iterator)
  size_t last_emit_depth_ = 0;  // stack depth when the last statement was emitted
  // A with's exit call with no value under it (a break's or the body's end), skipped since the
  // last statement was emitted: the stack depth then; -1 if none (skip_with_exit_call).
  int bare_exit_depth_ = -1;
  int bare_exit_at_ = -1;  // where that exit call starts
  int stmt_start_ = 0;     // first operation of the statement being decoded
  int if_expression_end_ = 0;
  // While a conditional expression's then-part is read: its end (where its closing jump goes)
  // and that jump. An and/or value inside it jumps straight to the end (jump threading).
  std::pair<int, int> if_expression_join_{-1, -1};
  int expression_only_ = 0;  // > 0 while evaluating an expression region: statements are errors
  // A trial read of a conditional expression's branch (evaluate's `refused`) runs a store or
  // POP_TOP: the statement that ends it fails the trial by setting statement_refused_ rather than
  // by throwing (see store and pop_top). Taken by the first store or pop_top that runs.
  bool soft_statement_ = false;
  bool keep_handler_store_ = false;  // a store of None to the clause's name the clause wrote
  bool statement_refused_ = false;
  ExprPtr captured_target_;   // the target stored into a loop/with/except pseudo value
  std::string handler_name_;  // the `as` name of the except clause being decoded
  // The `as` names of the except clauses enclosing that clause, and whether the store being read
  // is the unbinding of one as a jump leaves it (unwinds_enclosing_clause).
  std::vector<std::string> enclosing_clause_names_;
  bool unbinds_enclosing_clause_ = false;
  bool unwinds_enclosing_clause(int at) const;
  size_t clause_loops_ = 0;  // how many loops enclose the try of that clause (loops_.size())

  // ---- structure.cpp: regions of operations to statements
  Body decode_range(int begin, int end, int exit);
  void place_return_value(Stmt& s) const;  // a return's value on a later line
  Body decode_range_extending(int begin, int* end, int limit, int exit);
  int decode_statement(int i, int end, int exit);
  int decode_break_copy(int i, int end);  // a break the layout shows without a jump, or -1
  int nested_while_true_jump(int i, int end) const;  // 3.12+: its bottom jump, or -1
  int decode_clause_break_copy(int i, int end);      // 3.12+: one leaving an except clause, or -1
  int decode_nop_break_copy(int i, int end);  // a break's NOP, then a copy of the exit; or -1
  int decode_try_break_copy(int i, int end);  // 3.10 POP_BLOCK, then a copy of the exit; or -1
  bool nop_break_copy_at(int i) const;
  bool copies_loop_exit(int i) const;  // the block ending at return `i` copies a while's exit
  const LoopContext* innermost_while() const;  // the innermost loop, a `while`; or nullptr
  bool breaks_before(int k) const;             // compiler_break's NOP before the unwinding at k
  bool covered_by_try_from(int k, int from) const;
  int absent_break_target_copy(int k, int end) const;                        // its length, or 0
  int break_copy_length(int k, int end, int break_target, bool while_true);  // or -1
  int decode_at_statement_start(int i, int end, int exit);  // a loop or try starting at i, or -1
  bool covers_while_test(int i, const HandlerRegion& region) const;  // a try holding a loop
  bool continue_covered_by(int head, int handler) const;             // a try outside the loops
  bool closes_nested_loop(int i, int end, int* source) const;        // a loop opening a loop's body
  bool closes_cold_nested_loop(int i, int end, int* source) const;
  int decode_loop_at(int i, int end, int exit, int source, bool nested);  // a loop at i, or -1
  int decode_jump(int i, int end, int exit);
  bool jump_before_loop_end(int i, int target, int exit) const;
  bool jump_back_copy_at(int at) const;  // 3.13: duplicate_exits_without_lineno's, a test's
  // 3.12+: a jump back to the loop's head leaving the try body it ends (a written `continue`)
  bool continue_leaves_try(int i, int target) const;
  bool lands_on_head_nop(int i, int target) const;  // 3.11+: a written `continue`
  bool interruptible_clause_exit(int i) const;      // 3.13+: a written `continue`
  int decode_for(int i, int end, int region_exit = -1);
  int decode_while_true(int head, int last_jump, int end, int region_exit);
  // 3.12+: the end of a with or try statement of the loop open across its last jump back
  int open_statement_end(int head, int exit, int end) const;
  int body_past_last_jump_back(int head, int exit, int end) const;  // the body's end
  int while_true_exit(int head, int last_jump, int end, bool* ends_in_break) const;  // its end
  bool jumped_to_from(int begin, int last, int target) const;
  int cold_loop_break_exit(int head, int last_jump) const;
  bool reaches_range(int from, int begin, int end) const;
  bool jumped_over_to(int begin, int target) const;
  int cold_break_target(int head, int loop_exit, int end, int region_exit,
                        int break_target) const;  // 3.12+: breaks from cold handler code
  int cold_with_exit_break(int head, int last_jump, int end);  // 3.12+: to a with's cold exit
  int cold_code_after_loop(int head, int last_jump, int loop_exit, int end, int region_exit,
                           int* jump) const;
  bool leaves_try_except(int head, int p) const;  // 3.10: POP_EXCEPT/POP_BLOCK of a try/except
  void note_clause_break_copies(int head, int last_jump, int loop_exit, int end, int region_exit,
                                int* clause_tail, int* clause_tail_length);  // 3.10
  bool while_true_spelled_true(int head) const;            // `while True`, not `while 1`
  bool while_true_written(int head, int last_jump) const;  // never `while test`
  void turn_back_written_continue(const StmtPtr& s);
  void emit_while_true(Body body, bool ends_in_break, bool spelled_true,
                       bool written);  // or `while test`
  int loop_handler_code_end(int head, int last_jump, int end) const;
  int loop_clauses_reraise(int head, int last_jump, int end) const;
  bool breaks_past_region(int begin, int body_end, int end, int region_exit) const;
  std::vector<int> handler_exits(int begin, int end) const;
  struct WhileShape {
    bool found = false;
    int body = 0;           // first operation of the body
    int tail = 0;           // the test's copy jumps back from here
    int exit = 0;           // first operation after the loop (or its else)
    bool threaded = false;  // the top test jumps over the jump to the exit (3.12+)
    bool open_end = false;  // the body never falls off its end: no bottom test
    int loop_test = -1;     // not found: the loop's test starts here, after an if's test
    int chain_cleanup = 0;  // the top test's jump over its chained comparison's cleanup, and it
    // The bottom test is cold code past the exit (3.12+, see while_head).
    bool cold_tail = false;
  };
  WhileShape while_head(int head) const;
  bool read_threaded_while(int head, int k, WhileShape& shape) const;  // 3.12+ threaded exit
  WhileShape chained_while(int head, int k, int cleanup) const;  // a chained comparison's test
  bool body_never_falls_off(int head, int body, int tail, int exit) const;  // no bottom test
  bool body_falls_into(int body, int end) const;
  int exit_past_copies(int tail, int target) const;  // the exit past copies of the code after it
  int warm_bottom_test(int k, int tail) const;
  bool read_rotated_while(int head, int k, WhileShape& shape) const;  // test ending at k
  bool test_goes_on(int k, int exit) const;  // an and-test's later item after k
  int loop_test_after_if_test(int head, int body, int tail) const;
  int chained_test_cleanup(int from, int last) const;
  bool chained_links_to(int from, int last, int cleanup) const;
  int chained_exit_way(int at, int exit) const;
  bool chained_test_repeated(int head, int last, int body, int bottom, int exit) const;
  int decode_if_around_loop(int head, int loop_test, int exit);
  int decode_while(int head, const WhileShape& shape, int end);
  ExprPtr while_test(int head, const WhileShape& shape);  // the loop's test, read at its head
  void check_while_test_copy(int head, const WhileShape& shape, int body_end,
                             int jumps_back) const;  // throws where the bottom copy differs
  int decode_try(int i, int end, int exit);
  // ---- handlers.cpp: try statements from exception tables
  // Where a try/except statement's body, else, clauses and the code after it lie.
  struct TryExceptShape {
    int handler = -1;
    int cleanup = -1;  // the handler's cleanup block
    int body_end = -1;
    int else_end = -1;
    int try_end = -1;
    int join = -1;                // where the body, the else and the clauses go on
    bool jumps_over = false;      // the body's normal path jumps over the handler code
    bool jumps_back = false;      // or back to the loop's head, just before it
    int back_join = -1;           // 3.12+ places handlers after the function's code; they jump back
    bool handlers_leave = false;  // a clause jumps past the statement
    bool sequential = false;      // the handlers never rejoin; what follows is not an else
    int tail_copy = -1;           // the original of the copied code after the statement
    int tail_copy_length = 0;
    bool clauses_continue = false;  // 3.12+: the clauses end in `continue` or `break`
    bool cold = false;              // 3.12+: the statement lies in handler code
    int outside = -1;               // 3.12+: the code after the statement, after the handlers
    int outside_end = -1;
    int outside_consumed = -1;               // past the jump back that ends it
    std::pair<int, int> after_clause{0, 0};  // the code after the statement, inside a clause
    bool outside_in_clause = false;          // outside: read from a clause (clause_after_region)
    std::pair<int, int> with_exit{0, 0};     // 3.12+: the enclosing with's exit, after the handlers
    std::pair<int, int> join_copy{0, 0};     // 3.12+: the clauses' copies of the exit at body_end
  };
  // the innermost loop's exit or head
  bool leaves_loop(int target) const;
  // the body's jump over the handler code, or back to the loop's head before it
  void read_except_jumps(int i, int end, int exit, TryExceptShape& s) const;
  // where the else and the statement end
  void read_except_join(int i, int end, TryExceptShape& s) const;
  // 3.12+: the clauses join the body at its exit through line copies of it
  void read_except_join_copies(const std::vector<int>& targets, TryExceptShape& s) const;
  // 3.12+: handlers that never rejoin
  void read_except_sequential(int i, int end, TryExceptShape& s) const;
  bool names_met_after_handler(const TryExceptShape& s) const;  // module code: co_names order
  int else_end_by_names(const TryExceptShape& s) const;         // module code: co_names order
  // 3.12+: every named clause's `return None` written (not a copy of the code's end)
  bool clause_returns_written(const TryExceptShape& s) const;
  // 3.12+: clauses ending in `continue`, then code whose handlers were compiled later
  void read_clauses_continue_before_code(int i, int end, TryExceptShape& s) const;
  // in a clause's body, at the handler's level
  bool in_except_clause_body(int k, int cleanup) const;
  // the code after the statement past a clause's POP_EXCEPT at `p`, or -1
  int after_pop_except(int p, int cleanup, int original = -1) const;
  // `k` ends an except clause
  bool ends_except_clause(int k, int handler, int cleanup) const;
  // 3.12+: the code after the statement copied into each clause
  void read_except_tail_copy(int end, int exit, TryExceptShape& s) const;
  // 3.13: clauses ending in `continue`
  void read_clauses_continue(int end, TryExceptShape& s) const;
  // 3.13: the body's jumps to the code after it: 1 all covered, 0 none, -1 no such jump
  int body_jumps_to_else_covered(const TryExceptShape& s) const;
  // 3.13: an else whose jump back was not threaded
  void read_else_not_threaded(TryExceptShape& s) const;
  // the statement's end; 3.12+: the code after it placed after the handler code
  void read_except_outside(int i, int end, int exit, TryExceptShape& s) const;
  // the jump back to the loop's head that ends the code at `from`, or -1
  int loop_tail_end(int from, int cleanup, int head) const;
  // the end of the code at `from` where it returns, raises or falls into the loop's cold bottom
  // test (nested statements' handler code inline), or -1
  int cold_loop_tail_end(int from, int cleanup, int head) const;
  // the join
  void read_except_end(int i, int end, int exit, TryExceptShape& s) const;
  // the statement with its body and else
  StmtPtr decode_except_body_and_else(int i, int end, int exit, TryExceptShape& s);
  void end_with_fall_break(int i, Stmt& stmt, const TryExceptShape& s) const;
  // the body or else reaches the code after the statement
  bool except_body_falls_through(int i, const TryExceptShape& s) const;
  // an except clause's type test and binding; returns the clause's end
  int read_except_test(int k, int cleanup, ExceptHandler& clause, std::string& bound,
                       int* body_begin);
  // where a clause's own code ends
  int except_clause_decode_end(int body_begin, int clause_end, int end, bool body_falls_through,
                               TryExceptShape& s);
  // 3.12+: the code after the statement in a clause past the region, read after it
  int clause_after_region(int q, int clause_end, int end, TryExceptShape& s) const;
  bool loop_break_copy(int q, int clause_end) const;  // a break's copy of the loop's exit code
  // 3.12+: the code after a clause's last POP_EXCEPT, running to its end; -1 if none
  int clause_last_exit(int body_begin, int clause_end, int cleanup) const;
  // the body's way out at the region's end written, the code after the statement following it
  void end_with_loop_jump(Stmt& stmt, const TryExceptShape& s) const;
  // a clause's body, its exit's copies read as jumps to its end
  Body decode_except_clause_body(int body_begin, int decode_end, const std::string& bound,
                                 const std::string& name, const std::string& saved_name,
                                 const TryExceptShape& s);
  // one except clause; returns where the next starts
  int decode_except_clause(int k, int end, bool body_falls_through, const std::string& saved_name,
                           TryExceptShape& s, std::vector<ExceptHandler>& handlers);
  // the statement emitted, the code after it moved out
  void emit_try_except(StmtPtr& stmt, int exit, const TryExceptShape& shape);
  // the body's end past the jumps the table leaves out
  int try_body_end(int i, int end, int handler, int body_end) const;
  int inlined_body_exit_end(int i, int end, int handler, int body_end) const;
  bool else_returns_before(int k, int t, int i, int handler) const;
  // except clauses, not a finally body
  bool handler_is_except(int handler) const;
  // covered by `handler`, directly or through nested handlers
  bool in_try_body(int k, int handler) const;
  // the body's tail repeats the code after the statement (3.12+)
  bool cold_tail_copied(int last, int length, int handler, bool is_except) const;
  // the body's end before the cold code the table also covers (3.12+)
  int cold_body_end(int i, int end, int handler, int body_end, bool is_except);
  // one except* clause, up to the next one's start
  ExceptHandler decode_star_clause(int k, int cleanup, const std::vector<ExprPtr>& saved_stack,
                                   const std::string& saved_name, int* next);
  // the end of an except* handler, re-raising what no clause handled
  int star_reraise(int e, int cleanup, int* pop_except) const;
  // Where an except* statement's body, else and the code after it lie.
  struct StarJoin {
    int else_end = -1;
    int try_end = -1;
    int else_begin = -1;  // the else, where it is not right after the body (3.11)
    int tail_begin = -1;  // the code after the statement at the handler's end (3.12+)
  };
  // the except* handler's way out after its POP_EXCEPT
  StarJoin star_join(int body_end, int handler, int cleanup, int pop_except, int reraise);
  // the length of a finally body's normal-path copy
  int finally_copy_length(int final_begin, int final_end, bool cold) const;
  bool normal_copy_is_cold(int k) const;  // 3.12+: after an async for, nothing jumping there
  // the same, 3.12+: what the handler reaches without raising
  int cold_finally_copy_length(int final_begin, int final_end) const;
  std::vector<bool> handler_copy_reached(int final_begin, int final_end) const;
  // the counted normal copy holds the copies and tests the count assumed
  bool normal_copy_agrees(int body_end, int normal_end, int final_begin, int final_end) const;
  // a block of a finally body's handler copy its normal copy copies into jumps: its operations
  std::vector<int> copied_return_block(int t, int end) const;
  struct InlinedReturns {
    struct Block {
      std::vector<int> ops;  // copied_return_block
      int copies = 0;        // in the normal copy (the original among them where kept)
    };
    std::vector<Block> blocks;
    int extra = 0;  // operations the normal copy has more than the handler's count
  };
  InlinedReturns inlined_return_blocks(int final_begin, int final_end,
                                       const std::vector<bool>& seen) const;
  // a RERAISE of a finally body's handler copy copied for a test jumping to its end
  bool reraise_copy_of_test(int k, int begin, int cleanup) const;
  // where the normal-path copy of a finally body ends
  int finally_normal_end(int i, int body_end, int handler, int final_end, bool mid_expression);
  // where the finally body's handler copy ends (its closing RERAISE, or its cleanup block)
  int finally_body_end(int handler, int cleanup) const;
  // a finally body ending in a `while True:`: its normal copy's breaks return None
  bool loop_breaks_return_none(int body_end, int normal_end, int handler, int cleanup) const;
  // where a try/finally statement ends
  bool constant_return_after_copy(int i, int body_end, int normal_end) const;  // 3.11
  int finally_try_end(int i, int body_end, int normal_end, int handler, int cleanup,
                      bool mid_expression) const;
  // a try/except alone in a finally's body, on a line of its own
  bool nested_try_separate(int i, const Body& body) const;
  // A with statement's exit handler, and where its body and the statement end.
  struct WithShape {
    int handler = -1;         // PUSH_EXC_INFO; WITH_EXCEPT_START; POP_JUMP_IF_TRUE
    bool jumps_over = false;  // the body's normal path jumps over the handler
    int reraise_target = -1;  // the handler's RERAISE, for an exception not suppressed
    int body_end = -1;
    int with_end = -1;
    int body_exit = -1;  // where the body goes when done, if not to with_end
    int cleanup = -1;    // the handler's own cleanup block
  };
  // the with statement's exit handler and the ends read off it
  WithShape with_shape(int i) const;
  // 3.12+: where the suppressed path goes on
  void read_with_suppressed_path(int i, int end, int exit, int normal_end, WithShape& shape);
  // 3.12+: the exit is a copy of an enclosing clause's exit, its jump retargeted to `join`
  bool leads_to_clause_end(int exit, int join) const;
  // 3.11: the bare return of a value waiting under the statement, copied after its exit call
  bool returned_value_copy(int i, int normal_end, const WithShape& shape) const;
  bool suppressed_return_goes_on(int exit, int copy) const;  // 3.12+: the copy is the code after
  // the code after the statement copied before the handler
  void read_with_exit_copy_before_handler(int i, int end, int length, int normal_end,
                                          WithShape& shape);
  // the code after the statement copied after the body's exit call
  void read_with_exit_copy_after_exit_call(int i, int length, WithShape& shape);
  // 3.12+: the enclosing with's exit call and the code after it, placed after the handlers
  int enclosing_with_exit_end(int i, int after, int end) const;
  // 3.12+: the code after the statement ending a loop body, after the handlers
  int cold_with_tail_end(int after, int cleanup, int exit) const;
  bool strip_copied_tail(Stmt& stmt, const Body& tail, bool cold = false) const;
  bool strip_counted_copies(Stmt& stmt, const Body& tail, const std::vector<int>& copies) const;
  StmtPtr strip_normal_copy_with_returns(Body& body, const std::string& copy_text,
                                         size_t copy_size) const;
  int cold_code_return_end(int from, int join, int cleanup) const;
  int decode_try_except(int i, int body_end, int handler, int end, int exit);
  bool normal_copy_counted_short(int normal_end, int final_begin, int final_end) const;
  int decode_try_finally(int i, int body_end, int handler, int end, int exit);
  Body decode_finally_body(int begin, int end, int cleanup = -1);
  std::vector<int> consume_reraise_copies(const std::vector<std::pair<int, Operation>>& rewritten);
  void consume_copy_handlers(int begin, int end);
  void emit_try_finally(Body body, Body final_body, bool separate = false);
  int normal_copy_end(int copy, int final_begin, int final_end, int cleanup);
  bool copied_exit_only(const std::vector<std::pair<int, int>>& tails) const;  // see copied_exit_
  int walk_normal_copy(int copy, int final_begin, int final_end, int cleanup,
                       std::vector<std::pair<int, int>>& tails);
  int decode_try_star(int i, int body_end, int handler, int end, int exit);  // except* (3.11+)
  void hoist_common_tail(Body& body) const;
  int decode_with(int i, int end, int exit);
  void read_with_past_region(int i, int end, int exit, int reraise_target, int cleanup,
                             int& body_end, int& with_end, std::pair<int, int>& tail);
  int skip_with_exit_call(int i);
  // 3.10: a finally body's RERAISEs that a nested statement owns (handlers.cpp)
  std::vector<bool> nested_own_reraises(int begin, int end) const;
  // ---- block_stack.cpp: 3.10's SETUP_* and POP_BLOCK
  int decode_setup_finally(int i, int end, int exit);       // 3.10 block-stack try statements
  int finally_closing_reraise(int handler, int end) const;  // where the finally body ends
  int normal_path_pop_block(int i, int handler, int copy_length) const;  // -1 if none
  // where the normal path ends (-1: read the body as having none)
  int finally_normal_path_end(int i, int* pop_block, int handler, int reraise, int copy_length);
  Body decode_finally_try_body(int i, int pop_block, int handler, int* try_end,
                               ExprPtr* returned);  // the try body, and the value it returns
  int returned_past_excepts(int try_end, int end);  // 3.10: a return's way out of try/excepts
  int decode_setup_except(int i, int handler, int end, int exit);  // its handler: except clauses
  // decode_setup_except's reading of the layout, filled step by step in the order below.
  struct ExceptShape {
    int else_begin = -1;  // the else's first operation (the body jumps there); -1 if none
    int body_end = 0;     // the body's end: the handler, or the jump over the clauses
    std::vector<std::pair<int, int>> typed_clauses;  // each [start, next clause)
    int join = -1;         // where the clauses go when done (past the else, if there is one)
    int handlers_end = 0;  // where the clauses end
    int clauses_end = -1;  // clauses past the region that never rejoin: their end; -1 if not
    int tail_begin = 0;    // a short tail after the statement copied after POP_BLOCK
    int tail_end = -1;     // one past the tail after the else, when found
    std::map<int, int> clause_copy;  // a clause's end -> the start of its copy of the tail
    int copy_length = 0;             // the length of those copies
    bool copied_else = false;        // the body's tail is a copy of the else
    bool original_after = false;     // the tail's original is the code after the region
    int original_tail = -1;  // the kept original of the tail, at the region's end; -1 if none
  };
  // What decode_except_bodies read: the statement's body and else, and the code after it.
  struct ExceptBodies {
    Body body;
    Body orelse;
    Body tail;               // the code after the statement, read from (one of) its copies
    int copy_tail_end = -1;  // one past the tail read from a clause's copy (or its original)
  };
  ExceptShape except_clauses_shape(int i, int handler, int end) const;       // else, clauses, join
  int except_else_begin(int i, int handler, int end) const;                  // -1 without an else
  void clauses_past_region(ExceptShape& shape, int handler, int end) const;  // that never rejoin
  void except_else_tail(ExceptShape& shape, int handler, int end) const;     // tail after the else
  // the clauses' copies of the code after the statement
  void except_clause_copies(ExceptShape& shape, int i, int handler, int end, int exit) const;
  bool breaks_copy(int copy, int length) const;  // 3.10: a clause's break copy
  ExceptBodies decode_except_bodies(const ExceptShape& shape, int i, int end);  // body, else, tail
  // the clauses into stmt; each one's [body, end)
  std::vector<std::pair<int, int>> decode_except_clauses(Stmt& stmt, const ExceptShape& shape,
                                                         int handler);
  // a clause's type and name; where its body starts
  int read_except_clause_head(ExceptHandler& clause, int k, int handlers_end, int* clause_end);
  // emits the statement and the code after it read with it; where it ends
  int emit_setup_except(const StmtPtr& stmt, const ExceptShape& shape, ExceptBodies& parts,
                        const std::vector<std::pair<int, int>>& clause_ranges, int end, int exit);
  Body decode_setup_finally_handler(int handler, int reraise, Body& body);  // the finally body
  // a try/finally whose body never falls off its end
  int decode_finally_without_normal_path(int i, int handler, int reraise, int end, int exit);
  int dropped_closing_reraise(int handler, int reraise, int end) const;  // the body's real end
  bool loop_ends_finally_body(int handler, int run_end) const;  // its closing RERAISE dropped
  bool dropped_closing(int reraise) const;
  bool returns_after_blocks(int k) const;           // the finally body lost its closing RERAISE
  int decode_setup_with(int i, int end, int exit);  // with statements
  int merge_exit_copies(int begin, int pop_block, int handler);  // a body's copied ways out
  void merge_except_exit_copies(int begin, int handler);  // a try/except body's copied ways out
  int shared_clause_exit(int begin, int end, const std::string& bound) const;
  bool only_cold_jumps_back(int head) const;
  int last_warm_jump_back(int head, int end) const;  // -1 if none
  bool may_hold_break_copy(int head, int end) const;
  bool clauses_only_continue(int head, int end) const;
  int cold_jump_back_loop_end(int head, int end, int exit) const;
  int clause_exit_before(int handler, int from, int to) const;
  int copied_tail_length(int k) const;
  int copied_exit_length(int k) const;  // copied_tail_length, or a clause's POP_EXCEPT and one
  int resolve(int target) const;
  // 3.12+: a loop's bottom test placed as cold code (while_head's cold_tail) -> the loop's head,
  // where a jump to it goes on: the next iteration, or the exit.
  std::map<int, int> cold_tests_;
  // How many jumps to such a test decode_jump read as falling off their region, per loop head
  // (a then-branch that did so falls off to the next iteration, not into its label).
  std::map<int, int> cold_test_fall_offs_;
  bool jumps_past_cold_test(int target) const;  // a written `continue` of such a loop
  int warm_origin(int k) const;  // 3.12+: the try body whose handler leads to cold code at k
  bool falls_into_jump_back(int from, int target) const;
  bool builds_constant_tuple(int i) const;
  int copied_block_length(int copy, int original) const;
  void fold_return_if_expression(Body& body) const;
  ExprPtr returned_display_if_expression(const ExprPtr& then, const ExprPtr& test,
                                         const ExprPtr& other) const;
  bool same_target(int a, int b) const;
  int exit_copy_length(int exit, int copy) const;
  int copied_exit_block(int exit, int copy) const;
  int jump_line_exit_copy(int exit, int copy) const;
  int tail_copy_original(int i, int target, int* copies_end = nullptr);
  int loop_else_end(int body_begin, int body_end, int exit, int end) const;
  // The layout of a for loop (decode_for's steps fill it in the order they read it).
  struct ForShape {
    int exit = 0;          // FOR_ITER's target: the body's end
    int after = 0;         // past the exit's END_FOR
    int loop_exit = 0;     // the end of the loop and its else
    int break_target = 0;  // where its breaks go
    int after_else = -1;   // where the breaks' copies come from (-1: a break jumps past)
    int break_tail = -1;   // 3.10: the first break's copy of the code after the loop
    int break_tail_length = 0;
    bool out_of_line = false;  // 3.12+ async for: the else placed after the code after the loop
    int else_begin = 0;        // where the else begins
    int else_end = 0;
  };
  ForShape for_shape(int i, int end, int region_exit);  // exit, else and breaks
  int for_exit(int i, int end);                         // FOR_ITER's target, or the region's end
  int break_copy_line_original(int i, int exit, int after, int end) const;  // 3.12+
  void read_break_tail_copy(int i, int end, ForShape& shape) const;         // 3.10
  void read_out_of_line_async_else(int i, ForShape& shape);                 // 3.12+ async for
  Body decode_for_body(int i, const ExprPtr& iter, const ForShape& shape, int end, int region_exit,
                       ExprPtr* target);
  void close_for(const Stmt& stmt, bool after_loop, int threaded_breaks, int loop_exit, int end);
  bool else_is_outer_jump_back(const ForShape& shape) const;

  // ---- conditions.cpp: condition chains, if statements and conditional expressions
  // Condition chains: `expr; jump-if` items that together form one boolean test.
  struct ConditionItem {
    ExprPtr expr;
    int sense = 0;  // jump when the value is: 0 false, 1 true, 2 None, 3 not None
    int target = 0;
    int start = 0;        // first operation of the item
    int jump = 0;         // the jump operation
    int next = 0;         // where the test continues when it does not jump
    bool turned = false;  // read back from a jump over a jump back (turned_over_jump_back)
  };
  bool turned_over_jump_back(ConditionItem* item, int end) const;
  struct TurnedItems {  // what collect_conditions had before the first turned item
    std::vector<std::pair<size_t, ConditionItem>> originals;
    size_t best = 0;
    std::vector<ExprPtr> best_stack;
  };
  void keep_turned_items(std::vector<ConditionItem>& items, const TurnedItems& turned, size_t* best,
                         std::vector<ExprPtr>* best_stack, int end) const;
  std::vector<ConditionItem> collect_conditions_range(int begin, int end);
  ConditionItem finish_chained_test(ConditionItem item);
  void consume_moved_chain_cleanup(int k, int cleanup, int false_exit);  // or throws
  ConditionItem finish_if_expression_test(ConditionItem item);
  std::vector<ConditionItem> if_expression_part(int begin, int end, int like, int label,
                                                int last_next);
  std::vector<ConditionItem> collect_conditions(int j, int end, int stmt_start);
  bool original_after_chain_cleanup(int copy, int t) const;
  int condition_exit(const std::vector<ConditionItem>& items, int t,
                     const ConditionItem& last) const;  // where a test's jump leads
  bool condition_complete(const std::vector<ConditionItem>& items, size_t count, int end) const;
  bool exit_copies_on_other_lines(int a, int b) const;
  bool read_test_operations(int* k, int end, int j, int region);  // one test, up to its jump
  ExprPtr build_condition(const std::vector<ConditionItem>& items, size_t lo, size_t hi, int label,
                          bool cond, int end_position, bool top = true) const;
  ExprPtr condition_atom(const ConditionItem& item, bool cond, bool top) const;  // one item's test
  int decode_condition(int j, int end, int exit, int stmt_start);
  bool decode_if_expression(int j, int true_start, int false_start, ExprPtr condition);
  bool decode_if_expression_parts(int true_start, int then_end, int false_start, int join,
                                  ExprPtr condition);
  int copied_join_start(int then_begin, int label, int join) const;
  int decode_compound_if_expression(int j, int begin, int end);
  int decode_copied_tail_if_expression(int true_start, int false_start, int end,
                                       const ExprPtr& condition);
  // decode_condition's readings of an if statement, in the order it tries them; each returns
  // where the statement ends, or -1 when its shape is not the one it reads.
  struct IfShape;  // the test, its branches and the loop around it (conditions.cpp)
  void emit_if_statement(ExprPtr condition, Body then_body, Body else_body);
  void emit_if(const IfShape& s, Body then_body, Body else_body);  // the shape's test; or assert
  void emit_if_or_assert(const ExprPtr& test, Body then_body, Body else_body);
  bool emit_if_around_assert(const IfShape& s, const Body& then_body);  // `if a: assert b`
  bool is_assert_false(const StmtPtr& stmt) const;  // a raise of LOAD_ASSERTION_ERROR
  bool needs_inversion(const IfShape& s);  // 3.12+: a test turned around over the jump back
  int if_inverted_over_jump_back(const IfShape& s);  // `if test: <rest of the loop body>`
  int if_jumping_back(IfShape& s);                   // the test jumps back to the loop head
  int if_leaving_region(IfShape& s);             // the test jumps past the region's end (or throws)
  int if_else_over_jump(const IfShape& s);       // the then-branch jumps over the else to the join
  int if_else_pass_over_jump(const IfShape& s);  // ... over an else of only `pass`
  int if_else_threaded_join(const IfShape& s);   // 3.12: its jump over the else threaded
  int if_else_ending_loop_body(const IfShape& s);            // 3.12+: the then-branch jumps back
  int if_else_with_turned_test_in_then(const IfShape& s);    // 3.12: a test in it turned back
  int if_else_pass_jumping_back(const IfShape& s);           // `else: pass`, its NOP, a jump back
  int if_else_continue_ending_loop_body(const IfShape& s);   // 3.10: `else: continue`
  int if_else_returning_ending_loop_body(const IfShape& s);  // 3.12+: ... or returns
  int if_else_clauses_to_cold_test(const IfShape& s);        // 3.12+: ... only its clauses go on
  int emit_if_else_at_label(const IfShape& s);
  int if_else_then_ends_in_else_pass(const IfShape& s);  // 3.12+: ... or ends `else: pass`
  int if_else_jumped_from_inside(const IfShape& s);  // a statement in the branch jumps to the join
  int if_else_joined_by_handlers(const IfShape& s);  // 3.12+: only the branch's clauses jump
  int if_else_with_suppressed_return(const IfShape& s);  // 3.12+: a with's copied return
  int if_else_with_suppressed_jump(const IfShape& s);    // 3.12+: ... or its jump to the exit
  std::vector<int> cold_with_suppressed_paths(int begin, int end) const;
  int if_continue_then_break(const IfShape& s);           // `if test: A; continue` then `break`
  int if_else_breaks_threaded_to_head(const IfShape& s);  // a nested for's breaks jump back
  int if_else_loop_break_copies(const IfShape& s);  // a `while True` left by copies of the join
  int loop_break_copies_join(int begin, int label, int end) const;
  bool in_branch_loop(int begin, int k, int end) const;  // k in a loop held by [begin, end)
  void fold_exit_block_copies(IfShape& s);  // tests jumping to copies of one exit block
  void consume_exit_copies_after_label(const IfShape& s);
  int if_else_copied_exit(const IfShape& s);  // 3.12+: the branch ends in a copied exit block
  int if_else_exit_copies(const IfShape& s);  // 3.12+: ... and the copies its tests jump to
  int exit_copies_start(int then_begin, int label) const;  // the copied block, or -1
  bool else_is_code(const IfShape& s) const;               // [label, end): no handler code
  int if_else_copied_exit_of_length(const IfShape& s, int n, const std::vector<bool>& targeted);
  bool copy_is_one_statement(const IfShape& s, int copy, int n,
                             const std::vector<bool>& targeted) const;
  int copy_original(const IfShape& s, int copy, int n, bool implicit_return) const;  // or < label
  Body else_pass(int copy, int join) const;    // an else of only `pass` before the join
  int if_with_final_return(const IfShape& s);  // the rest: the then-branch falls into the label
  // 3.12+: [begin, label) ends with an if whose membership/identity test jumps over a jump back
  bool ends_with_test_over_jump_back(int begin, int label, int head) const;

  // ---- match.cpp: match statements (the reading of patterns lives in MatchReader)
  int decode_match(int i, int end, int exit);  // -1 when no match statement starts at i
  struct MatchLayout;  // the cases of a match statement and where their bodies lie
  // A target outside the region read as the region's end (only the exit may be outside):
  int normalize_match_target(MatchLayout& layout, int at) const;
  void place_match_bodies(MatchLayout& layout) const;  // each body: after its guard, to its failure
  // The copy of the exit block that the last case fails to:
  void read_match_exit_copy(MatchLayout& layout, int fail_label, int begin) const;
  void note_match_body_jump(MatchLayout& layout, int begin, int first) const;  // a body's last jump
  int choose_match_end(MatchLayout& layout, bool prefer_failure) const;  // one reading of the end
  int emit_match(MatchLayout& layout);  // builds (a second reading on failure), emits; the end
  StmtPtr build_match_statement(const MatchLayout& layout, int match_end);  // for that end
  bool guard_opens_last_body(const MatchLayout& layout, size_t k, int match_end) const;
  friend class MatchReader;

  // ---- expressions.cpp: the symbolic stack
  void execute(int i);
  // execute's families of operations, each true when the operation is one of its own:
  bool execute_stack(const Operation& op, int i);    // moving, dropping, duplicating values
  bool execute_load(const Operation& op, int i);     // constants, names, attributes
  bool execute_store(const Operation& op, int i);    // stores, deletions, unpacking
  bool execute_operator(const Operation& op);        // operators, subscripts, slices
  bool execute_build(const Operation& op);           // displays built at once
  bool execute_display_update(const Operation& op);  // displays grown in place, appends
  bool execute_format(const Operation& op);          // f-string parts
  bool execute_call(const Operation& op);            // calls, functions, intrinsics
  bool execute_generator(const Operation& op);       // iterators, yields
  bool execute_exit(const Operation& op, int i);     // return, raise
  bool execute_import(const Operation& op);          // imports
  int execute_special(int i);  // and/or values, chained comparisons, await; next index or -1
  int execute_step(int i);     // execute_special or execute at i; returns the next index
  int execute_chained_comparison(int i, const ExprPtr& left);  // `a < b < c`, from its jump
  int execute_jump_or_pop_boolop(int i, const ExprPtr& left);  // and/or value, JUMP_IF_*_OR_POP
  int value_boolop_end(int j) const;  // where the value `and`/`or` starting at j ends, or -1
  int execute_value_boolop(
      int j);  // `a and b or c` as a value, from its first popping jump; -1 if not one
  int execute_delegation(int i);  // await / yield from
  ExprPtr pop();
  ExprPtr pop_raw();  // without turning a pending chained assignment into a walrus
  ExprPtr top(int depth = 1) const;
  void push(ExprPtr value);
  void emit(StmtPtr stmt);
  // names_too: a pending name as well; produced_from: the slots from there on too (the values a
  // region produced, read after the statement that encloses it); below: only the slots under it.
  void spill_pending(Stmt& stmt, bool names_too = false, size_t produced_from = SIZE_MAX,
                     size_t below = SIZE_MAX);
  ExprPtr spill_chain(const ExprPtr& chain, bool names_too);
  ExprPtr fresh_temporary();
  bool cell_variable(const std::string& name) const;
  bool mutates_deeper(int depth) const;
  void mutate_in_place(
      int depth, const char* method,
      std::vector<ExprPtr> args);  // values computed before a statement, to temporaries
  int spilled_ = 0;
  bool mid_expression_try_ = false;  // the try being decoded starts with values on the stack
  int enclosing_finally_ = 0;        // try/finally bodies being decoded around this statement
  bool copy_returns_ = false;        // the last normal_copy_end walked a copy that only returns
  // 3.10: the code after the statement, kept only as copies in the last normal_copy_end's
  // branches: its first copy (start, length); (-1, 0) if not so.
  std::pair<int, int> copied_exit_{-1, 0};
  bool keep_region_stack_ = false;  // the next region keeps what it leaves on the stack
  int region_limit_ = -1;           // how far the region being decoded may grow
  // The end of the finally body being decoded (decode_finally_body: its RERAISEs jump there).
  int finally_body_end_ = -1;
  // Decoding an except clause (3.12+): the code after the try statement, of which the clause's
  // ways out (POP_EXCEPT) hold copies; -1 if none.
  int clause_tail_ = -1;
  int clause_tail_length_ = 0;
  // 3.10: the copies of an exit block that an if/else read as its region's exit
  // (copied_exit_block), by their first operation: no statement of their own.
  std::set<int> exit_copies_read_;
  bool take_region_value_ = false;  // the next region may leave one value: keep it in region_value_
  ExprPtr region_value_;
  void store(ExprPtr target, ExprPtr value);
  bool store_internal(const ExprPtr& target, const ExprPtr& value);    // true: done with
  bool store_annotation(const ExprPtr& target, const ExprPtr& value);  // __annotations__[...] =
  ExprPtr unpack_to_temporaries(ExprPtr slot);  // an unpacked value used as a value
  size_t tuple_values_pending() const;
  void unpack_pending_values(size_t count, bool stored_last_first);
  void swapped_tuple_assignment(int i);
  int rotated_tuple_assignment(int i);
  bool on_new_line(int i);
  bool line_held_by_copies(int i);  // 3.12+: ... but for copies of its exit block before it
  bool on_return_line(int i);
  bool unwinds_clause_before(int i) const;  // a return's value computed inside an except clause
  bool loaded_past_enclosing_unwind(int i) const;  // 3.10: a clause's copy of the code after
  bool returns_bound_local(int i) const;           // a return that cannot raise
  void emit_raise(const Operation& op);            // raise, or assert False
  // `if test: A else: break` statements that were written `if test: A; continue` + `break`
  // (decode_condition), for decode_while_true.
  std::set<StmtPtr> written_continues_;  // (kept alive: no address reused)
  void note_break_copies(int head, int exit, int after_else);
  int copied_break_target(int head, int exit, int end, int region_exit) const;
  bool falls_into_exit(int end, int region_exit, int length) const;
  bool pops_under_return_value(int k) const;  // a return's `SWAP 2; POP_TOP` of an iterator
  bool starts_line_on_prefix(int i) const;    // a line entry at `i` or on its EXTENDED_ARG
  int line_on_prefix(int i) const;            // the line its EXTENDED_ARG prefix starts
  void pop_top(ExprPtr value);
  ExprPtr constant(const bytecode::ObjectRef& obj) const;
  ExprPtr name_expr(const std::string& name) const;
  // Whether the code holds a constant of that kind (one no instruction loads, with unused_only):
  // a folded test's constant where the profile's keeps_folded_constants holds.
  bool has_constant(bytecode::ObjectKind kind, bool unused_only) const;
  bool has_zero_constant() const;             // an int 0 in co_consts
  std::string assert_false_spelling() const;  // `assert False` or `assert 0`
  // A string annotation under `from __future__ import annotations`, as the expression it spells.
  ExprPtr annotation_source(const ExprPtr& annotation) const;
  std::string source_name(const std::string& name) const;  // unmangled
  ExprPtr build_call(const Operation& op);
  ExprPtr build_call_ex(const Operation& op);
  // The one value the region [begin, end) pushes. Given `refused` (a trial read), a statement of
  // the region's own that ends it sets *refused, as a DecodeFailure would have said, without
  // unwinding (the value returned is then meaningless).
  ExprPtr evaluate(int begin, int end, bool* refused = nullptr);
  bool is_null(const ExprPtr& e) const;
  void check_fstring(const ExprPtr& joined) const;
  bool fstring_writable(const ExprPtr& joined) const;
  ExprPtr percent_written(const ExprPtr& joined);
  // 3.11 f-strings written as %-formats (the BinOp), and the parts they were read from.
  std::vector<std::pair<ExprPtr, ExprPtr>> percent_parts_;
  // (Inline, with the tag's length known where it is a literal: called for most operations.)
  static bool is_internal(const ExprPtr& e, std::string_view tag) {
    return e && e->kind == ExprKind::Internal && e->text == tag;
  }
  static bool is_use_of(const ExprPtr& used, const ExprPtr& kept);

  // ---- definitions.cpp
  ExprPtr make_function(const Operation& op);
  ExprPtr call_special(ExprPtr callable,
                       std::vector<ExprPtr>& args);  // comprehensions, classes; null if none
  bool store_definition(const ExprPtr& target, const ExprPtr& value);
  bool store_import(const ExprPtr& target, const ExprPtr& value);
  void emit_import_from(const ExprPtr& module);
  StmtPtr function_def(const std::string& name, const ExprPtr& function,
                       std::vector<ExprPtr> decorators);
  StmtPtr class_def(const std::string& name, const ExprPtr& cls, std::vector<ExprPtr> decorators);
  ExprPtr lambda_expr(const ExprPtr& function);
  // 3.12+ type parameters (PEP 695): CALL_INTRINSIC_1/2 and the `<generic parameters of X>`
  // function that wraps a generic def, class or type alias.
  void call_intrinsic1(const Operation& op);
  void call_intrinsic2(const Operation& op);
  ExprPtr lazy_value(const ExprPtr& function);
  ExprPtr generic_definition(const ExprPtr& callable, const std::vector<ExprPtr>& args);
  std::vector<std::string> type_params_;  // the type parameters this code defined, in order
  ExprPtr comprehension(const ExprPtr& function, const ExprPtr& iter);
  ExprPtr comprehension_from_body(const std::string& code_name, const Body& body,
                                  const ExprPtr& iter) const;
  int decode_inline_comprehension(int i);  // 3.12+: LOAD_FAST_AND_CLEAR ... FOR_ITER ... inline
  void mark_consumed(int begin, int end);
  std::string parameters(const bytecode::CodeObject& code, const ExprPtr& function,
                         ExprPtr* returns);
  Body finish_body(Body body) const;  // docstring, declarations, implicit returns
  bool has_dead_end_none() const;
  size_t class_prologue_length(const Body& body) const;
  void keep_static_attributes(Body& body) const;
  void add_declarations(Body& body) const;
  void add_name_order(Body& body) const;
  std::string dead_block_test() const;  // `None` or `0` (name-order block)
  std::vector<std::string> unused_free_variables() const;
  void add_dead_block_names(Body& block) const;
  void add_dead_block_locals(Body& block, const std::vector<std::string>& locals) const;
  size_t import_as_parts(const std::vector<std::string>& names, size_t k) const;
  void add_interface_names(Body& body) const;  // readable output: what behaviour needs
  void add_unused_names(Body& body) const;
  void add_folded_true_test(Body& body) const;
  bool restore_copied_tails(Body& body, const std::vector<std::string>& locals) const;
  int source_order_matches(const Body& body, const std::vector<std::string>& locals)
      const;  // name_order.cpp: a dead block fixing co_names/co_varnames order

  // ---- regions.cpp: a failed top-level statement as the marked fallback of its region only
  static std::optional<Body> decode_by_regions(const bytecode::CodeObject& code, CodeRole role,
                                               DecodeSession& session,
                                               const std::string& class_name, bool table_readings);
  Body decode_with_region_fallbacks(int count);
  // where its region ends; marks its cold blocks
  int fallback_region_end(const ControlFlowGraph& cfg, int i, int count);
  void reset_statement_state(Body& body);  // the state between top-level statements
  StmtPtr region_fallback(int begin, int end, const std::string& reason) const;
};

std::string import_statement_module(const ExprPtr& import);
std::string function_parameters_without_defaults(const bytecode::CodeObject& code);
ExprPtr negate(const ExprPtr& e);

}  // namespace glassbox::decompiler
