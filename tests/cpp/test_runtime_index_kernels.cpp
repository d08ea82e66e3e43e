// The kernels model graphs need around attention masks and positions: any/all, cumsum, gather,
// advanced indexing, scatter_strided, and int32 through the elementwise and conversion kernels.
// Each through a one-instruction program, typed inputs and outputs, against values worked out by
// hand (and, for bad indices, a RunError rather than a wild read).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/serializer.hpp"

namespace rt = glassbox::runtime;

namespace {

struct Typed {
  rt::DType dtype;
  rt::Shape shape;
  std::vector<std::uint8_t> bytes;
};

template <typename T>
Typed typed(rt::DType dtype, rt::Shape shape, std::vector<T> values) {
  Typed t{dtype, std::move(shape), std::vector<std::uint8_t>(values.size() * sizeof(T))};
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

Typed f32(rt::Shape s, std::vector<float> v) { return typed(rt::DType::Float32, s, v); }
Typed i64(rt::Shape s, std::vector<std::int64_t> v) { return typed(rt::DType::Int64, s, v); }
Typed i32(rt::Shape s, std::vector<std::int32_t> v) { return typed(rt::DType::Int32, s, v); }
Typed b8(rt::Shape s, std::vector<bool> v) {
  std::vector<std::uint8_t> bytes(v.begin(), v.end());
  return typed(rt::DType::Bool, s, bytes);
}

// One instruction over program inputs `ins`, one output of `out_dtype` and `out_shape`; the
// output's elements as T.
template <typename T>
std::vector<T> run(const std::string& op, const std::vector<Typed>& ins, rt::DType out_dtype,
                   rt::Shape out_shape, rt::KernelArgs args = {}) {
  rt::ProgramSpec s;
  std::vector<std::int32_t> slots;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    rt::ValueDesc d;
    d.dtype = ins[i].dtype;
    d.shape = ins[i].shape;
    d.kind = rt::ValueKind::Input;
    d.index = static_cast<std::int64_t>(i);
    s.values.push_back(d);
    s.inputs.push_back(static_cast<std::int32_t>(i));
    slots.push_back(static_cast<std::int32_t>(i));
  }
  rt::ValueDesc out;
  out.dtype = out_dtype;
  out.shape = out_shape;
  s.values.push_back(out);
  auto o = static_cast<std::int32_t>(ins.size());
  s.outputs = {o};
  s.instructions.push_back({op, slots, {o}, std::move(args)});
  s.arena_size = (rt::numel_of(out_shape) * rt::element_size(out_dtype) + 63) / 64 * 64 + 64;
  std::string bytes = rt::serialize_program(s);
  rt::Executor ex(rt::Program::load_buffer(bytes.data(), bytes.size()));
  std::vector<rt::InputTensor> inputs;
  for (const Typed& t : ins) inputs.push_back({t.bytes.data(), t.dtype, t.shape, {}});
  auto outs = ex.run(inputs);
  const T* p = static_cast<const T*>(outs[0].data());
  return std::vector<T>(p, p + rt::numel_of(outs[0].shape));
}

std::vector<std::uint8_t> flags(std::vector<int> v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(RuntimeIndexKernels, AnyAndAllOverADimOfAnyDtype) {
  Typed mask = b8({2, 3}, {false, true, false, false, false, false});
  EXPECT_EQ(run<std::uint8_t>("any", {mask}, rt::DType::Bool, {2, 1}, rt::ReduceArgs{{1}, true}),
            flags({1, 0}));
  Typed x = f32({2, 3}, {1, 2, 0, 3, 4, 5});
  EXPECT_EQ(run<std::uint8_t>("all", {x}, rt::DType::Bool, {2}, rt::ReduceArgs{{-1}}),
            flags({0, 1}));
  // Over every dim, and of nothing: any is false, all is true.
  EXPECT_EQ(run<std::uint8_t>("any", {mask}, rt::DType::Bool, {}, rt::ReduceArgs{{0, 1}}),
            flags({1}));
  Typed empty = i64({0, 2}, {});
  EXPECT_EQ(run<std::uint8_t>("any", {empty}, rt::DType::Bool, {2}, rt::ReduceArgs{{0}}),
            flags({0, 0}));
  EXPECT_EQ(run<std::uint8_t>("all", {empty}, rt::DType::Bool, {2}, rt::ReduceArgs{{0}}),
            flags({1, 1}));
  EXPECT_THROW(run<std::uint8_t>("any", {x}, rt::DType::Float32, {2}, rt::ReduceArgs{{1}}),
               rt::LoadError);
}

TEST(RuntimeIndexKernels, CumsumFloatAndIntegers) {
  Typed x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run<float>("cumsum", {x}, rt::DType::Float32, {2, 3}, rt::DimArgs{1}),
            (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(run<float>("cumsum", {x}, rt::DType::Float32, {2, 3}, rt::DimArgs{0}),
            (std::vector<float>{1, 2, 3, 5, 7, 9}));
  Typed mask = b8({4}, {true, false, true, true});
  EXPECT_EQ(run<std::int64_t>("cumsum", {mask}, rt::DType::Int64, {4}, rt::DimArgs{-1}),
            (std::vector<std::int64_t>{1, 1, 2, 3}));
  Typed big = i32({2}, {2147483647, 2147483647});  // int64 output: no overflow
  EXPECT_EQ(run<std::int64_t>("cumsum", {big}, rt::DType::Int64, {2}, rt::DimArgs{0}),
            (std::vector<std::int64_t>{2147483647, 4294967294}));
  EXPECT_THROW(run<std::int64_t>("cumsum", {x}, rt::DType::Int64, {2, 3}, rt::DimArgs{0}),
               rt::LoadError);
}

TEST(RuntimeIndexKernels, GatherAlongEachDim) {
  Typed x = i64({2, 3}, {10, 11, 12, 20, 21, 22});
  EXPECT_EQ(run<std::int64_t>("gather", {x, i64({2, 2}, {2, 0, 1, 1})}, rt::DType::Int64, {2, 2},
                              rt::DimArgs{1}),
            (std::vector<std::int64_t>{12, 10, 21, 21}));
  EXPECT_EQ(run<std::int64_t>("gather", {x, i64({1, 3}, {1, 0, 1})}, rt::DType::Int64, {1, 3},
                              rt::DimArgs{0}),
            (std::vector<std::int64_t>{20, 11, 22}));
  EXPECT_THROW(
      run<std::int64_t>("gather", {x, i64({1, 1}, {3})}, rt::DType::Int64, {1, 1}, rt::DimArgs{1}),
      rt::RunError);
  EXPECT_THROW(
      run<std::int64_t>("gather", {x, i64({1, 1}, {-1})}, rt::DType::Int64, {1, 1}, rt::DimArgs{1}),
      rt::RunError);
  EXPECT_THROW(run<std::int64_t>("gather", {x, i64({3, 1}, {0, 0, 0})}, rt::DType::Int64, {3, 1},
                                 rt::DimArgs{1}),
               rt::LoadError);
}

TEST(RuntimeIndexKernels, IndexAdjacentDimsKeepTheirPlace) {
  // x[:, i, j] with i [2, 1] and j [3] broadcast to [2, 3], in place of dims 1 and 2.
  std::vector<float> values(2 * 3 * 4);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(k);
  Typed x = f32({2, 3, 4}, values);
  auto y = run<float>("index", {x, i64({2, 1}, {0, -1}), i64({3}, {0, 1, 3})}, rt::DType::Float32,
                      {2, 2, 3}, rt::IndexArgs{{1, 2}});
  EXPECT_EQ(y, (std::vector<float>{0, 1, 3, 8, 9, 11, 12, 13, 15, 20, 21, 23}));
  // One index on the middle dim: the trailing dim is copied as a whole row.
  auto rows =
      run<float>("index", {x, i64({2}, {2, 0})}, rt::DType::Float32, {2, 2, 4}, rt::IndexArgs{{1}});
  EXPECT_EQ(rows, (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15}));
}

TEST(RuntimeIndexKernels, IndexSeparatedDimsComeFirst) {
  // x[i, :, j] with i, j [2]: the index dims first, then dim 1.
  std::vector<float> values(2 * 3 * 4);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(k);
  Typed x = f32({2, 3, 4}, values);
  auto y = run<float>("index", {x, i64({2}, {1, 0}), i64({2}, {3, 2})}, rt::DType::Float32, {2, 3},
                      rt::IndexArgs{{0, 2}});
  EXPECT_EQ(y, (std::vector<float>{15, 19, 23, 2, 6, 10}));
  // A bool mask by int64 coordinates, as the attention masks of model graphs do it.
  Typed mask = b8({1, 4}, {true, false, true, true});
  auto m = run<std::uint8_t>("index", {mask, i64({1, 1}, {0}), i64({1, 4}, {3, 2, 1, 0})},
                             rt::DType::Bool, {1, 4}, rt::IndexArgs{{0, 1}});
  EXPECT_EQ(m, flags({1, 1, 0, 1}));
}

TEST(RuntimeIndexKernels, IndexRejectsBadIndicesAndShapes) {
  Typed x = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_THROW(
      run<float>("index", {x, i64({1}, {2})}, rt::DType::Float32, {1, 3}, rt::IndexArgs{{0}}),
      rt::RunError);
  EXPECT_THROW(run<float>("index", {x, i64({2}, {0, 1}), i64({3}, {0, 1, 2})}, rt::DType::Float32,
                          {2}, rt::IndexArgs{{0, 1}}),
               rt::LoadError);  // [2] and [3] do not broadcast
  EXPECT_THROW(
      run<float>("index", {x, i64({1}, {0})}, rt::DType::Float32, {1, 3}, rt::IndexArgs{{2}}),
      rt::LoadError);  // no dim 2
  EXPECT_THROW(
      run<float>("index", {x, i32({1}, {0})}, rt::DType::Float32, {1, 3}, rt::IndexArgs{{0}}),
      rt::LoadError);  // int32 indices
}

TEST(RuntimeIndexKernels, ScatterStridedWritesTheView) {
  Typed self = i64({2, 3}, {0, 0, 0, 0, 0, 0});
  // self[:, 1:] = src (slice_scatter), then self[:, 0] = src (select_scatter)
  EXPECT_EQ(run<std::int64_t>("scatter_strided", {self, i64({2, 2}, {1, 2, 3, 4})},
                              rt::DType::Int64, {2, 3}, rt::StridedArgs{1, {3, 1}, -1, {}}),
            (std::vector<std::int64_t>{0, 1, 2, 0, 3, 4}));
  EXPECT_EQ(run<std::int64_t>("scatter_strided", {self, i64({2}, {7, 8})}, rt::DType::Int64, {2, 3},
                              rt::StridedArgs{0, {3}, -1, {}}),
            (std::vector<std::int64_t>{7, 0, 0, 8, 0, 0}));
  EXPECT_THROW(run<std::int64_t>("scatter_strided", {self, i64({2, 2}, {1, 2, 3, 4})},
                                 rt::DType::Int64, {2, 3}, rt::StridedArgs{2, {3, 1}, -1, {}}),
               rt::LoadError);  // reaches past the end
}

TEST(RuntimeIndexKernels, Int32ThroughElementwiseConvertAndArange) {
  // elementwise: one op ADD of the two inputs, output register 2.
  Typed a = i32({3}, {2147483647, -5, 7}), b = i32({3}, {0, 3, -7});
  EXPECT_EQ(run<std::int32_t>("elementwise", {a, b}, rt::DType::Int32, {3},
                              rt::ElementwiseArgs{{{1, 0, 1, -1}}, {2}, {}}),
            (std::vector<std::int32_t>{2147483647, -2, 0}));
  EXPECT_EQ(run<std::int64_t>("convert", {a}, rt::DType::Int64, {3}),
            (std::vector<std::int64_t>{2147483647, -5, 7}));
  EXPECT_EQ(run<std::int32_t>("convert", {f32({3}, {1.9f, -3e10f, 3e10f})}, rt::DType::Int32, {3}),
            (std::vector<std::int32_t>{1, -2147483647 - 1, 2147483647}));
  EXPECT_EQ(run<std::int32_t>("arange", {}, rt::DType::Int32, {3}, rt::ArangeArgs{5, 2}),
            (std::vector<std::int32_t>{5, 7, 9}));
  EXPECT_EQ(run<std::int32_t>("full", {}, rt::DType::Int32, {2}, rt::FullArgs{-4}),
            (std::vector<std::int32_t>{-4, -4}));
}
