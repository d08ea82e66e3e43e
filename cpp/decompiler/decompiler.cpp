#include "decompiler/decompiler.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "bytecode/disassembler.hpp"
#include "bytecode/error.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/handlers_support.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

namespace {

constexpr size_t kMaxFallbackLines = 400;

// The marked fallback for a code object: its disassembly as a comment, then a raise.
StmtPtr fallback_statement(const bytecode::CodeObject& code, const std::string& reason) {
  std::string listing;
  try {
    listing = bytecode::disassemble(code);
  } catch (const bytecode::BytecodeError& error) {
    listing = std::string("(no disassembly: ") + error.what() + ")\n";
  }
  std::istringstream lines(listing);
  std::string text = "glassbox: could not reconstruct " + code.qualname + ": " + reason + "\n";
  std::string line;
  size_t count = 0;
  while (std::getline(lines, line)) {
    if (++count > kMaxFallbackLines) {
      text += "...\n";
      break;
    }
    text += line + "\n";
  }
  auto stmt = make_stmt(StmtKind::Fallback);
  stmt->text = text;
  return stmt;
}

bool is_plain_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_' || u >= 0x80;
  });
}

// After a fallback's raise, statements that never run but keep what the code is. Where it has
// free variables, one that reads each: they stay free variables of the function, so the
// enclosing code still makes their cells and passes its closure as the original did (a method's
// `__class__` makes its class create the class cell). Where it is a generator (or an async
// one), a `yield`: calling it still makes a generator, which raises when first resumed.
void keep_code_kind(const bytecode::CodeObject& code, Body& body) {
  constexpr int kGenerator = 0x20, kAsyncGenerator = 0x200;
  bool generator = code.flags & (kGenerator | kAsyncGenerator);
  std::vector<ExprPtr> names;
  for (const std::string& name : code.freevars) {
    if (!is_plain_name(name) || name == "__classdict__") {
      names.clear();
      break;
    }
    names.push_back(make_name(name));
  }
  if (names.empty() && !generator) return;
  auto comment = make_stmt(StmtKind::Comment);
  comment->text = "glassbox: never runs; keeps what the original is";
  body.push_back(comment);
  if (!names.empty()) {
    body.push_back(
        make_stmt(StmtKind::Expr,
                  {names.size() == 1 ? names[0] : make_expr(ExprKind::Tuple, std::move(names))}));
  }
  if (generator) body.push_back(make_stmt(StmtKind::Expr, {make_expr(ExprKind::Yield, {})}));
}

Body fallback_body(const bytecode::CodeObject& code, const std::string& reason) {
  Body body{fallback_statement(code, reason)};
  keep_code_kind(code, body);
  return body;
}

// Kinds whose every child must be present (a Slice, a Dict's ** key, a bare yield may omit one).
bool needs_all_children(ExprKind kind) {
  switch (kind) {
    case ExprKind::Slice:
    case ExprKind::Dict:
    case ExprKind::Yield:
    case ExprKind::FormattedValue:
    case ExprKind::JoinedStr:
      return false;
    default:
      return true;
  }
}

bool contains_internal(const ExprPtr& e, int depth = 0) {
  if (!e) return false;
  if (e->kind == ExprKind::Internal || depth > 500) return true;
  bool all = needs_all_children(e->kind);
  for (const ExprPtr& arg : e->args) {
    if ((all && !arg) || contains_internal(arg, depth + 1)) return true;
  }
  for (const ComprehensionClause& clause : e->clauses) {
    if (contains_internal(clause.target, depth + 1) || contains_internal(clause.iter, depth + 1))
      return true;
    for (const ExprPtr& c : clause.conditions) {
      if (contains_internal(c, depth + 1)) return true;
    }
  }
  return false;
}

