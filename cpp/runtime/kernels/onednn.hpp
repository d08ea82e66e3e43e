// oneDNN's CPU engine and a stream per thread, shared by the kernels that run oneDNN primitives
// (kernels/packed_gemm.cpp, kernels/conv.cpp). oneDNN's threads are OpenMP's (Debian's libdnnl).
#pragma once

#include <dnnl.hpp>

#include "runtime/kernels/packed_gemm.hpp"

namespace glassbox::runtime {

dnnl::engine& onednn_engine();
dnnl::stream& onednn_stream();
// The eltwise algorithm of an epilogue (undef for none).
dnnl::algorithm onednn_eltwise(Epilogue epilogue);

}  // namespace glassbox::runtime
