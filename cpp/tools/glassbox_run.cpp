// glassbox-run: run a .gbx artifact on .npy inputs with no Python.
//   glassbox-run model.gbx --inputs a.npy b.npy --outputs DIR [--repeat N] [--memory]
// Writes DIR/out0.npy, out1.npy, ... (the flattened outputs in order). With --repeat N the program
// runs N times and the mean latency is printed to stderr. With --memory it prints to stderr the
// bytes of the constants, the arena and the outputs, and the process's peak resident set.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "glassbox/runtime.h"
#include "runtime/npy.hpp"

namespace rt = glassbox::runtime;

namespace {

int usage() {
  std::fprintf(
      stderr,
      "usage: glassbox-run MODEL.gbx --inputs A.npy [B.npy ...] --outputs DIR [--repeat N] "
      "[--memory]\n");
  return 2;
}

// One line of figures for --memory: the program's constants and arena, the outputs' bytes, and
// the peak resident set so far (getrusage).
void print_memory(const gbx_program* program, const gbx_result* result) {
  size_t constants = 0, arena = 0, outputs = 0;
  gbx_memory_info(program, &constants, &arena);
  for (size_t i = 0; i < gbx_result_num_outputs(result); ++i) {
    gbx_tensor t;
    gbx_result_output(result, i, &t);
    size_t n = t.dtype == GBX_BOOL ? 1 : (t.dtype == GBX_INT64 ? 8 : 4);
    for (int32_t d = 0; d < t.ndim; ++d) n *= static_cast<size_t>(t.shape[d]);
    outputs += n;
  }
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  std::fprintf(stderr,
               "glassbox-run: constant_bytes %zu arena_bytes %zu output_bytes %zu "
               "peak_rss_bytes %lld\n",
               constants, arena, outputs, static_cast<long long>(usage.ru_maxrss) * 1024);
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, out_dir;
  std::vector<std::string> inputs;
  long repeat = 1;
  bool memory = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--inputs") {
      while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) inputs.push_back(argv[++i]);
    } else if (a == "--outputs" && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::strtol(argv[++i], nullptr, 10);
      if (repeat < 1) return usage();
    } else if (a == "--memory") {
      memory = true;
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (model.empty() && a.rfind("--", 0) != 0) {
      model = a;
    } else {
      return usage();
    }
  }
  if (model.empty() || out_dir.empty()) return usage();

  gbx_program* program = gbx_load_file(model.c_str());
  if (!program) {
    std::fprintf(stderr, "glassbox-run: cannot load %s: %s\n", model.c_str(), gbx_last_error());
    return 1;
  }
  std::vector<rt::NpyArray> arrays;
  std::vector<gbx_tensor> tensors;
  try {
    for (const std::string& path : inputs) arrays.push_back(rt::read_npy(path));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "glassbox-run: %s\n", e.what());
    gbx_program_free(program);
    return 1;
  }
  for (const rt::NpyArray& a : arrays) {
    tensors.push_back(gbx_tensor{a.data(), static_cast<int32_t>(a.dtype),
                                 static_cast<int32_t>(a.shape.size()), a.shape.data(), nullptr});
  }
  gbx_result* result = nullptr;
  auto start = std::chrono::steady_clock::now();
  for (long r = 0; r < repeat; ++r) {
    if (result) gbx_result_free(result);
    result = gbx_run(program, tensors.data(), tensors.size());
    if (!result) {
      std::fprintf(stderr, "glassbox-run: run failed: %s\n", gbx_last_error());
      gbx_program_free(program);
      return 1;
    }
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (repeat > 1)
    std::fprintf(stderr, "glassbox-run: %ld runs, mean %.4f ms\n", repeat,
                 ms / static_cast<double>(repeat));

  if (memory) print_memory(program, result);
  ::mkdir(out_dir.c_str(), 0755);
  int status = 0;
  for (size_t i = 0; i < gbx_result_num_outputs(result); ++i) {
    gbx_tensor t;
    gbx_result_output(result, i, &t);
    std::string path = out_dir + "/out" + std::to_string(i) + ".npy";
    try {
      rt::write_npy(path, static_cast<rt::DType>(t.dtype), rt::Shape(t.shape, t.shape + t.ndim),
                    t.data);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "glassbox-run: %s\n", e.what());
      status = 1;
      break;
    }
  }
  gbx_result_free(result);
  gbx_program_free(program);
  return status;
}
