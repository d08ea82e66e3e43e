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
#include "runtime/tensor.hpp"

namespace glassbox::runtime {

constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kSegmentAlignment = 64;

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

 private:
  ArtifactBytes() = default;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

class Program {
 public:
  static std::shared_ptr<const Program> load_file(const std::string& path);
  static std::shared_ptr<const Program> load_buffer(const void* data, std::size_t size);

  const std::vector<ValueDesc>& values() const { return values_; }
  const std::vector<std::int32_t>& inputs() const { return inputs_; }
  const std::vector<std::int32_t>& outputs() const { return outputs_; }
  const std::vector<InstrDesc>& instructions() const { return instructions_; }
  std::size_t arena_size() const { return arena_size_; }
  const void* constant_data(std::size_t index) const { return constants_[index]; }
  // The exported function's arguments in call order (empty when none were recorded).
  const std::vector<ArgumentDesc>& arguments() const { return arguments_; }

 private:
  explicit Program(std::unique_ptr<ArtifactBytes> bytes);
  void parse();
  void verify_slots();
  void verify_instructions();
  void verify_arguments();

  std::unique_ptr<ArtifactBytes> bytes_;
  std::vector<ValueDesc> values_;
  std::vector<std::int32_t> inputs_;
  std::vector<std::int32_t> outputs_;
  std::vector<InstrDesc> instructions_;
  std::vector<const void*> constants_;
  std::size_t arena_size_ = 0;
  std::vector<ArgumentDesc> arguments_;
};

}  // namespace glassbox::runtime
