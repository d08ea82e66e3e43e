// The branch-free float32 math of the kernels (runtime/kernels/vector_math.hpp) against double
// precision libm, over dense grids, plus the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/vector_math.hpp"

namespace vm = glassbox::runtime::vmath;

namespace {

constexpr double kTiny = 1.2e-38;  // below this a float result is subnormal: absolute error only

double rel(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

double gelu_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double gelu_tanh_ref(double x) {
  return x / (1.0 + std::exp(-2.0 * std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

}  // namespace

TEST(VectorMath, ExpWithinTwoUlpOverTheNormalRange) {
  double worst = 0;
  for (double x = -87.0; x <= 88.7; x += 1.37e-3) {
    float xf = static_cast<float>(x);
    worst = std::max(worst, rel(vm::exp_f32(xf), std::exp(static_cast<double>(xf))));
  }
  EXPECT_LT(worst, 2.5e-7);
}

TEST(VectorMath, ErfWithinAMillionth) {
  double worst = 0;
  for (double x = -6.0; x <= 6.0; x += 1.1e-4) {
    float xf = static_cast<float>(x);
    if (xf == 0.0f) continue;
    worst = std::max(worst, rel(vm::erf_f32(xf), std::erf(static_cast<double>(xf))));
  }
  EXPECT_LT(worst, 1e-6);
}

TEST(VectorMath, GeluWithinAMillionthIncludingTheNegativeTail) {
  double worst = 0;
  for (double x = -13.0; x <= 13.0; x += 1.3e-4) {
    float xf = static_cast<float>(x);
    double want = gelu_ref(xf);
    if (std::fabs(want) < kTiny) continue;
    worst = std::max(worst, rel(vm::gelu_erf_f32(xf), want));
  }
  EXPECT_LT(worst, 1e-6);
}

// The exponent -2y is rounded once in float, which costs up to ~|2y| * 6e-8 relative in the far
// negative tail (still far better than 0.5 x (1 + tanh y), which cancels there).
TEST(VectorMath, GeluTanhWithinTwoHundredThousandth) {
  double worst = 0;
  for (double x = -9.0; x <= 13.0; x += 1.3e-4) {
    float xf = static_cast<float>(x);
    double want = gelu_tanh_ref(xf);
    if (std::fabs(want) < kTiny) continue;
    worst = std::max(worst, rel(vm::gelu_tanh_f32(xf), want));
  }
  EXPECT_LT(worst, 2e-5);
}

TEST(VectorMath, TanhWithinFourTenMillionthsAcrossBothForms) {
  double worst = 0;
  for (double x = -12.0; x <= 12.0; x += 1.1e-4) {
    float xf = static_cast<float>(x);
    if (xf == 0.0f) continue;
    worst = std::max(worst, rel(vm::tanh_f32(xf), std::tanh(static_cast<double>(xf))));
  }
  for (double x = 1e-30; x < 1.0; x *= 1.07) {  // small magnitudes, where 1 - e would cancel
    float xf = static_cast<float>(x);
    worst = std::max(worst, rel(vm::tanh_f32(xf), std::tanh(static_cast<double>(xf))));
    worst = std::max(worst, rel(vm::tanh_f32(-xf), std::tanh(-static_cast<double>(xf))));
  }
  EXPECT_LT(worst, 4e-7);
}

TEST(VectorMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(vm::exp_f32(nan)));
  EXPECT_EQ(vm::exp_f32(inf), inf);
  EXPECT_EQ(vm::exp_f32(-inf), 0.0f);
  EXPECT_EQ(vm::exp_f32(100.0f), inf);
  EXPECT_EQ(vm::exp_f32(-200.0f), 0.0f);
  EXPECT_EQ(vm::exp_f32(0.0f), 1.0f);
  EXPECT_NEAR(vm::exp_f32(-100.0f), std::exp(-100.0), 2e-45);  // subnormal result
  EXPECT_TRUE(std::isnan(vm::gelu_erf_f32(nan)));
  EXPECT_EQ(vm::gelu_erf_f32(inf), inf);
  EXPECT_EQ(vm::gelu_erf_f32(-30.0f), 0.0f);
  EXPECT_EQ(vm::gelu_erf_f32(0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vm::gelu_tanh_f32(nan)));
  EXPECT_EQ(vm::gelu_tanh_f32(inf), inf);
  EXPECT_EQ(vm::gelu_tanh_f32(-30.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vm::erf_f32(nan)));
  EXPECT_EQ(vm::erf_f32(inf), 1.0f);
  EXPECT_EQ(vm::erf_f32(-inf), -1.0f);
  EXPECT_EQ(vm::erf_f32(0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vm::tanh_f32(nan)));
  EXPECT_EQ(vm::tanh_f32(inf), 1.0f);
  EXPECT_EQ(vm::tanh_f32(-inf), -1.0f);
  EXPECT_EQ(vm::tanh_f32(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(vm::tanh_f32(-0.0f)));
  EXPECT_EQ(vm::sigmoid_f32(-200.0f), 0.0f);
  EXPECT_EQ(vm::sigmoid_f32(200.0f), 1.0f);
}
