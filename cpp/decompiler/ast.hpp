// The statement and expression trees the decompiler builds and the printer turns into source.
//
// One generic node per tree (a kind, a little text, children) rather than a class per construct:
// the passes build them, the printer (printer.hpp) is the only place that knows their syntax.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace glassbox::decompiler {

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

enum class ExprKind {
  Name,       // text = identifier
  Constant,   // text = the constant's Python repr
  Attribute,  // args[0].text
  Subscript,  // args[0][args[1]]
  Slice,      // args[0]:args[1]:args[2]; a null child is an omitted part; args.size() 2 or 3
  Call,     // args[0](args[1:]); keyword arguments are Keyword nodes, *x Starred, **x DoubleStarred
  Keyword,  // text=args[0]
  Starred,  // *args[0]
  DoubleStarred,  // **args[0]
  BinOp,          // args[0] text args[1]
  UnaryOp,        // text args[0]  (text is "-", "+", "~" or "not")
  BoolOp,         // args joined by text ("and" / "or")
  Compare,        // args[0] ops[0] args[1] ops[1] args[2] ...
  IfExp,          // args[0] if args[1] else args[2]
  Lambda,         // lambda text: args[0]   (text = the parameter list source)
  Tuple,
  List,
  Set,
  Dict,      // args as key, value pairs; a null key means **value
  ListComp,  // args[0] = element; comprehension clauses in `clauses`
  SetComp,
  DictComp,  // args[0] = key, args[1] = value
  GeneratorExp,
  Await,
  Yield,  // args may be empty
  YieldFrom,
  NamedExpr,       // args[0] := args[1]
  JoinedStr,       // f-string: args are Constant (text = raw literal text) or FormattedValue
  FormattedValue,  // {args[0]!conversion:args[1]}; conversion in text ("", "r", "s", "a")
  MatchAs,         // pattern: args[0] as text
  MatchOr,         // pattern: args joined by " | "
  Internal,        // a decompiler-internal stack value (text = its tag, ref = a table index); never
                   // printed
};

// One `for ... in ... if ...` clause of a comprehension.
struct ComprehensionClause {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> conditions;
  bool is_async = false;
};

struct Expr {
  ExprKind kind = ExprKind::Name;
  std::string text;
  std::vector<ExprPtr> args;
  std::vector<std::string> ops;  // Compare operators
  std::vector<ComprehensionClause> clauses;
  int ref = -1;  // Internal: index into the decoder's side table
};

ExprPtr make_name(std::string name);
ExprPtr make_constant(std::string repr);
ExprPtr make_expr(ExprKind kind, std::vector<ExprPtr> args, std::string text = {});

struct Stmt;
using StmtPtr = std::shared_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class StmtKind {
  Expr,       // exprs[0]
  Assign,     // exprs[0..n-2] = ... = exprs[n-1]
  AugAssign,  // exprs[0] text= exprs[1]   (text is the operator, e.g. "+")
  AnnAssign,  // exprs[0]: exprs[1] = exprs[2]?
  Delete,     // del exprs...
  Pass,
  Break,
  Continue,
  Return,    // exprs may be empty
  Raise,     // exprs: [exc [, cause]]
  Assert,    // exprs: test [, msg]
  Global,    // names
  Nonlocal,  // names
  Import,    // text = the whole statement source ("import a.b as c")
  If,  // exprs[0]; bodies[0] then, bodies[1] else (may be empty). An else holding one If prints as
       // elif.
  While,        // exprs[0]; bodies[0], bodies[1] else
  For,          // exprs[0] target, exprs[1] iter; bodies[0], bodies[1] else; is_async
  Try,          // bodies[0] body; handlers; bodies[1] else; bodies[2] finally
  With,         // items: exprs in pairs (context, target-or-null); bodies[0]; is_async
  FunctionDef,  // text = name; header = parameter list source; decorators; bodies[0]; returns;
                // is_async
  ClassDef,     // text = name; exprs = bases and keywords; decorators; bodies[0]
  Match,  // exprs[0] subject, then per case its pattern and guard (null if none); bodies[k] case k.
          // Patterns reuse expressions: Name (capture, "_" wildcard), Constant/Attribute (value),
          // List with Starred (sequence), Dict with a null key for **rest (mapping), Call with
          // Keyword (class), MatchAs, MatchOr.
  Comment,    // text, printed as "# text" lines
  TypeAlias,  // type text[names] = exprs[0]   (3.12+)
  Fallback,   // text = the disassembly of a region that could not be structured; then a raise
};

