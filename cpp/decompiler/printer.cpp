#include "decompiler/printer.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

namespace glassbox::decompiler {

namespace {

using P = Precedence;

P next(P p) { return p == P::Atom ? P::Atom : static_cast<P>(static_cast<int>(p) + 1); }

// Expressions are appended to one string as they are walked: a string per node and the copies
// that concatenating them made were most of the printer's time.
void write_expr(std::string& out, const Expr& e, P context);

// The items from `first` on, written and separated by `sep`.
void write_items(std::string& out, const std::vector<ExprPtr>& items, P context,
                 std::string_view sep = ", ", size_t first = 0) {
  for (size_t i = first; i < items.size(); ++i) {
    if (i > first) out += sep;
    write_expr(out, *items[i], context);
  }
}

std::string join(const std::vector<ExprPtr>& items, P context) {
  std::string out;
  write_items(out, items, context);
  return out;
}

void write_clauses(std::string& out, const std::vector<ComprehensionClause>& clauses) {
  for (const ComprehensionClause& clause : clauses) {
    out += clause.is_async ? " async for " : " for ";
    write_expr(out, *clause.target, P::Tuple);
    out += " in ";
    write_expr(out, *clause.iter, next(P::Test));
    for (const ExprPtr& condition : clause.conditions) {
      out += " if ";
      write_expr(out, *condition, next(P::Test));
    }
  }
}

// Escapes literal text of an f-string for the given quote character.
std::string escape_fstring_literal(const std::string& text, char quote) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '{':
        out += "{{";
        break;
      case '}':
        out += "}}";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
          static const char* hex = "0123456789abcdef";
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string print_fstring_body(const Expr& joined, char quote);

std::string print_formatted_value(const Expr& value, char quote) {
  std::string inner = print_expr(*value.args[0], next(P::Test));
  // A leading brace would read as an escaped "{{".
  if (!inner.empty() && inner[0] == '{') inner = " " + inner;
  std::string out = "{" + inner;
  if (!value.text.empty()) out += "!" + value.text;
  if (value.args.size() > 1 && value.args[1]) {
    const Expr& spec = *value.args[1];
    out += ":" + (spec.kind == ExprKind::JoinedStr ? print_fstring_body(spec, quote)
                                                   : escape_fstring_literal(spec.text, quote));
  }
  return out + "}";
}

std::string print_fstring_body(const Expr& joined, char quote) {
  std::string out;
  for (const ExprPtr& part : joined.args) {
    out += part->kind == ExprKind::FormattedValue ? print_formatted_value(*part, quote)
                                                  : escape_fstring_literal(part->text, quote);
  }
  return out;
}

// Chooses a quote that no embedded expression uses (needed before 3.12).
std::string print_joined_str(const Expr& joined) {
  for (const char* quote : {"'", "\"", "'''", "\"\"\""}) {
    std::string body = print_fstring_body(joined, quote[0]);
    bool clash = false;
    for (const ExprPtr& part : joined.args) {
      if (part->kind != ExprKind::FormattedValue) continue;
      std::string inner = print_formatted_value(*part, quote[0]);
      if (inner.find(quote) != std::string::npos || inner.find('\\') != std::string::npos) {
        clash = true;
      }
    }
    if (!clash) return std::string("f") + quote + body + quote;
  }
  return "f'" + print_fstring_body(joined, '\'') + "'";
}

void write_dict(std::string& out, const Expr& expr) {
  out += '{';
  for (size_t i = 0; i + 1 < expr.args.size(); i += 2) {
    if (i) out += ", ";
    if (expr.args[i]) {
      write_expr(out, *expr.args[i], P::Test);
      out += ": ";
      write_expr(out, *expr.args[i + 1], P::Test);
    } else {
      out += "**";
      write_expr(out, *expr.args[i + 1], P::BitOr);
    }
  }
  out += '}';
}

void write_slice(std::string& out, const Expr& expr) {
  auto part = [&](size_t i) {
    if (i < expr.args.size() && expr.args[i]) write_expr(out, *expr.args[i], P::Test);
  };
  part(0);
  out += ':';
  part(1);
  if (expr.args.size() > 2 && expr.args[2]) {
    out += ':';
    part(2);
  }
}

void write_subscript_index(std::string& out, const Expr& index) {
  if (index.kind == ExprKind::Slice) return write_slice(out, index);
  auto is_kind = [](ExprKind kind) {
    return [kind](const ExprPtr& item) { return item->kind == kind; };
  };
  // `x[a, *b]` is 3.11+ syntax; `x[(a, *b)]`, the same tuple, compiles in every version.
  if (index.kind == ExprKind::Tuple &&
      std::any_of(index.args.begin(), index.args.end(), is_kind(ExprKind::Starred)) &&
      std::none_of(index.args.begin(), index.args.end(), is_kind(ExprKind::Slice))) {
    return write_expr(out, index, P::Atom);
  }
  if (index.kind == ExprKind::Tuple && !index.args.empty()) {
    for (size_t i = 0; i < index.args.size(); ++i) {
      if (i) out += ", ";
      const Expr& item = *index.args[i];
      if (item.kind == ExprKind::Slice) {
        write_slice(out, item);
      } else {
        write_expr(out, item, P::Test);
      }
    }
    if (index.args.size() == 1) out += ',';
    return;
  }
  write_expr(out, index, P::Tuple);
}

bool is_plain_int_literal(const Expr& expr) {
  if (expr.kind != ExprKind::Constant || expr.text.empty()) return false;
  for (char c : expr.text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A backslash and a line break before a lambda or comprehension marked (ref 1) to start a line
// of its own: its code object repeats an earlier one, and equal code objects of one line would
// be one constant.
void write_own_line(std::string& out, const Expr& e) {
  if (e.ref == 1) out += "\\\n";
}

// The precedence `e` binds with.
P own_precedence(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Constant:
      return !e.text.empty() && e.text[0] == '-' ? P::Factor : P::Atom;
    case ExprKind::BinOp:
      return binary_precedence(e.text);
    case ExprKind::UnaryOp:
      return e.text == "not" ? P::Not : P::Factor;
    case ExprKind::BoolOp:
      return e.text == "and" ? P::And : P::Or;
    case ExprKind::Compare:
      return P::Cmp;
    case ExprKind::IfExp:
    case ExprKind::Lambda:
    case ExprKind::MatchAs:
      return P::Test;
    case ExprKind::Tuple:
      return e.args.empty() ? P::Atom : P::Tuple;
    case ExprKind::Await:
      return P::Await;
    case ExprKind::Yield:
    case ExprKind::YieldFrom:
      return P::Yield;
    case ExprKind::NamedExpr:
      return P::NamedExpr;
    case ExprKind::MatchOr:
      return P::BitOr;
    default:
      return P::Atom;
  }
}

// Two operands with `sep` between them (" := ", " if ").
void write_pair(std::string& out, const Expr& first, P first_context, const char* sep,
                const Expr& second, P second_context) {
  write_expr(out, first, first_context);
  out += sep;
  write_expr(out, second, second_context);
}

// A display with a comprehension: `open` element [": " value] clauses `close`.
void write_comprehension(std::string& out, const Expr& e, char open, char close) {
  write_own_line(out, e);
  out += open;
  write_expr(out, *e.args[0], P::Test);
  if (e.kind == ExprKind::DictComp) {
    out += ": ";
    write_expr(out, *e.args[1], P::Test);
  }
  write_clauses(out, e.clauses);
  out += close;
}

// Operators: the kinds whose text sits between or before their operands.
void write_operation(std::string& out, const Expr& e) {
  switch (e.kind) {
    case ExprKind::BinOp: {
      P own = binary_precedence(e.text);
      bool right_assoc = own == P::Power;
      write_expr(out, *e.args[0], right_assoc ? next(own) : own);
      out += ' ';
      out += e.text;
      out += ' ';
      write_expr(out, *e.args[1], right_assoc ? P::Factor : next(own));
      return;
    }
    case ExprKind::UnaryOp:
      if (e.text == "not") {
        out += "not ";
        return write_expr(out, *e.args[0], P::Not);
      }
      out += e.text;
      return write_expr(out, *e.args[0], P::Factor);
    case ExprKind::BoolOp:
      return write_items(out, e.args, next(own_precedence(e)), " " + e.text + " ");
    case ExprKind::Compare:
      write_expr(out, *e.args[0], next(P::Cmp));
      for (size_t i = 0; i < e.ops.size() && i + 1 < e.args.size(); ++i) {
        out += ' ';
        out += e.ops[i];
        out += ' ';
        write_expr(out, *e.args[i + 1], next(P::Cmp));
      }
      return;
    case ExprKind::IfExp:
      write_pair(out, *e.args[0], next(P::Test), " if ", *e.args[1], next(P::Test));
      out += " else ";
      return write_expr(out, *e.args[2], P::Test);
    default:
      return;
  }
}
// Yields, named expressions, f-strings, patterns, internal values.
void write_other(std::string& out, const Expr& e) {
  switch (e.kind) {
    case ExprKind::Yield:
      if (e.args.empty() || !e.args[0]) {
        out += "yield";
        return;
      }
      out += "yield ";
      return write_expr(out, *e.args[0], P::Tuple);
    case ExprKind::YieldFrom:
      out += "yield from ";
      return write_expr(out, *e.args[0], P::Test);
    case ExprKind::NamedExpr:
      return write_pair(out, *e.args[0], P::Atom, " := ", *e.args[1], P::Test);
    case ExprKind::JoinedStr:
      out += print_joined_str(e);
      return;
    case ExprKind::FormattedValue:
      out += print_joined_str(*make_expr(ExprKind::JoinedStr, {std::make_shared<Expr>(e)}));
      return;
    case ExprKind::MatchAs:
      write_expr(out, *e.args[0], P::BitOr);
      out += " as ";
      out += e.text;
      return;
    case ExprKind::MatchOr:
      return write_items(out, e.args, P::BitXor, " | ");
    case ExprKind::Internal:
      out += '<';
      out += e.text;
      out += '>';
      return;
    default:
      out += "<?>";
      return;
  }
}

// Displays, comprehensions and the remaining kinds.
void write_display(std::string& out, const Expr& e) {
  switch (e.kind) {
    case ExprKind::Tuple:
      if (e.args.empty()) {
        out += "()";
      } else {
        write_items(out, e.args, P::Test);
        if (e.args.size() == 1) out += ',';
      }
      return;
    case ExprKind::List:
      out += '[';
      write_items(out, e.args, P::Test);
      out += ']';
      return;
    case ExprKind::Set:
      if (e.args.empty()) {
        out += "{*()}";
        return;
      }
      out += '{';
      write_items(out, e.args, P::Test);
      out += '}';
      return;
    case ExprKind::Dict:
      return write_dict(out, e);
    case ExprKind::ListComp:
      return write_comprehension(out, e, '[', ']');
    case ExprKind::SetComp:
    case ExprKind::DictComp:
      return write_comprehension(out, e, '{', '}');
    case ExprKind::GeneratorExp:
      return write_comprehension(out, e, '(', ')');
    case ExprKind::Await:
      out += "await ";
      return write_expr(out, *e.args[0], P::Atom);
    default:
      return write_other(out, e);
  }
}

// The text of `e`, without the parentheses its context may need.
void write_unparenthesized(std::string& out, const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Constant:
      out += e.text;
      return;
    case ExprKind::Attribute: {
      const Expr& base = *e.args[0];
      if (is_plain_int_literal(base)) {
        out += '(';
        out += base.text;
        out += ')';
      } else {
        write_expr(out, base, P::Atom);
      }
      out += '.';
      out += e.text;
      return;
    }
    case ExprKind::Subscript:
      write_expr(out, *e.args[0], P::Atom);
      out += '[';
      write_subscript_index(out, *e.args[1]);
      out += ']';
      return;
    case ExprKind::Slice:
      return write_slice(out, e);
    case ExprKind::Call:
      write_expr(out, *e.args[0], P::Atom);
      out += '(';
      write_items(out, e.args, P::Test, ", ", 1);
      out += ')';
      return;
    case ExprKind::Keyword:
      out += e.text;
      out += '=';
      return write_expr(out, *e.args[0], P::Test);
    case ExprKind::Starred:
    case ExprKind::DoubleStarred:
      out += e.kind == ExprKind::Starred ? "*" : "**";
      return write_expr(out, *e.args[0], P::BitOr);
    case ExprKind::BinOp:
    case ExprKind::UnaryOp:
    case ExprKind::BoolOp:
    case ExprKind::Compare:
    case ExprKind::IfExp:
      return write_operation(out, e);
    case ExprKind::Lambda:
      write_own_line(out, e);
      if (e.text.empty()) {
        out += "lambda: ";
      } else {
        out += "lambda ";
        out += e.text;
        out += ": ";
      }
      return write_expr(out, *e.args[0], P::Test);
    default:
      return write_display(out, e);
  }
}

void write_expr(std::string& out, const Expr& e, P context) {
  bool parenthesized = static_cast<int>(own_precedence(e)) < static_cast<int>(context);
  if (parenthesized) out += '(';
  write_unparenthesized(out, e);
  if (parenthesized) out += ')';
}

class BodyPrinter {
 public:
  BodyPrinter(int first_line, size_t reserve) : first_line_(first_line) { out_.reserve(reserve); }
  std::string take() { return std::move(out_); }

