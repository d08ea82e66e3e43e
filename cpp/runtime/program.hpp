// Program: a verified, immutable artifact (a Plan then resolves its kernels; see plan.hpp).
// Loading maps (or copies) the file, verifies the
// FlatBuffer, then verifies its meaning: every slot index in range, every slot defined once and
// before use, constants inside the file, arena slots inside the arena, and each instruction's
// operands accepted by its kernel's verify function. Nothing runs before all of that holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel.hpp"
#include "runtime/shape_expr.hpp"
#include "runtime/tensor.hpp"

namespace glassbox::runtime {

// 2: conv2d takes its arguments as a Conv2dArgs table; 3: mm, addmm and bmm as a GemmArgs table;
// 4: every kernel that takes arguments takes its family's table (no positional ints or floats);
// 5: attention operands may be strided views (AttentionArgs.*_view). A version 4 program is a
// version 5 program without views, so it loads as it is.
constexpr std::uint32_t kFormatVersion = 5;
constexpr std::uint32_t kOldestFormatVersion = 4;
constexpr std::size_t kSegmentAlignment = 64;
constexpr std::uint64_t kMaxArenaBytes = std::uint64_t{1} << 36;

// Bytes of an artifact: a read-only file mapping or an aligned heap copy.
class ArtifactBytes {
 public:
  static std::unique_ptr<ArtifactBytes> map_file(const std::string& path);
  static std::unique_ptr<ArtifactBytes> copy(const void* data, std::size_t size);
  ~ArtifactBytes();
  ArtifactBytes(const ArtifactBytes&) = delete;
  ArtifactBytes& operator=(const ArtifactBytes&) = delete;
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Hands the whole pages of [data, data + bytes) back when the bytes are a file mapping (they
  // are read again from the file when touched); a heap copy keeps them.
  void release(const void* data, std::size_t bytes) const;

 private:
  ArtifactBytes() = default;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

class Program final : public ConstantPages {
 public:
  static std::shared_ptr<const Program> load_file(const std::string& path);
  static std::shared_ptr<const Program> load_buffer(const void* data, std::size_t size);

  const std::vector<ValueDesc>& values() const { return values_; }
  const std::vector<std::int32_t>& inputs() const { return inputs_; }
  const std::vector<std::int32_t>& outputs() const { return outputs_; }
  const std::vector<InstrDesc>& instructions() const { return instructions_; }
  std::size_t arena_size() const { return arena_size_; }
  const void* constant_data(std::size_t index) const { return constants_[index]; }
  std::size_t num_constants() const { return constants_.size(); }
  // The bytes of the artifact's constants together.
  std::size_t constant_bytes() const { return constant_bytes_; }
  void release(const void* data, std::size_t bytes) const override { bytes_->release(data, bytes); }
  // The exported function's arguments in call order (empty when none were recorded).
  const std::vector<ArgumentDesc>& arguments() const { return arguments_; }

  // Sizes over symbols (program_symbols.cpp). A program with symbols declares every size at its
  // example binding; specialize() gives the program of another binding (the symbols' values in
  // order): every size evaluated, the arena placed again and the whole verified again, so a
  // binding the program cannot run at is a RunError, never a crash.
  bool has_symbols() const { return !symbols_.empty(); }
  const std::vector<SymbolDesc>& symbols() const { return symbols_; }
  std::shared_ptr<const Program> specialize(const std::vector<std::int64_t>& binding) const;
  // The binding the shapes of the inputs give (input i of shape shapes[i]); RunError where a
  // symbol's dims disagree or an input's rank differs from its declaration.
  std::vector<std::int64_t> bind(const std::vector<const Shape*>& shapes) const;

 private:
  explicit Program(std::unique_ptr<ArtifactBytes> bytes);
  Program(const Program&) = default;
  void parse();
  void parse_symbols();
  void verify_symbols() const;
  // The declared sizes and StridedArgs are the expressions' values at the binding the declared
  // input shapes give.
  void verify_example_binding() const;
  void verify_slots();
  void verify_instructions();
  void verify_arguments();

  std::shared_ptr<ArtifactBytes> bytes_;
  std::vector<ValueDesc> values_;
  std::vector<std::int32_t> inputs_;
  std::vector<std::int32_t> outputs_;
  std::vector<InstrDesc> instructions_;
  std::vector<const void*> constants_;
  std::size_t arena_size_ = 0;
  std::size_t constant_bytes_ = 0;
  std::vector<ArgumentDesc> arguments_;
  std::vector<SymbolDesc> symbols_;
  std::vector<ExprDesc> exprs_;
};

// The element count of a shape, or -1 when it exceeds the runtime's limit (2^40).
std::int64_t bounded_numel(const Shape& shape);

}  // namespace glassbox::runtime
