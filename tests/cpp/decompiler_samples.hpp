// Code objects for the decompiler's tests, marshalled by each CPython version: the round-trip
// samples (decompiler_samples.inc, scripts/gen_decompiler_test_data.py) and the control-flow
// samples (cfg_samples.inc, scripts/gen_cfg_test_data.py).
#pragma once

#include <string>

namespace glassbox::test {

struct Sample {
  int minor;
  const char* name;
  const char* source;  // what the decompiler must print
  const char* hex;     // the module's code object, marshalled
};

inline const Sample kSamples[] = {
#include "decompiler_samples.inc"
};

struct CfgSample {
  int minor;
  const char* name;
  const char* hex;
};

inline const CfgSample kCfgSamples[] = {
#include "cfg_samples.inc"
};

inline std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

}  // namespace glassbox::test