  void body(const Body& stmts, int indent) {
    if (stmts.empty()) {
      line(indent, "pass");
      return;
    }
    for (const StmtPtr& stmt : stmts) statement(*stmt, indent);
  }

 private:
  std::string out_;
  int first_line_ = 0;  // the source line the output's first line stands for (0: no such)
  int lines_ = 0;       // the newlines in out_[0, counted_)
  size_t counted_ = 0;

  // `[T, *Ts, **P]` after a generic definition's name (3.12+).
  static std::string type_params(const Stmt& s) {
    if (s.names.empty()) return {};
    std::string out = "[";
    for (size_t k = 0; k < s.names.size(); ++k) out += (k ? ", " : "") + s.names[k];
    return out + "]";
  }

  void line(int indent, const std::string& text) {
    out_.append(static_cast<size_t>(indent) * 4, ' ');
    out_ += text;
    out_ += '\n';
  }
  // The common statements are written straight into the output, not built as strings first.
  void start_line(int indent) { out_.append(static_cast<size_t>(indent) * 4, ' '); }

  static std::string expr(const ExprPtr& e, P context = P::Tuple) {
    return print_expr(*e, context);
  }

  void block(int indent, const std::string& header, const Body& stmts) {
    line(indent, header + ":");
    body(stmts, indent + 1);
  }

