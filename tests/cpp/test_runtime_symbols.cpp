// Programs whose sizes depend on symbols: the expression table's verification and evaluation, and
// a program that runs at every binding, refusing bad artifacts at load and bad bindings at call.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "glassbox/runtime.h"
#include "runtime/serializer.hpp"
#include "runtime/shape_expr.hpp"

namespace rt = glassbox::runtime;
using rt::ExprOp;

namespace {

rt::ValueDesc value(rt::Shape shape, rt::ValueKind kind, std::int64_t index,
                    std::vector<std::int32_t> dims = {}) {
  rt::ValueDesc v;
  v.dtype = rt::DType::Float32;
  v.shape = std::move(shape);
  v.kind = kind;
  v.index = index;
  v.dims = std::move(dims);
  return v;
}

// y = relu(x @ W^T + b) for x [s0, 2] (declared at s0 = 4), W [3, 2], b [3]; plus an unused
// arena slot of size s0 - 3, negative below s0 = 3.
rt::ProgramSpec symbolic_linear_relu() {
  rt::ProgramSpec s;
  s.symbols = {{0, 0, 1, 1000}};
  s.exprs = {{ExprOp::Symbol, 0, 0}, {ExprOp::Const, -3, 0}, {ExprOp::Add, 0, 1}};
  s.values.push_back(value({4, 2}, rt::ValueKind::Input, 0, {0, -1}));
  s.values.push_back(value({3, 2}, rt::ValueKind::Constant, 0));
  s.values.push_back(value({3}, rt::ValueKind::Constant, 1));
  s.values.push_back(value({4, 3}, rt::ValueKind::Arena, 0, {0, -1}));
  s.values.push_back(value({4, 3}, rt::ValueKind::Arena, 64, {0, -1}));
  s.values.push_back(value({1}, rt::ValueKind::Arena, 128, {2}));
  s.inputs = {0};
  s.outputs = {4};
  s.instructions.push_back({"addmm", {2, 0, 1}, {3}, rt::GemmArgs{false, true, 0, 1.0, 1.0}});
  s.instructions.push_back(
      {"elementwise", {3}, {4}, rt::ElementwiseArgs{{{17, 0, -1, -1}}, {1}, {}}});
  s.instructions.push_back({"full", {}, {5}, rt::FullArgs{0.0}});
  std::vector<float> w = {1, 0, 0, 1, 1, -1}, b = {0.5f, -10.0f, 0};
  s.constants.emplace_back(reinterpret_cast<const char*>(w.data()), w.size() * 4);
  s.constants.emplace_back(reinterpret_cast<const char*>(b.data()), b.size() * 4);
  s.arena_size = 192;
  return s;
}

// y = x^T for x [2, s0] (declared at s0 = 4): copy_strided with StridedArgs strides {1, s0}, the
// second symbolic (stride_exprs {-1, 0}).
rt::ProgramSpec symbolic_transpose() {
  rt::ProgramSpec s;
  s.symbols = {{0, 1, 1, 1000}};
  s.exprs = {{ExprOp::Symbol, 0, 0}};
  s.values.push_back(value({2, 4}, rt::ValueKind::Input, 0, {-1, 0}));
  s.values.push_back(value({4, 2}, rt::ValueKind::Arena, 0, {0, -1}));
  s.inputs = {0};
  s.outputs = {1};
  s.instructions.push_back({"copy_strided", {0}, {1}, rt::StridedArgs{0, {1, 4}, -1, {-1, 0}}});
  s.arena_size = 64;
  return s;
}

struct Program {
  explicit Program(const rt::ProgramSpec& spec) {
    std::string bytes = rt::serialize_program(spec);
    p = gbx_load_buffer(bytes.data(), bytes.size());
  }
  ~Program() { gbx_program_free(p); }
  gbx_program* p;
};

std::string load_error(const rt::ProgramSpec& spec) {
  Program prog(spec);
  return prog.p ? "" : gbx_last_error();
}

}  // namespace

