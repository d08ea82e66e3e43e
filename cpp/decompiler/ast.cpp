#include "decompiler/ast.hpp"

#include <utility>

namespace glassbox::decompiler {

ExprPtr make_name(std::string name) { return make_expr(ExprKind::Name, {}, std::move(name)); }

ExprPtr make_constant(std::string repr) {
  return make_expr(ExprKind::Constant, {}, std::move(repr));
}

ExprPtr make_expr(ExprKind kind, std::vector<ExprPtr> args, std::string text) {
  auto expr = std::make_shared<Expr>();
  expr->kind = kind;
  expr->args = std::move(args);
  expr->text = std::move(text);
  return expr;
}

StmtPtr make_stmt(StmtKind kind, std::vector<ExprPtr> exprs, std::vector<Body> bodies) {
  auto stmt = std::make_shared<Stmt>();
  stmt->kind = kind;
  stmt->exprs = std::move(exprs);
  stmt->bodies = std::move(bodies);
  return stmt;
}

bool is_none(const ExprPtr& e) { return e && e->kind == ExprKind::Constant && e->text == "None"; }

bool is_return_none(const StmtPtr& s) {
  return s->kind == StmtKind::Return && (s->exprs.empty() || !s->exprs[0] || is_none(s->exprs[0]));
}

}  // namespace glassbox::decompiler