  void else_block(int indent, const std::vector<Body>& bodies, size_t index) {
    if (bodies.size() > index && !bodies[index].empty()) block(indent, "else", bodies[index]);
  }

  // `keyword test:` and the body under it.
  void test_block(int indent, const char* keyword, const Expr& test, const Body& stmts) {
    start_line(indent);
    out_ += keyword;
    out_ += ' ';
    write_expr(out_, test, P::NamedExpr);
    out_ += ":\n";
    body(stmts, indent + 1);
  }

  void if_chain(const Stmt& stmt, int indent, const char* keyword) {
    test_block(indent, keyword, *stmt.exprs[0], stmt.bodies[0]);
    if (stmt.bodies.size() < 2 || stmt.bodies[1].empty()) return;
    const Body& orelse = stmt.bodies[1];
    if (orelse.size() == 1 && orelse[0]->kind == StmtKind::If) {
      if_chain(*orelse[0], indent, "elif");
    } else {
      block(indent, "else", orelse);
    }
  }

  void decorators(const Stmt& stmt, int indent) {
    for (const ExprPtr& d : stmt.decorators) line(indent, "@" + expr(d, P::NamedExpr));
  }

  void try_stmt(const Stmt& stmt, int indent) {
    block(indent, "try", stmt.bodies[0]);
    for (const ExceptHandler& handler : stmt.handlers) {
      std::string header = handler.star ? "except*" : "except";
      if (handler.type) header += " " + expr(handler.type, P::Test);
      if (!handler.name.empty()) header += " as " + handler.name;
      block(indent, header, handler.body);
    }
    else_block(indent, stmt.bodies, 1);
    // A try needs a handler or a finally, even an empty one (`finally: pass`).
    if (stmt.bodies.size() > 2 && (!stmt.bodies[2].empty() || stmt.handlers.empty())) {
      block(indent, "finally", stmt.bodies[2]);
    }
  }

