#include "decompiler/ast.hpp"

#include <memory_resource>
#include <utility>

namespace glassbox::decompiler {

ExprPtr make_name(std::string name) { return make_expr(ExprKind::Name, {}, std::move(name)); }

ExprPtr make_constant(std::string repr) {
  return make_expr(ExprKind::Constant, {}, std::move(repr));
}

namespace {

// Memory from operator new, counted.
class CountedResource : public std::pmr::memory_resource {
 public:
  size_t held = 0;

 private:
  void* do_allocate(size_t bytes, size_t alignment) override {
    void* p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
    held += bytes;
    return p;
  }
  void do_deallocate(void* p, size_t bytes, size_t alignment) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
    held -= bytes;
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

struct ThreadPool {
  CountedResource upstream;
  std::pmr::unsynchronized_pool_resource nodes{&upstream};
  int users = 0;
};

constexpr size_t kKeptBytes = size_t{1} << 20;  // what the pool may keep between decompilations

ThreadPool& thread_pool() {
  thread_local ThreadPool pool;
  return pool;
}

// Under AddressSanitizer every node is its own allocation, so that a node used after it is gone
// is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

template <class Node>
std::shared_ptr<Node> make_node() {
  ThreadPool& pool = thread_pool();
  if (!kPooled || pool.users == 0) return std::make_shared<Node>();
  return std::allocate_shared<Node>(std::pmr::polymorphic_allocator<Node>(&pool.nodes));
}

}  // namespace

NodePool::NodePool() { ++thread_pool().users; }

NodePool::~NodePool() {
  ThreadPool& pool = thread_pool();
  if (--pool.users == 0 && pool.upstream.held > kKeptBytes) pool.nodes.release();
}

ExprPtr make_expr(ExprKind kind, std::vector<ExprPtr> args, std::string text) {
  auto expr = make_node<Expr>();
  expr->kind = kind;
  expr->args = std::move(args);
  expr->text = std::move(text);
  return expr;
}

StmtPtr make_stmt(StmtKind kind, std::vector<ExprPtr> exprs, std::vector<Body> bodies) {
  auto stmt = make_node<Stmt>();
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