struct ExceptHandler {
  ExprPtr type;      // null for a bare except
  std::string name;  // empty when no "as"
  Body body;
  bool star = false;  // except*
};

struct Stmt {
  StmtKind kind = StmtKind::Pass;
  std::string text;
  std::string header;  // FunctionDef parameters
  std::vector<ExprPtr> exprs;
  std::vector<Body> bodies;
  std::vector<ExceptHandler> handlers;
  std::vector<ExprPtr> decorators;
  std::vector<std::string> names;  // Global/Nonlocal; FunctionDef/ClassDef/TypeAlias: type params
  ExprPtr returns;                 // FunctionDef return annotation
  bool is_async = false;
  // Return: on a line no earlier operation had (an implicit `return None` inherits its line).
  bool new_line = false;
  // Return of None: on a line that only such returns start (a written `return`, or a copy of it).
  bool return_line = false;
  // The source line the statement starts on in the original (0: none known, as for statements
  // the decompiler adds); the printer puts it there where it can (print_body's `first_line`).
  int line = 0;
  // Return: the line its RETURN_VALUE starts (-1: none), and, where that is above the value's
  // first line, the value's line: compile.c's compiler_return adds a NOP on the return's line
  // when the value starts on another (whose block is then too big for inline_small_exit_blocks to
  // copy); the printer puts the value there, inside parentheses.
  int keyword_line = -1;
  int value_line = 0;
  // Return/Break/Continue leaving nested try/finally statements: the compiler copies each finally
  // body before it, innermost first (compiler_unwind_fblock_stack). Copies of inner statements not
  // yet stripped because an enclosing statement's copy follows them: their printed text and
  // statement count, stripped together with that copy (strip_finally_copies).
  std::string pending_copies;
  size_t pending_count = 0;
  // Return (3.10) of a value computed in a try/finally's body: the finally copies are laid out
  // after the blocks' POP_BLOCKs, not before the return (decode_finally_try_body).
  bool copies_after = false;
  // Return from an except clause of a value computed before the clause's POP_EXCEPT
  // (compiler_unwind_fblock keeps it under the unwinding): not a copy of a return after the
  // statement, whose value is computed once the clause is left (its `__context__` differs).
  bool unwinds_clause = false;
  // Return of a computed value loaded after the statement before it ran (not waiting on the
  // stack meanwhile). compiler_return loads such a value before compiler_unwind_fblock_stack:
  // after a finally copy, it is the code after a loop, copied to a break that left the try
  // (extend_block, inline_small_exit_blocks), never the try body's return.
  bool loads_after_statements = false;
  // Such a return whose operations copy the code after the innermost `while` loop: a `break`
  // where it follows a finally copy (strip_finally_copies).
  bool copies_loop_exit = false;
};

StmtPtr make_stmt(StmtKind kind, std::vector<ExprPtr> exprs = {}, std::vector<Body> bodies = {});

// While one is alive on a thread, make_expr and make_stmt take their nodes from that thread's
// node pool rather than from malloc, which spent about a quarter of a decompilation splitting and
// coalescing chunks for them. The pool outlives it (a fresh pool per call costs its first chunks
// every time) but gives its memory back when the outermost one ends with more than a little
// held. Every node made meanwhile must be gone by then: make one first thing in an entry point
// whose trees are all its own locals.
class NodePool {
 public:
  NodePool();
  ~NodePool();
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
};

// Whether `e` is the constant None.
bool is_none(const ExprPtr& e);
// Whether `s` is `return` or `return None`.
bool is_return_none(const StmtPtr& s);

}  // namespace glassbox::decompiler