  void with_stmt(const Stmt& stmt, int indent) {
    std::string items;
    for (size_t i = 0; i + 1 < stmt.exprs.size(); i += 2) {
      if (i) items += ", ";
      items += expr(stmt.exprs[i], P::Test);
      if (stmt.exprs[i + 1]) items += " as " + expr(stmt.exprs[i + 1], P::Atom);
    }
    block(indent, std::string(stmt.is_async ? "async " : "") + "with " + items, stmt.bodies[0]);
  }

  void match_stmt(const Stmt& stmt, int indent) {
    line(indent, "match " + expr(stmt.exprs[0], P::Test) + ":");
    for (size_t k = 0; k < stmt.bodies.size() && 2 * k + 2 < stmt.exprs.size(); ++k) {
      std::string header = "case " + expr(stmt.exprs[2 * k + 1], P::Tuple);
      if (const ExprPtr& guard = stmt.exprs[2 * k + 2])
        header += " if " + expr(guard, P::NamedExpr);
      block(indent + 1, header, stmt.bodies[k]);
    }
  }

  void ann_assign_stmt(const Stmt& s, int indent) {
    std::string text = expr(s.exprs[0], P::Atom) + ": " + expr(s.exprs[1], P::Test);
    if (s.exprs.size() > 2 && s.exprs[2]) text += " = " + expr(s.exprs[2], P::Yield);
    line(indent, text);
  }

