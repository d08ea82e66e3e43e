// OpenBLAS's threads, for kernels that call it from their own OpenMP teams (kernels/gemm.cpp,
// kernels/conv.cpp).
#pragma once

namespace glassbox::runtime {

// OpenBLAS's thread count as configured when first asked (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS
// or the core count). Read once: a team lowers the process-wide count to 1 for its duration (see
// BlasOnCallers), and a concurrent run reading it then would "restore" 1 for good.
int blas_threads();

// Whether OpenBLAS's threads are OpenMP's (Debian's libopenblas0-openmp; see CMakeLists.txt).
bool blas_runs_on_openmp();

// Held around a team region whose threads each call BLAS, so that every call runs on its caller.
// OpenBLAS built on OpenMP does so inside a parallel region by itself (its thread count is
// OpenMP's, which torch shares: it is left alone); the pthread build has its process-wide count
// lowered to 1 for the region's duration.
class BlasOnCallers {
 public:
  BlasOnCallers();
  ~BlasOnCallers();
  BlasOnCallers(const BlasOnCallers&) = delete;
  BlasOnCallers& operator=(const BlasOnCallers&) = delete;

 private:
  bool lowered_;
};

}  // namespace glassbox::runtime