// Whether a statement tree still holds a stack value the decoder never turned into source (the
// printer could only write it as `<tag>`, which does not compile).
bool contains_internal(const Body& body) {
  for (const StmtPtr& s : body) {
    bool all = s->kind == StmtKind::Assign || s->kind == StmtKind::AugAssign ||
               s->kind == StmtKind::Expr || s->kind == StmtKind::Delete ||
               s->kind == StmtKind::For || s->kind == StmtKind::While || s->kind == StmtKind::If;
    for (const ExprPtr& e : s->exprs) {
      if ((all && !e) || contains_internal(e)) return true;
    }
    for (const ExprPtr& e : s->decorators) {
      if (contains_internal(e)) return true;
    }
    if (contains_internal(s->returns)) return true;
    for (const ExceptHandler& h : s->handlers) {
      if (contains_internal(h.type) || contains_internal(h.body)) return true;
    }
    for (const Body& b : s->bodies) {
      if (contains_internal(b)) return true;
    }
  }
  return false;
}

}  // namespace

CodeDecoder::CodeDecoder(const bytecode::CodeObject& code, CodeRole role, DecodeSession& session,
                         std::string class_name)
    : code_(code),
      profile_(code.minor),
      role_(role),
      session_(session),
      class_name_(std::move(class_name)) {}

Body CodeDecoder::decode(bool region_fallbacks) {
  lifted_ = lift(code_);
  flow_ = analyze_flow(lifted_);
  normalized_ = normalize(lifted_, flow_, profile_);
  int count = static_cast<int>(lifted_.ops.size());
  opened_try_.assign(lifted_.ops.size() + 1, false);
  try_covering_.assign(lifted_.ops.size(), -1);
  for (int k = 0; profile_.exception_table && k < count; ++k) {
    int handler = flow_.handler_covering(k);
    if (handler >= 0 && lifted_.ops[static_cast<size_t>(handler)].op == Op::PushExcInfo)
      try_covering_[static_cast<size_t>(k)] = handler;
  }
  consumed_.assign(lifted_.ops.size() + 1, false);
  exit_copies_read_.clear();
  // Handler blocks that are not a try statement's (cleanups: `except ... as` names, inlined
  // comprehensions, generators) are never statements of their own.
  for (const HandlerRegion& region : flow_.regions) {
    if (lifted_.ops[static_cast<size_t>(region.target)].op == Op::PushExcInfo) continue;
    if (lifted_.ops[static_cast<size_t>(region.target)].op == Op::CleanupThrow) {
      // An await's throw path (3.12+); placed inline, the END_SEND after it is the await's own.
      consumed_[static_cast<size_t>(region.target)] = true;
      size_t next = static_cast<size_t>(region.target) + 1;
      if (next < lifted_.ops.size() && lifted_.ops[next].op == Op::Jump) consumed_[next] = true;
      continue;
    }
    for (int k = region.target; k < count && k < region.target + 16; ++k) {
      consumed_[static_cast<size_t>(k)] = true;
      Op op = lifted_.ops[static_cast<size_t>(k)].op;
      if (op == Op::Reraise || op == Op::Jump || op == Op::ReturnValue || op == Op::ReturnConst)
        break;
    }
  }
  Body body =
      region_fallbacks ? decode_with_region_fallbacks(count) : decode_range(0, count, count);
  if (has_pending_copies(body)) throw DecodeFailure("finally copy on an exit path");
  return finish_body(std::move(body));
}

void CodeDecoder::mark_consumed(int begin, int end) {
  for (int k = std::max(begin, 0); k < end && static_cast<size_t>(k) < consumed_.size(); ++k) {
    consumed_[static_cast<size_t>(k)] = true;
  }
}