  void assert_stmt(const Stmt& s, int indent) {
    std::string text = "assert " + expr(s.exprs[0], P::Test);
    if (s.exprs.size() > 1) text += ", " + expr(s.exprs[1], P::Test);
    line(indent, text);
  }

  void scope_stmt(const Stmt& s, int indent) {  // global, nonlocal
    std::string text = s.kind == StmtKind::Global ? "global " : "nonlocal ";
    for (size_t i = 0; i < s.names.size(); ++i) text += (i ? ", " : "") + s.names[i];
    line(indent, text);
  }

  void assign_stmt(const Stmt& s, int indent) {
    start_line(indent);
    for (size_t i = 0; i + 1 < s.exprs.size(); ++i) {
      write_expr(out_, *s.exprs[i], P::Tuple);
      out_ += " = ";
    }
    const ExprPtr& value = s.exprs.back();
    bool bare_tuple = value->kind == ExprKind::Tuple && !value->args.empty();
    write_expr(out_, *value, bare_tuple ? P::Tuple : P::Yield);
    out_ += '\n';
  }

  void aug_assign_stmt(const Stmt& s, int indent) {
    start_line(indent);
    write_expr(out_, *s.exprs[0], P::Atom);
    out_ += ' ';
    out_ += s.text;
    out_ += "= ";
    write_expr(out_, *s.exprs[1], P::Yield);
    out_ += '\n';
  }

  void return_stmt(const Stmt& s, int indent) {
    // `return yield x` is not Python: a yield needs parentheses there.
    start_line(indent);
    if (s.exprs.empty() || !s.exprs[0]) {
      out_ += "return\n";
      return;
    }
    out_ += "return ";
    bool yields = s.exprs[0]->kind == ExprKind::Yield || s.exprs[0]->kind == ExprKind::YieldFrom;
    // (The value on its own line, below the return's: Stmt::value_line.)
    if (first_line_ > 0 && s.value_line > s.line && s.line > 0) {
      int gap = std::min(s.value_line - s.line, kMaxValueGap);
      out_ += '(';
      out_.append(static_cast<size_t>(gap), '\n');
      start_line(indent + 1);
      write_expr(out_, *s.exprs[0], P::Test);
      out_ += '\n';
      start_line(indent);
      out_ += ")\n";
      return;
    }
    write_expr(out_, *s.exprs[0], yields ? P::Test : P::Tuple);
    out_ += '\n';
  }

  void raise_stmt(const Stmt& s, int indent) {
    start_line(indent);
    out_ += "raise";
    if (!s.exprs.empty()) {
      out_ += ' ';
      write_expr(out_, *s.exprs[0], P::Test);
    }
    if (s.exprs.size() > 1) {
      out_ += " from ";
      write_expr(out_, *s.exprs[1], P::Test);
    }
    out_ += '\n';
  }

