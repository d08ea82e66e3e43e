// The runtime end to end in C++: build artifacts with the serializer, load them through the C ABI,
// run them, and check that broken artifacts and wrong inputs fail with clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "glassbox/runtime.h"
#include "runtime/serializer.hpp"

namespace rt = glassbox::runtime;

namespace {

rt::ValueDesc value(rt::DType dtype, rt::Shape shape, rt::ValueKind kind, std::int64_t index) {
  rt::ValueDesc v;
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.kind = kind;
  v.index = index;
  return v;
}

// y = relu(x @ W^T + b) with W [3, 2] a constant used transposed, x an input [4, 2].
rt::ProgramSpec linear_relu() {
  rt::ProgramSpec s;
  s.values.push_back(value(rt::DType::Float32, {4, 2}, rt::ValueKind::Input, 0));
  s.values.push_back(value(rt::DType::Float32, {3, 2}, rt::ValueKind::Constant, 0));
  s.values.push_back(value(rt::DType::Float32, {3}, rt::ValueKind::Constant, 1));
  s.values.push_back(value(rt::DType::Float32, {4, 3}, rt::ValueKind::Arena, 0));
  s.values.push_back(value(rt::DType::Float32, {4, 3}, rt::ValueKind::Arena, 64));
  s.inputs = {0};
  s.outputs = {4};
  s.instructions.push_back({"addmm", {2, 0, 1}, {3}, rt::GemmArgs{false, true, 0, 1.0, 1.0}});
  // elementwise: one op RELU(r0) -> register 1, one output
  // One op, RELU (17) of register 0 (the input), stored from register 1.
  s.instructions.push_back(
      {"elementwise", {3}, {4}, rt::ElementwiseArgs{{{17, 0, -1, -1}}, {1}, {}}});
  std::vector<float> w = {1, 0, 0, 1, 1, -1}, b = {0.5f, -10.0f, 0};
  s.constants.emplace_back(reinterpret_cast<const char*>(w.data()), w.size() * 4);
  s.constants.emplace_back(reinterpret_cast<const char*>(b.data()), b.size() * 4);
  s.arena_size = 128;
  return s;
}

struct Program {
  explicit Program(const std::string& bytes) : p(gbx_load_buffer(bytes.data(), bytes.size())) {}
  ~Program() { gbx_program_free(p); }
  gbx_program* p;
};

// The loader's error for a program, or "" when it loads.
std::string load_error(const rt::ProgramSpec& s) {
  std::string bytes = rt::serialize_program(s);
  gbx_program* p = gbx_load_buffer(bytes.data(), bytes.size());
  std::string error = p ? "" : gbx_last_error();
  gbx_program_free(p);
  return error;
}

}  // namespace

TEST(RuntimeProgram, RunsLinearRelu) {
  Program prog(rt::serialize_program(linear_relu()));
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  EXPECT_EQ(gbx_num_inputs(prog.p), 1u);
  std::vector<float> x = {1, 2, 3, 4, -1, -2, 0, 0};
  std::int64_t shape[2] = {4, 2};
  gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
  gbx_result* r = gbx_run(prog.p, &in, 1);
  ASSERT_NE(r, nullptr) << gbx_last_error();
  gbx_tensor out;
  ASSERT_EQ(gbx_result_output(r, 0, &out), 0);
  ASSERT_EQ(out.ndim, 2);
  const float* y = static_cast<const float*>(out.data);
  for (int i = 0; i < 4; ++i) {
    float x0 = x[i * 2], x1 = x[i * 2 + 1];
    float expect[3] = {x0 + 0.5f, x1 - 10.0f, x0 - x1};
    for (int j = 0; j < 3; ++j) EXPECT_FLOAT_EQ(y[i * 3 + j], std::max(expect[j], 0.0f));
  }
  gbx_result_free(r);
}

