// A small .npy reader and writer for glassbox-run and tests: float32, int64 and bool, C order,
// little-endian, format versions 1.0 to 3.0. Anything else is an error that says what it found.
#pragma once

#include <string>

#include "runtime/executor.hpp"

namespace glassbox::runtime {

struct NpyArray {
  DType dtype = DType::Float32;
  Shape shape;
  std::shared_ptr<void> storage;
  void* data() const { return storage.get(); }
};

NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, DType dtype, const Shape& shape, const void* data);

}  // namespace glassbox::runtime
