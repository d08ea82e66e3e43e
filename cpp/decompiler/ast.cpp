#include "decompiler/ast.hpp"

#include <array>
#include <cstddef>
#include <memory_resource>
#include <new>
#include <utility>
#include <vector>

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

// Nodes come in two sizes (an Expr's and a Stmt's, each with its shared_ptr control block): a
// free list per size, refilled from chunks bumped through, makes and frees one in a few
// instructions. (std::pmr::unsynchronized_pool_resource spent about 8% of a decompilation's
// instructions finding the chunk a node came from.) Larger requests go to `upstream` directly.
class FreeLists : public std::pmr::memory_resource {
 public:
  explicit FreeLists(std::pmr::memory_resource* upstream) : upstream_(upstream) {}
  FreeLists(const FreeLists&) = delete;
  FreeLists& operator=(const FreeLists&) = delete;
  ~FreeLists() override { release(); }

  // Gives every chunk back; no block handed out may be in use.
  void release() {
    for (void* chunk : chunks_) upstream_->deallocate(chunk, kChunkBytes, kAlign);
    chunks_.clear();
    free_.fill(nullptr);
    next_ = end_ = nullptr;
  }

 private:
  static constexpr size_t kAlign = alignof(std::max_align_t);
  static constexpr size_t kMaxBlock = 512;
  static constexpr size_t kChunkBytes = size_t{64} << 10;
  struct FreeBlock {
    FreeBlock* next;
  };

  std::pmr::memory_resource* upstream_;
  std::vector<void*> chunks_;
  std::array<FreeBlock*, kMaxBlock / kAlign + 1> free_{};
  char* next_ = nullptr;  // the unused rest of the newest chunk
  char* end_ = nullptr;

  static size_t size_class(size_t bytes) { return (bytes + kAlign - 1) / kAlign; }

  void* do_allocate(size_t bytes, size_t alignment) override {
    if (bytes > kMaxBlock || alignment > kAlign) return upstream_->allocate(bytes, alignment);
    const size_t k = size_class(bytes);
    if (FreeBlock* block = free_[k]) {
      free_[k] = block->next;
      return block;
    }
    const size_t size = k * kAlign;
    if (static_cast<size_t>(end_ - next_) < size) {
      chunks_.push_back(upstream_->allocate(kChunkBytes, kAlign));
      next_ = static_cast<char*>(chunks_.back());
      end_ = next_ + kChunkBytes;
    }
    void* block = next_;
    next_ += size;
    return block;
  }
  void do_deallocate(void* p, size_t bytes, size_t alignment) override {
    if (bytes > kMaxBlock || alignment > kAlign) return upstream_->deallocate(p, bytes, alignment);
    const size_t k = size_class(bytes);
    free_[k] = new (p) FreeBlock{free_[k]};
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

struct ThreadPool {
  CountedResource upstream;
  FreeLists nodes{&upstream};
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