TEST(ShapeExprs, EvaluateEveryOperation) {
  std::vector<rt::ExprDesc> e = {
      {ExprOp::Const, 3, 0},    {ExprOp::Symbol, 0, 0},   {ExprOp::Add, 1, 0}, {ExprOp::Mul, 2, 1},
      {ExprOp::FloorDiv, 3, 0}, {ExprOp::Mod, 1, 0},      {ExprOp::Max, 0, 1}, {ExprOp::Min, 0, 1},
      {ExprOp::Const, -7, 0},   {ExprOp::FloorDiv, 8, 0}, {ExprOp::Mod, 8, 0}};
  std::vector<rt::SymbolDesc> symbols = {{0, 0, 0, 100}};
  rt::verify_exprs(e, 1);
  std::vector<std::int64_t> at = rt::evaluate_exprs(e, symbols, {7});
  EXPECT_EQ(at, (std::vector<std::int64_t>{3, 7, 10, 70, 23, 1, 7, 3, -7, -3, 2}));
}

TEST(ShapeExprs, BadTablesAreRefused) {
  using E = std::vector<rt::ExprDesc>;
  EXPECT_THROW(rt::verify_exprs(E{{ExprOp::Symbol, 1, 0}}, 1), rt::LoadError);
  EXPECT_THROW(rt::verify_exprs(E{{ExprOp::Symbol, -1, 0}}, 1), rt::LoadError);
  EXPECT_THROW(rt::verify_exprs(E{{ExprOp::Add, 0, 0}}, 1), rt::LoadError);  // itself
  EXPECT_THROW(rt::verify_exprs(E{{ExprOp::Const, 1, 0}, {ExprOp::Mul, 0, 2}}, 0), rt::LoadError);
  EXPECT_THROW(rt::verify_exprs(E{{static_cast<ExprOp>(42), 0, 0}}, 0), rt::LoadError);
  EXPECT_THROW(rt::verify_exprs(
                   E{{ExprOp::Symbol, 0, 0}, {ExprOp::Const, 0, 0}, {ExprOp::FloorDiv, 0, 1}}, 1),
               rt::LoadError);
}

TEST(ShapeExprs, BadBindingsAreRunErrors) {
  std::vector<rt::SymbolDesc> symbols = {{0, 0, 0, 100}};
  std::vector<rt::ExprDesc> div = {
      {ExprOp::Const, 5, 0}, {ExprOp::Symbol, 0, 0}, {ExprOp::FloorDiv, 0, 1}};
  rt::verify_exprs(div, 1);
  EXPECT_THROW(rt::evaluate_exprs(div, symbols, {0}), rt::RunError);
  EXPECT_THROW(rt::evaluate_exprs(div, symbols, {101}), rt::RunError);  // out of range
  EXPECT_THROW(rt::evaluate_exprs(div, symbols, {}), rt::RunError);     // missing value
  std::vector<rt::SymbolDesc> wide = {{0, 0, 0, INT64_MAX}};
  std::vector<rt::ExprDesc> square = {{ExprOp::Symbol, 0, 0}, {ExprOp::Mul, 0, 0}};
  EXPECT_THROW(rt::evaluate_exprs(square, wide, {std::int64_t{1} << 40}), rt::RunError);
}

TEST(RuntimeSymbols, RunsEveryBinding) {
  Program prog(symbolic_linear_relu());
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  ASSERT_EQ(gbx_num_symbols(prog.p), 1u);
  for (std::int64_t rows : {3, 1 + 3, 9, 33}) {
    std::vector<float> x(static_cast<std::size_t>(rows) * 2);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 2.0f;
    std::int64_t shape[2] = {rows, 2};
    gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
    gbx_result* r = gbx_run(prog.p, &in, 1);
    ASSERT_NE(r, nullptr) << gbx_last_error();
    gbx_tensor out;
    ASSERT_EQ(gbx_result_output(r, 0, &out), 0);
    ASSERT_EQ(out.shape[0], rows);
    const float* y = static_cast<const float*>(out.data);
    for (std::int64_t i = 0; i < rows; ++i) {
      float x0 = x[i * 2], x1 = x[i * 2 + 1];
      float expect[3] = {x0 + 0.5f, x1 - 10.0f, x0 - x1};
      for (int j = 0; j < 3; ++j) EXPECT_FLOAT_EQ(y[i * 3 + j], std::max(expect[j], 0.0f));
    }
    gbx_result_free(r);
    std::int64_t bound[2] = {0, 0};
    ASSERT_EQ(gbx_bound_shape(prog.p, &rows, 1, 1, 0, bound), 0) << gbx_last_error();
    EXPECT_EQ(bound[0], rows);
    EXPECT_EQ(bound[1], 3);
  }
}