namespace {

// Cells used as values (generated code: Dynamo passes a frame's cells to its resume functions).
// Source has a cell only as the closure of a function: `(lambda: x).__closure__[0]` is the cell
// of x itself, which the lambda shares with the function that owns it; a tuple of cells (what a
// closure is built from), a tuple of those.
void cells_as_values(ExprPtr& e, int depth = 0) {
  if (!e || depth > 500) return;
  if (e->kind == ExprKind::Internal && e->text == "closure" && !e->args.empty()) {
    if (e->args.size() == 1 && e->args[0] && e->args[0]->kind == ExprKind::Name) {
      ExprPtr lambda = make_expr(ExprKind::Lambda, {e->args[0]});
      ExprPtr closure = make_expr(ExprKind::Attribute, {lambda}, "__closure__");
      e = make_expr(ExprKind::Subscript, {closure, make_constant("0")});
      return;
    }
    std::vector<ExprPtr> cells = e->args;
    for (ExprPtr& cell : cells) {
      if (!cell || cell->kind != ExprKind::Internal || cell->text != "closure") return;
      cells_as_values(cell, depth + 1);
    }
    e = make_expr(ExprKind::Tuple, std::move(cells));
    return;
  }
  for (ExprPtr& arg : e->args) cells_as_values(arg, depth + 1);
  for (ComprehensionClause& clause : e->clauses) {
    cells_as_values(clause.iter, depth + 1);
    for (ExprPtr& c : clause.conditions) cells_as_values(c, depth + 1);
  }
}

void cells_as_values(Body& body) {
  for (StmtPtr& s : body) {
    for (ExprPtr& e : s->exprs) cells_as_values(e);
    for (ExprPtr& e : s->decorators) cells_as_values(e);
    for (ExceptHandler& h : s->handlers) {
      cells_as_values(h.type);
      cells_as_values(h.body);
    }
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) continue;  // own code
    for (Body& b : s->bodies) cells_as_values(b);
  }
}

// What every decoded body of `role` gets before it is used: cells as values, and a refusal of
// internal values that have no source form (a comprehension's are read by its caller).
void finish_decoded(CodeRole role, Body& body) {
  if (role == CodeRole::Function) cells_as_values(body);
  if (role != CodeRole::Comprehension && contains_internal(body)) {
    throw DecodeFailure("a decompiler-internal value has no source form");
  }
}

}  // namespace

// Code whose decode failed, read again with region fallbacks (regions.cpp): the statements
// around the regions that fail are still source. Empty where the regions cannot be made out.
std::optional<Body> CodeDecoder::decode_by_regions(const bytecode::CodeObject& code, CodeRole role,
                                                   DecodeSession& session,
                                                   const std::string& class_name,
                                                   bool table_readings) {
  size_t failures_before = session.failures.size();
  CodeDecoder decoder(code, role, session, class_name);
  decoder.table_readings_ = table_readings;
  try {
    Body body = decoder.decode(true);
    finish_decoded(role, body);
    keep_code_kind(code, body);
    return body;
  } catch (const DecodeFailure&) {
  } catch (const bytecode::BytecodeError&) {
  }
  session.failures.resize(failures_before);
  return std::nullopt;
}

Body CodeDecoder::decode_nested(const bytecode::CodeObject& code, CodeRole role,
                                DecodeSession& session, const std::string& class_name) {
  size_t failures_before = session.failures.size();
  bool chains_apart = true;
  for (bool table_readings = true;;) {
    CodeDecoder decoder(code, role, session, class_name);
    decoder.table_readings_ = table_readings;
    decoder.chains_apart_by_lines_ = chains_apart;
    try {
      Body body = decoder.decode();
      finish_decoded(role, body);
      return body;
    } catch (const DecodeFailure& failure) {
      if (decoder.used_table_reading_ && table_readings) {  // read again, without them
        session.failures.resize(failures_before);
        table_readings = false;
        continue;
      }
      // (Read again with and-chains whose tests jump to exit copies on other lines: the same
      // behaviour as the nested ifs, the reading the finally body's copy has.)
      if (decoder.copy_unmatched_apart_ && chains_apart) {
        session.failures.resize(failures_before);
        chains_apart = false;
        continue;
      }
      if (role == CodeRole::Lambda || role == CodeRole::Comprehension) throw;
      if (auto body = decode_by_regions(code, role, session, class_name, table_readings)) {
        return std::move(*body);
      }
      session.failures.push_back({code.qualname, code.firstlineno, failure.what()});
      return fallback_body(code, failure.what());
    } catch (const bytecode::BytecodeError& error) {
      if (role == CodeRole::Lambda || role == CodeRole::Comprehension)
        throw DecodeFailure(error.what());
      session.failures.push_back({code.qualname, code.firstlineno, error.what()});
      return fallback_body(code, error.what());
    }
  }
}

