// oneDNN's CPU engine and a stream per thread, shared by the kernels that run oneDNN primitives
// (kernels/packed_gemm.cpp, kernels/conv.cpp). oneDNN's threads are OpenMP's (Debian's libdnnl).
#pragma once

#include <cstdint>
#include <dnnl.hpp>

#include "runtime/kernels/packed_gemm.hpp"

namespace glassbox::runtime {

dnnl::engine& onednn_engine();
dnnl::stream& onednn_stream();
// The eltwise algorithm of an epilogue (undef for none).
dnnl::algorithm onednn_eltwise(Epilogue epilogue);

// A weight kept in a primitive's layout (`packed`), reordered from the caller's memory (`plain`,
// its handle set per call) when its address or version changes, and on every call when it has no
// version (0: nothing vouches for the values). refresh says whether it reordered: the caller may
// then release the weight's input (KernelContext::release_input).
struct ReorderedWeight {
  dnnl::memory plain, packed;
  const void* source = nullptr;
  std::uint64_t version = 0;

  bool refresh(dnnl::stream& stream, const float* weight, std::uint64_t weight_version);
};

}  // namespace glassbox::runtime