TEST(RuntimeProgram, StridedInputIsCopied) {
  Program prog(rt::serialize_program(linear_relu()));
  // A [4, 2] view with column stride 4 out of a [2, 4] buffer (a transpose).
  std::vector<float> buf = {1, 3, -1, 0, 2, 4, -2, 0};
  std::int64_t shape[2] = {4, 2}, strides[2] = {1, 4};
  gbx_tensor in{buf.data(), GBX_FLOAT32, 2, shape, strides};
  gbx_result* r = gbx_run(prog.p, &in, 1);
  ASSERT_NE(r, nullptr) << gbx_last_error();
  gbx_tensor out;
  gbx_result_output(r, 0, &out);
  EXPECT_FLOAT_EQ(static_cast<const float*>(out.data)[0], 1.5f);
  gbx_result_free(r);
}

TEST(RuntimeProgram, WrongInputsAreClearErrors) {
  Program prog(rt::serialize_program(linear_relu()));
  std::vector<float> x(8, 1.0f);
  std::int64_t good[2] = {4, 2}, bad[2] = {2, 4};
  gbx_tensor wrong_shape{x.data(), GBX_FLOAT32, 2, bad, nullptr};
  EXPECT_EQ(gbx_run(prog.p, &wrong_shape, 1), nullptr);
  EXPECT_NE(std::string(gbx_last_error()).find("expected shape [4, 2], got [2, 4]"),
            std::string::npos);
  gbx_tensor wrong_dtype{x.data(), GBX_INT64, 2, good, nullptr};
  EXPECT_EQ(gbx_run(prog.p, &wrong_dtype, 1), nullptr);
  EXPECT_NE(std::string(gbx_last_error()).find("dtype"), std::string::npos);
  EXPECT_EQ(gbx_run(prog.p, nullptr, 0), nullptr);
  EXPECT_NE(std::string(gbx_last_error()).find("expected 1 inputs, got 0"), std::string::npos);
}

TEST(RuntimeProgram, TruncationAndCorruptionNeverCrash) {
  std::string bytes = rt::serialize_program(linear_relu());
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    gbx_program* p = gbx_load_buffer(bytes.data(), n);
    EXPECT_EQ(p, nullptr) << "accepted a program truncated to " << n << " bytes";
    EXPECT_STRNE(gbx_last_error(), "");
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string broken = bytes;
    broken[i] = static_cast<char>(broken[i] ^ 0x5a);
    gbx_program* p = gbx_load_buffer(broken.data(), broken.size());
    if (p) {  // a flip in padding or constant data may leave a valid program: it must still run
      std::vector<float> x(8, 1.0f);
      std::int64_t shape[2] = {4, 2};
      gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
      gbx_result_free(gbx_run(p, &in, 1));
      gbx_program_free(p);
    }
  }
}

TEST(RuntimeProgram, MeaningIsVerified) {
  auto expect_error = [](rt::ProgramSpec s, const char* needle) {
    std::string bytes = rt::serialize_program(s);
    gbx_program* p = gbx_load_buffer(bytes.data(), bytes.size());
    EXPECT_EQ(p, nullptr);
    EXPECT_NE(std::string(gbx_last_error()).find(needle), std::string::npos) << gbx_last_error();
    gbx_program_free(p);
  };
  rt::ProgramSpec s = linear_relu();
  s.instructions[0].op = "no_such_kernel";
  expect_error(s, "unknown kernel");
  s = linear_relu();
  s.values[3].shape = {4, 4};
  expect_error(s, "output has shape [4, 4], expected [4, 3]");
  s = linear_relu();
  s.instructions[0].inputs = {2, 0, 9};
  expect_error(s, "input slot out of range");
  s = linear_relu();
  std::swap(s.instructions[0], s.instructions[1]);
  expect_error(s, "before it is written");
  s = linear_relu();
  s.instructions[0].outputs = {1};
  expect_error(s, "not an arena slot");
  s = linear_relu();
  s.values[4].index = 120;
  expect_error(s, "outside the arena");
  s = linear_relu();
  s.values[1].dtype = rt::DType::Int64;
  expect_error(s, "constant size does not match");
  s = linear_relu();
  std::get<rt::ElementwiseArgs>(s.instructions[1].args).ops[0].a = 5;
  expect_error(s, "undefined register");
}

TEST(RuntimeProgram, LoadFileErrors) {
  EXPECT_EQ(gbx_load_file("/nonexistent/model.gbx"), nullptr);
  EXPECT_NE(std::string(gbx_last_error()).find("cannot open"), std::string::npos);
  std::string junk = "definitely not a flatbuffer at all";
  EXPECT_EQ(gbx_load_buffer(junk.data(), junk.size()), nullptr);
  EXPECT_NE(std::string(gbx_last_error()).find("not a glassbox program"), std::string::npos);
}