  void for_stmt(const Stmt& s, int indent) {
    start_line(indent);
    out_ += s.is_async ? "async for " : "for ";
    write_expr(out_, *s.exprs[0], P::Tuple);
    out_ += " in ";
    write_expr(out_, *s.exprs[1], P::Tuple);
    out_ += ":\n";
    body(s.bodies[0], indent + 1);
    else_block(indent, s.bodies, 1);
  }

  void def_stmt(const Stmt& s, int indent) {
    decorators(s, indent);
    std::string header = std::string(s.is_async ? "async " : "") + "def " + s.text +
                         type_params(s) + "(" + s.header + ")";
    if (s.returns) header += " -> " + expr(s.returns, P::Test);
    block(indent, header, s.bodies[0]);
  }

  void class_stmt(const Stmt& s, int indent) {
    decorators(s, indent);
    std::string header = "class " + s.text + type_params(s);
    if (!s.exprs.empty()) header += "(" + join(s.exprs, P::Test) + ")";
    block(indent, header, s.bodies[0]);
  }

  static constexpr int kMaxPaddedLine = 1000000;
  static constexpr int kMaxValueGap = 100;  // blank lines before a return's value, at most

  // Line by line with memchr (std::count's byte loop showed in profiles).
  static int count_newlines(std::string_view text) {
    int count = 0;
    const char* end = text.data() + text.size();
    for (const char* p = text.data(); p < end; ++count, ++p) {
      p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!p) break;
    }
    return count;
  }

  // The line a statement's first line goes on: a compound statement's header stands at least one
  // line above its body's first statement (a `while 1:` or `try:` has no operation of its own to
  // carry its line; the first one in its body does).
  static int lead_line(const Stmt& s) {
    int line = s.line;
    bool compound = s.kind == StmtKind::If || s.kind == StmtKind::While ||
                    s.kind == StmtKind::For || s.kind == StmtKind::Try || s.kind == StmtKind::With;
    if (compound && !s.bodies.empty() && !s.bodies[0].empty()) {
      int inner = lead_line(*s.bodies[0][0]);
      if (inner > 0 && (line <= 0 || inner - 1 < line)) line = inner - 1;
      // (A try's own line is its body's first operation's on 3.11+, where `try:` leaves no
      // operation: where the body's first statement has no line of its own, one above that.)
      if (inner <= 0 && s.kind == StmtKind::Try && line > 1) line -= 1;
    }
    return line;
  }

  // Blank lines up to the statement's own line (relative to first_line_), where output is behind.
  void keep_line(const Stmt& s) {
    if (first_line_ <= 0) return;
    int line = lead_line(s);
    if (line < first_line_) return;
    lines_ += count_newlines(std::string_view(out_).substr(counted_));
    counted_ = out_.size();
    int target = line - first_line_;  // lines before the statement's
    // (Bounded: a crafted line table must not make the output huge.)
    if (lines_ < target && target <= kMaxPaddedLine) {
      out_.append(static_cast<size_t>(target - lines_), '\n');
      lines_ = target;
      counted_ = out_.size();
    }
  }

