// The exceptions of the runtime bindings, raised in Python as glassbox._core.ArtifactError and
// glassbox._core.RunError (both ValueError).
#pragma once

#include <stdexcept>

namespace glassbox::bindings {

struct ArtifactError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace glassbox::bindings