// gbx_run_into, and gbx_run_declared_into (inputs by address alone), into caller memory.
TEST(RuntimeProgram, RunIntoWritesCallerMemory) {
  Program prog(rt::serialize_program(linear_relu()));
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  std::vector<float> x = {1, 2, 3, 4, -1, -2, 0, 0};
  std::int64_t shape[2] = {4, 2};
  gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
  gbx_result* r = gbx_run(prog.p, &in, 1);
  ASSERT_NE(r, nullptr) << gbx_last_error();
  gbx_tensor expected;
  ASSERT_EQ(gbx_result_output(r, 0, &expected), 0);
  std::vector<float> y(12, -1.0f);
  void* outs[1] = {y.data()};
  ASSERT_EQ(gbx_run_into(prog.p, &in, nullptr, 1, outs, 1), 0) << gbx_last_error();
  for (int i = 0; i < 12; ++i) EXPECT_EQ(y[i], static_cast<const float*>(expected.data)[i]);
  gbx_result_free(r);
  void* two[2] = {y.data(), y.data()};
  EXPECT_NE(gbx_run_into(prog.p, &in, nullptr, 1, two, 2), 0);
  EXPECT_NE(std::string(gbx_last_error()).find("expected 1 outputs"), std::string::npos);
  void* null_out[1] = {nullptr};
  EXPECT_NE(gbx_run_into(prog.p, &in, nullptr, 1, null_out, 1), 0);

  std::vector<float> z(12, -1.0f);
  const void* ins[1] = {x.data()};
  void* z_out[1] = {z.data()};
  ASSERT_EQ(gbx_run_declared_into(prog.p, ins, nullptr, 1, z_out, 1), 0) << gbx_last_error();
  EXPECT_EQ(z, y);
  EXPECT_NE(gbx_run_declared_into(prog.p, ins, nullptr, 2, z_out, 1), 0);
  EXPECT_NE(std::string(gbx_last_error()).find("expected 1 inputs"), std::string::npos);
  EXPECT_NE(gbx_run_declared_into(prog.p, ins, nullptr, 1, z_out, 0), 0);
  EXPECT_NE(std::string(gbx_last_error()).find("expected 1 outputs"), std::string::npos);
  const void* null_in[1] = {nullptr};
  EXPECT_NE(gbx_run_declared_into(prog.p, null_in, nullptr, 1, z_out, 1), 0);
  EXPECT_NE(std::string(gbx_last_error()).find("null data"), std::string::npos);
  EXPECT_NE(gbx_run_declared_into(prog.p, ins, nullptr, 1, null_out, 1), 0);
  EXPECT_NE(gbx_run_declared_into(prog.p, nullptr, nullptr, 1, z_out, 1), 0);
  EXPECT_NE(gbx_run_declared_into(nullptr, ins, nullptr, 1, z_out, 1), 0);
}

// y = x @ W^T with both an input: x [m, 4], W [5, 4]. With m >= 2 the product takes the packed path
// when W has a version.
rt::ProgramSpec matmul_of_inputs(std::int64_t m) {
  rt::ProgramSpec s;
  s.values.push_back(value(rt::DType::Float32, {m, 4}, rt::ValueKind::Input, 0));
  s.values.push_back(value(rt::DType::Float32, {5, 4}, rt::ValueKind::Input, 1));
  s.values.push_back(value(rt::DType::Float32, {m, 5}, rt::ValueKind::Arena, 0));
  s.inputs = {0, 1};
  s.outputs = {2};
  s.instructions.push_back({"mm", {0, 1}, {2}, rt::GemmArgs{false, true}});
  s.arena_size = static_cast<std::uint64_t>(m * 5 * 4 + 64);
  return s;
}