TEST(RuntimeSymbols, BadBindingsFailAtCall) {
  Program prog(symbolic_linear_relu());
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  std::vector<float> x(4);
  std::int64_t shape[2] = {2, 2};  // s0 = 2: the slot of size s0 - 3 is negative
  gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
  EXPECT_EQ(gbx_run(prog.p, &in, 1), nullptr);
  EXPECT_NE(std::string(gbx_last_error()).find("negative size"), std::string::npos)
      << gbx_last_error();
  std::int64_t too_large[1] = {5000};
  std::int64_t out[2];
  EXPECT_NE(gbx_bound_shape(prog.p, too_large, 1, 1, 0, out), 0);
  EXPECT_NE(std::string(gbx_last_error()).find("outside its range"), std::string::npos);
  const void* data[1] = {x.data()};
  void* outs[1] = {x.data()};
  EXPECT_NE(gbx_run_declared_into(prog.p, data, nullptr, 1, outs, 1), 0);  // needs a binding
}

TEST(RuntimeSymbols, BadArtifactsAreRefusedAtLoad) {
  rt::ProgramSpec s = symbolic_linear_relu();
  s.exprs[0].a = 3;  // a missing symbol
  EXPECT_NE(load_error(s).find("missing symbol"), std::string::npos);
  s = symbolic_linear_relu();
  s.values[3].dims = {7, -1};  // a missing expression
  EXPECT_NE(load_error(s).find("bad symbolic dims"), std::string::npos);
  s = symbolic_linear_relu();
  s.symbols[0].input = 1;  // a missing input
  EXPECT_NE(load_error(s).find("missing input"), std::string::npos);
  s = symbolic_linear_relu();
  s.symbols[0].dim = 1;  // a static dim
  EXPECT_NE(load_error(s).find("not the size"), std::string::npos);
  s = symbolic_linear_relu();
  s.values[4].shape = {5, 3};  // not its size at the example binding
  EXPECT_FALSE(load_error(s).empty());
  s = symbolic_linear_relu();
  s.values[1].dims = {0, -1};  // a constant of symbolic size
  EXPECT_FALSE(load_error(s).empty());
  s = symbolic_linear_relu();
  s.symbols[0].min = 5;  // the example binding (4) lies outside the range
  EXPECT_NE(load_error(s).find("example binding"), std::string::npos);
}

// StridedArgs' symbolic strides are evaluated at each binding; their expression ids are verified at
// load, and their values must be those of the example binding.
TEST(RuntimeSymbols, SymbolicStridesFollowTheBinding) {
  Program prog(symbolic_transpose());
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  for (std::int64_t cols : {1, 4, 7}) {
    std::vector<float> x(static_cast<std::size_t>(2 * cols));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    std::int64_t shape[2] = {2, cols};
    gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
    gbx_result* r = gbx_run(prog.p, &in, 1);
    ASSERT_NE(r, nullptr) << gbx_last_error();
    gbx_tensor out;
    ASSERT_EQ(gbx_result_output(r, 0, &out), 0);
    ASSERT_EQ(out.shape[0], cols);
    const float* y = static_cast<const float*>(out.data);
    for (std::int64_t i = 0; i < cols; ++i) {
      EXPECT_EQ(y[i * 2], x[i]) << cols;
      EXPECT_EQ(y[i * 2 + 1], x[cols + i]) << cols;
    }
    gbx_result_free(r);
  }
  rt::ProgramSpec s = symbolic_transpose();
  std::get<rt::StridedArgs>(s.instructions[0].args).stride_exprs = {0};  // not one per stride
  EXPECT_NE(load_error(s).find("bad StridedArgs.offset_expr or stride_exprs"), std::string::npos);
  s = symbolic_transpose();
  std::get<rt::StridedArgs>(s.instructions[0].args).offset_expr = 3;  // a missing expression
  EXPECT_NE(load_error(s).find("bad StridedArgs.offset_expr or stride_exprs"), std::string::npos);
  s = symbolic_transpose();
  std::get<rt::StridedArgs>(s.instructions[0].args).strides = {1, 3};  // s0 is 4 at the example
  EXPECT_NE(load_error(s).find("StridedArgs are not their values at the example binding"),
            std::string::npos);
}
