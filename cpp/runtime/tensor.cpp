#include "runtime/tensor.hpp"

namespace glassbox::runtime {

std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return 4;
    case DType::Int64:
      return 8;
    case DType::Bool:
      return 1;
    case DType::Int32:
      return 4;
  }
  return 1;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "float32";
    case DType::Int64:
      return "int64";
    case DType::Bool:
      return "bool";
    case DType::Int32:
      return "int32";
  }
  return "?";
}

std::int64_t numel_of(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace glassbox::runtime