TEST(RuntimeProgram, PackedWeightsFollowTheirVersion) {
  for (std::int64_t m : {1, 3, 64, 65}) {
    Program prog(rt::serialize_program(matmul_of_inputs(m)));
    ASSERT_NE(prog.p, nullptr) << gbx_last_error();
    std::vector<float> x(static_cast<std::size_t>(m * 4)), w(20);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.5f;
    std::int64_t xs[2] = {m, 4}, ws[2] = {5, 4};
    gbx_tensor in[2] = {{x.data(), GBX_FLOAT32, 2, xs, nullptr},
                        {w.data(), GBX_FLOAT32, 2, ws, nullptr}};
    std::vector<float> y(static_cast<std::size_t>(m * 5));
    void* outs[1] = {y.data()};
    auto check = [&](float scale) {
      for (std::int64_t i = 0; i < m; ++i) {
        for (int j = 0; j < 5; ++j) {
          float e = 0;
          for (int k = 0; k < 4; ++k) e += x[i * 4 + k] * w[j * 4 + k];
          EXPECT_NEAR(y[i * 5 + j], scale * e, 1e-5f) << "m " << m << " row " << i;
        }
      }
    };
    std::uint64_t versions[2] = {0, 7};
    ASSERT_EQ(gbx_run_into(prog.p, in, versions, 2, outs, 1), 0) << gbx_last_error();
    check(1.0f);
    for (float& v : w) v *= 2.0f;
    versions[1] = 8;  // a new version: repacked
    ASSERT_EQ(gbx_run_into(prog.p, in, versions, 2, outs, 1), 0) << gbx_last_error();
    check(1.0f);
    ASSERT_EQ(gbx_run_into(prog.p, in, nullptr, 2, outs, 1), 0) << gbx_last_error();
    check(1.0f);  // no versions: nothing reused
    std::vector<float> old = w;
    for (float& v : w) v *= 0.5f;  // the same version vouches for the old values: reused
    ASSERT_EQ(gbx_run_into(prog.p, in, versions, 2, outs, 1), 0) << gbx_last_error();
    if (m >= 2 && m <= 64) {
      std::swap(w, old);
      check(1.0f);
      std::swap(w, old);
    }
    versions[1] = 9;
    ASSERT_EQ(gbx_run_into(prog.p, in, versions, 2, outs, 1), 0) << gbx_last_error();
    check(1.0f);
  }
}

// Two one-row products in a row, both large enough to be shared out: the executor runs them as one
// team's parts (one parallel region, a barrier between them); the second reads the first's output.
TEST(RuntimeProgram, ChainedOneRowProductsRunAsATeam) {
  const std::int64_t k = 256, h = 512, n = 520;
  rt::ProgramSpec s;
  s.values.push_back(value(rt::DType::Float32, {1, k}, rt::ValueKind::Input, 0));
  s.values.push_back(value(rt::DType::Float32, {h, k}, rt::ValueKind::Input, 1));
  s.values.push_back(value(rt::DType::Float32, {h}, rt::ValueKind::Input, 2));
  s.values.push_back(value(rt::DType::Float32, {h, n}, rt::ValueKind::Input, 3));
  s.values.push_back(value(rt::DType::Float32, {1, h}, rt::ValueKind::Arena, 0));
  s.values.push_back(value(rt::DType::Float32, {1, n}, rt::ValueKind::Arena, 4096));
  s.inputs = {0, 1, 2, 3};
  s.outputs = {5};
  s.instructions.push_back(
      {"addmm", {2, 0, 1}, {4}, rt::GemmArgs{false, true, 1, 1.0, 1.0}});  // relu(x
                                                                           // W1^T + b)
  s.instructions.push_back({"mm", {4, 3}, {5}, rt::GemmArgs{}});           // . @ W2
  s.arena_size = 4096 + n * 4;
  Program prog(rt::serialize_program(s));
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  std::vector<float> x(k), w1(h * k), b1(h), w2(h * n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 9) * 0.25f - 1.0f;
  for (std::size_t i = 0; i < w1.size(); ++i) w1[i] = static_cast<float>(i % 13) * 0.1f - 0.6f;
  for (std::size_t i = 0; i < b1.size(); ++i) b1[i] = static_cast<float>(i % 5) - 2.0f;
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<float>(i % 7) * 0.2f - 0.6f;
  std::vector<double> hidden(h);
  for (std::int64_t j = 0; j < h; ++j) {
    double t = b1[j];
    for (std::int64_t i = 0; i < k; ++i) t += static_cast<double>(x[i]) * w1[j * k + i];
    hidden[j] = t > 0 ? static_cast<float>(t) : 0.0;
  }
  const void* ins[4] = {x.data(), w1.data(), b1.data(), w2.data()};
  std::vector<float> y(n);
  void* outs[1] = {y.data()};
  for (int run = 0; run < 3; ++run) {
    std::fill(y.begin(), y.end(), -1.0f);
    ASSERT_EQ(gbx_run_declared_into(prog.p, ins, nullptr, 4, outs, 1), 0) << gbx_last_error();
    for (std::int64_t j = 0; j < n; ++j) {
      double e = 0;
      for (std::int64_t i = 0; i < h; ++i) e += hidden[i] * w2[i * n + j];
      ASSERT_NEAR(y[j], e, 1e-3 * (1 + std::abs(e))) << "run " << run << " output " << j;
    }
  }
}

