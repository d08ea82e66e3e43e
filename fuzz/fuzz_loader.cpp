// libFuzzer over the artifact loader: any bytes either load as a verified program or fail with a
// clear error; a program that loads is also run once on zero inputs of its declared shapes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "glassbox/runtime.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gbx_program* p = gbx_load_buffer(data, size);
  if (!p) return 0;
  std::size_t n = gbx_num_inputs(p);
  std::vector<std::vector<std::uint8_t>> buffers(n);
  std::vector<gbx_tensor> inputs(n);
  bool small = true;
  for (std::size_t i = 0; i < n; ++i) {
    gbx_input_info(p, i, &inputs[i]);
    std::size_t count = 1;
    for (int d = 0; d < inputs[i].ndim; ++d) count *= static_cast<std::size_t>(inputs[i].shape[d]);
    if (count > (1u << 16)) small = false;
    buffers[i].assign(small ? count * 8 + 8 : 8, 0);
    inputs[i].data = buffers[i].data();
  }
  if (small) gbx_result_free(gbx_run(p, inputs.data(), n));
  gbx_program_free(p);
  return 0;
}