namespace {

// Exact output keeps the original's line numbers where it can (print_body's `first_line`): the
// code's first line stands for line 1.
constexpr size_t kSourceReserve = 1024;  // most functions' source fits

DecompileResult finish(const Body& body, const DecodeSession& session, int first_line) {
  DecompileResult result;
  result.source = print_body(body, 0, first_line, kSourceReserve);
  for (const auto& failure : session.failures) {
    result.fallbacks.push_back({failure.code_name, failure.first_line, failure.reason});
  }
  return result;
}

}  // namespace

DecompileResult decompile_module(const bytecode::CodeObject& code, Output output) {
  NodePool pool;
  DecodeSession session;
  session.output = output;
  Body body = CodeDecoder::decode_nested(code, CodeRole::Module, session, "");
  return finish(body, session, output == Output::Exact ? code.firstlineno : 0);
}

namespace {

// The name a `def` of `code` gets: its own, or for `<lambda>` (Dynamo transforms lambdas into
// code with statements) and the like, the name with its other characters as `_`: `_lambda_`.
std::string def_name(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    bool word = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || static_cast<unsigned char>(c) >= 0x80;
    if (!word) c = '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "_" + out;
  return out;
}

}  // namespace

DecompileResult decompile_function(const bytecode::CodeObject& code, Output output) {
  NodePool pool;
  DecodeSession session;
  session.output = output;
  auto stmt = make_stmt(StmtKind::FunctionDef);
  stmt->text = def_name(code.name);
  stmt->bodies.push_back(CodeDecoder::decode_nested(code, CodeRole::Function, session, ""));
  // Parameters without defaults: the code object alone does not carry them.
  stmt->header = function_parameters_without_defaults(code);
  stmt->is_async = code.flags & (0x80 | 0x200);
  Body body;
  if (!code.freevars.empty()) {
    // The free variables need an enclosing function that defines the cells.
    auto outer = make_stmt(StmtKind::FunctionDef);
    outer->text = "__glassbox_enclosing";
    Body outer_body;
    auto comment = make_stmt(StmtKind::Comment);
    comment->text = "defines the cells of the free variables of " + code.name;
    outer_body.push_back(comment);
    for (const std::string& name : code.freevars) {
      outer_body.push_back(make_stmt(StmtKind::Assign, {make_name(name), make_constant("None")}));
    }
    outer_body.push_back(stmt);
    outer_body.push_back(make_stmt(StmtKind::Return, {make_name(stmt->text)}));
    outer->bodies.push_back(std::move(outer_body));
    body.push_back(outer);
  } else {
    body.push_back(stmt);
  }
  return finish(body, session, output == Output::Exact ? code.firstlineno : 0);
}

std::string function_parameters_without_defaults(const bytecode::CodeObject& code) {
  const auto& names = code.varnames;
  int positional = code.argcount;
  int kwonly = code.kwonlyargcount;
  bool varargs = code.flags & 0x04;
  bool varkeywords = code.flags & 0x08;
  // The parts joined by ", ", appended in place (one string, no part of its own).
  std::string out;
  bool first = true;
  auto separate = [&] {
    if (!first) out += ", ";
    first = false;
  };
  auto add_name = [&](const char* prefix, int k) {
    separate();
    out += prefix;
    if (static_cast<size_t>(k) < names.size()) {
      out += names[static_cast<size_t>(k)];
    } else {
      out += '_';
      out += std::to_string(k);
    }
  };
  for (int k = 0; k < positional; ++k) {
    add_name("", k);
    if (k + 1 == code.posonlyargcount) {
      separate();
      out += '/';
    }
  }
  int next = positional + kwonly;
  if (varargs) {
    add_name("*", next++);
  } else if (kwonly > 0) {
    separate();
    out += '*';
  }
  for (int k = 0; k < kwonly; ++k) add_name("", positional + k);
  if (varkeywords) add_name("**", next);
  return out;
}

}  // namespace glassbox::decompiler