// The exported function's signature: kept through the C ABI, verified at load.
TEST(RuntimeProgram, ArgumentsRoundTripAndAreVerified) {
  rt::ProgramSpec s = linear_relu();
  s.arguments = {{"x", 0, ""}, {"causal", -1, "True"}, {"scale", -1, "0.5"}};
  Program prog(rt::serialize_program(s));
  ASSERT_NE(prog.p, nullptr) << gbx_last_error();
  ASSERT_EQ(gbx_num_arguments(prog.p), 3u);
  const char *name = nullptr, *value = nullptr;
  std::int32_t input = 0;
  ASSERT_EQ(gbx_argument_info(prog.p, 0, &name, &input, &value), 0);
  EXPECT_EQ(std::string(name), "x");
  EXPECT_EQ(input, 0);
  EXPECT_EQ(value, nullptr);
  ASSERT_EQ(gbx_argument_info(prog.p, 1, &name, &input, &value), 0);
  EXPECT_EQ(std::string(name), "causal");
  EXPECT_EQ(input, -1);
  EXPECT_EQ(std::string(value), "True");
  EXPECT_NE(gbx_argument_info(prog.p, 3, &name, &input, &value), 0);
  EXPECT_EQ(gbx_num_arguments(Program(rt::serialize_program(linear_relu())).p), 0u);

  const std::vector<std::pair<std::vector<rt::ArgumentDesc>, std::string>> bad = {
      {{{"x", 1, ""}}, "names no program input"},
      {{{"x", 0, ""}, {"y", 0, ""}}, "named twice"},
      {{{"x", 0, ""}, {"x", -1, "1"}}, "name repeated"},
  };
  for (const auto& [args, message] : bad) {
    s.arguments = args;
    Program broken(rt::serialize_program(s));
    EXPECT_EQ(broken.p, nullptr);
    EXPECT_NE(std::string(gbx_last_error()).find(message), std::string::npos) << gbx_last_error();
  }
}

// A mapped artifact hands its constants' pages back once a kernel packed them (the packed GEMM
// path: 4 rows), and runs on unchanged: released pages are read again from the file.
TEST(RuntimeProgram, MappedConstantsReleasedAfterPacking) {
  std::string bytes = rt::serialize_program(linear_relu());
  std::string path = ::testing::TempDir() + "gbx_release_test.gbx";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  gbx_program* mapped = gbx_load_file(path.c_str());
  ASSERT_NE(mapped, nullptr) << gbx_last_error();
  Program copied(bytes);
  std::size_t constant_bytes = 0, arena_bytes = 0;
  ASSERT_EQ(gbx_memory_info(mapped, &constant_bytes, &arena_bytes), 0);
  EXPECT_EQ(constant_bytes, (2 * 3 + 3) * 4u);  // linear_relu's weight and bias
  EXPECT_NE(gbx_memory_info(mapped, nullptr, &arena_bytes), 0);
  std::vector<float> x = {1, 2, 3, 4, -1, -2, 0, 0};
  std::int64_t shape[2] = {4, 2};
  gbx_tensor in{x.data(), GBX_FLOAT32, 2, shape, nullptr};
  for (int run = 0; run < 3; ++run) {
    gbx_result* a = gbx_run(mapped, &in, 1);
    gbx_result* b = gbx_run(copied.p, &in, 1);
    ASSERT_NE(a, nullptr) << gbx_last_error();
    ASSERT_NE(b, nullptr) << gbx_last_error();
    gbx_tensor ta, tb;
    gbx_result_output(a, 0, &ta);
    gbx_result_output(b, 0, &tb);
    const auto* pa = static_cast<const float*>(ta.data);
    const auto* pb = static_cast<const float*>(tb.data);
    EXPECT_TRUE(std::equal(pa, pa + 12, pb));
    gbx_result_free(a);
    gbx_result_free(b);
  }
  gbx_program_free(mapped);
  std::remove(path.c_str());
}

