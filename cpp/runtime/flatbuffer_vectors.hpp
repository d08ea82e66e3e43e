// Reading FlatBuffers vectors of an artifact into plain vectors.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <vector>

namespace glassbox::runtime {

// Vector elements copied bytewise: the FlatBuffers verifier checks a vector's length field for
// alignment but not its 8-byte elements, so reading them in place could be a misaligned load.
// An absent vector is empty.
template <typename T>
std::vector<T> copy_vector(const flatbuffers::Vector<T>* v) {
  std::vector<T> out;
  if (v && v->size()) {
    out.resize(v->size());
    std::memcpy(out.data(), v->Data(), v->size() * sizeof(T));
  }
  return out;
}

}  // namespace glassbox::runtime