  void statement(const Stmt& s, int indent) {
    keep_line(s);
    switch (s.kind) {
      case StmtKind::Expr:
        expression_statement(*s.exprs[0], indent);
        break;
      case StmtKind::Assign:
        assign_stmt(s, indent);
        break;
      case StmtKind::AugAssign:
        aug_assign_stmt(s, indent);
        break;
      case StmtKind::AnnAssign:
        ann_assign_stmt(s, indent);
        break;
      case StmtKind::Delete:
        line(indent, "del " + join(s.exprs, P::Atom));
        break;
      case StmtKind::Pass:
        line(indent, "pass");
        break;
      case StmtKind::Break:
        line(indent, "break");
        break;
      case StmtKind::Continue:
        line(indent, "continue");
        break;
      case StmtKind::Return:
        return_stmt(s, indent);
        break;
      case StmtKind::Raise:
        raise_stmt(s, indent);
        break;
      case StmtKind::Assert:
        assert_stmt(s, indent);
        break;
      case StmtKind::Global:
      case StmtKind::Nonlocal:
        scope_stmt(s, indent);
        break;
      case StmtKind::Import:
        line(indent, s.text);
        break;
      case StmtKind::If:
        if_chain(s, indent, "if");
        break;
      case StmtKind::While:
        test_block(indent, "while", *s.exprs[0], s.bodies[0]);
        else_block(indent, s.bodies, 1);
        break;
      case StmtKind::For:
        for_stmt(s, indent);
        break;
      case StmtKind::Try:
        try_stmt(s, indent);
        break;
      case StmtKind::With:
        with_stmt(s, indent);
        break;
      case StmtKind::FunctionDef:
        def_stmt(s, indent);
        break;
      case StmtKind::ClassDef:
        class_stmt(s, indent);
        break;
      case StmtKind::TypeAlias:
        line(indent, "type " + s.text + type_params(s) + " = " + expr(s.exprs[0], P::Test));
        break;
      case StmtKind::Match:
        match_stmt(s, indent);
        break;
      case StmtKind::Comment:
        comment(s.text, indent);
        break;
      case StmtKind::Fallback:
        comment(s.text, indent);
        line(indent, "raise NotImplementedError('glassbox: this region could not be decompiled')");
        break;
    }
  }

  // A string statement (a docstring) reads best triple-quoted. The repr's body becomes the
  // string's text when its only escapes are newlines and the quote, and no triple quote appears.
  static bool triple_quoted(const std::string& repr, std::string& out) {
    if (repr.size() < 2 || (repr[0] != '\'' && repr[0] != '"') || repr.back() != repr[0]) {
      return false;
    }
    if (repr.size() >= 6 && repr[1] == repr[0] && repr[2] == repr[0]) return false;  // done already
    std::string text;
    for (size_t i = 1; i + 1 < repr.size(); ++i) {
      char c = repr[i];
      if (c != '\\') {
        text += c;
        continue;
      }
      char next = repr[++i];
      if (next == 'n') {
        text += '\n';
      } else if (next == '\'' || next == '"') {
        text += next;
      } else {
        return false;
      }
    }
    if (text.find("\"\"\"") != std::string::npos || (!text.empty() && text.back() == '"')) {
      return false;
    }
    out = "\"\"\"" + text + "\"\"\"";
    return true;
  }

  void expression_statement(const Expr& e, int indent) {
    std::string docstring;
    if (e.kind == ExprKind::Constant && triple_quoted(e.text, docstring)) {
      // Continuation lines keep their own indentation: it is part of the string.
      line(indent, docstring);
      return;
    }
    start_line(indent);
    write_expr(out_, e, P::Yield);
    out_ += '\n';
  }

  // "# " before each line of `text` ("#" alone before an empty one).
  void comment(const std::string& text, int indent) {
    for (size_t begin = 0; begin < text.size();) {
      size_t end = std::min(text.find('\n', begin), text.size());
      if (end == begin) {
        line(indent, "#");
      } else {
        out_.append(static_cast<size_t>(indent) * 4, ' ');
        out_ += "# ";
        out_.append(text, begin, end - begin);
        out_ += '\n';
      }
      begin = end + 1;
    }
  }
};

}  // namespace

Precedence binary_precedence(const std::string& op) {
  if (op.size() == 1) {
    switch (op[0]) {
      case '|':
        return P::BitOr;
      case '^':
        return P::BitXor;
      case '&':
        return P::BitAnd;
      case '+':
      case '-':
        return P::Arith;
      case '*':
      case '@':
      case '/':
      case '%':
        return P::Term;
      default:
        return P::Atom;
    }
  }
  if (op == "<<" || op == ">>") return P::Shift;
  if (op == "//") return P::Term;
  return op == "**" ? P::Power : P::Atom;
}

std::string print_expr(const Expr& expr, Precedence context) {
  std::string out;
  write_expr(out, expr, context);
  return out;
}

std::string print_body(const Body& body, int indent, int first_line, size_t reserve) {
  BodyPrinter printer(first_line, reserve);
  printer.body(body, indent);
  return printer.take();
}

}  // namespace glassbox::decompiler