// conv2d's arguments are a typed table (Conv2dArgs), verified at load: a conv2d without it, with
// bad fields, or another kernel carrying it is refused.
TEST(RuntimeProgram, Conv2dArgsAreTypedAndVerified) {
  auto conv = [](rt::Conv2dArgs args) {
    rt::ProgramSpec s;
    s.values.push_back(value(rt::DType::Float32, {1, 2, 5, 5}, rt::ValueKind::Input, 0));
    s.values.push_back(value(rt::DType::Float32, {3, 2, 3, 3}, rt::ValueKind::Input, 1));
    s.values.push_back(value(rt::DType::Float32, {1, 3, 3, 3}, rt::ValueKind::Arena, 0));
    s.inputs = {0, 1};
    s.outputs = {2};
    s.instructions.push_back({"conv2d", {0, 1}, {2}, args});
    s.arena_size = 128;
    return s;
  };
  EXPECT_EQ(load_error(conv(rt::Conv2dArgs{})), "");
  rt::Conv2dArgs padded;
  padded.pad_h = padded.pad_w = 1;  // 5x5, 3x3 kernel, padding 1: 5x5 out, not 3x3
  EXPECT_NE(load_error(conv(padded)).find("output has shape"), std::string::npos);
  rt::ProgramSpec s = conv(rt::Conv2dArgs{});
  s.instructions[0].args = std::monostate{};
  EXPECT_NE(load_error(s).find("expects its arguments as Conv2dArgs"), std::string::npos);
  rt::Conv2dArgs bad;
  bad.stride_w = 0;
  EXPECT_NE(load_error(conv(bad)).find("bad stride"), std::string::npos);
  bad = rt::Conv2dArgs{};
  bad.epilogue = 9;
  EXPECT_NE(load_error(conv(bad)).find("bad epilogue"), std::string::npos);
  bad = rt::Conv2dArgs{};
  bad.batch_norm_weight = true;
  EXPECT_NE(load_error(conv(bad)).find("without a batch norm"), std::string::npos);
  bad = rt::Conv2dArgs{};
  bad.batch_norm_eps = 1e-5;
  EXPECT_NE(load_error(conv(bad)).find("Conv2dArgs.batch_norm_eps"), std::string::npos);
  s = linear_relu();
  s.instructions[0].args = rt::Conv2dArgs{};
  EXPECT_NE(load_error(s).find("carries Conv2dArgs, which 'addmm' does not take"),
            std::string::npos);
}

// mm, addmm and bmm take a GemmArgs table: without it, with an unknown epilogue, or with
// alpha/beta on mm, the program is refused at load.
TEST(RuntimeProgram, GemmArgsAreTypedAndVerified) {
  rt::ProgramSpec s = linear_relu();
  EXPECT_EQ(load_error(s), "");
  s.instructions[0].args = std::monostate{};
  EXPECT_NE(load_error(s).find("expects its arguments as GemmArgs"), std::string::npos);
  s = linear_relu();
  std::get<rt::GemmArgs>(s.instructions[0].args).epilogue = 7;
  EXPECT_NE(load_error(s).find("unknown epilogue 7"), std::string::npos);
  s = matmul_of_inputs(3);
  EXPECT_EQ(load_error(s), "");
  std::get<rt::GemmArgs>(s.instructions[0].args).alpha = 2.0;
  EXPECT_NE(load_error(s).find("takes no alpha or beta"), std::string::npos);
  s = matmul_of_inputs(3);
  std::get<rt::GemmArgs>(s.instructions[0].args).trans_b = false;  // [3,4] @ [5,4]
  EXPECT_NE(load_error(s).find("inner dimensions differ"), std::string::npos);
}
