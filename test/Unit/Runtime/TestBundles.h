//===- TestBundles.h - Bundles shared by the runtime unit tests -*- C++ -*-===//

#ifndef LLMPTX_TEST_UNIT_RUNTIME_TESTBUNDLES_H
#define LLMPTX_TEST_UNIT_RUNTIME_TESTBUNDLES_H

#include "llmptx/Runtime/Bundle.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace llmptx::runtime::testing {

/// The text of test/Inputs/runtime/`relative` (empty when missing), under
/// $LLMPTX_SRC_ROOT when set (lit sets it), else the configured source.
inline std::string readRuntimeInput(const std::string &relative) {
  const char *root = std::getenv("LLMPTX_SRC_ROOT");
  std::ifstream file(std::string(root ? root : LLMPTX_SOURCE_DIR) +
                     "/test/Inputs/runtime/" + relative);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The vector add of test/Inputs/runtime: c = a + b over memref<?xf32>,
/// five parameters per memref.
inline VerificationBundle vaddBundle() {
  VerificationBundle bundle;
  bundle.kernel = "vadd";
  bundle.chip = "sm_90";
  bundle.sizes = {"N"};
  bundle.shapes = {{{"N", 1}}, {{"N", 97}}, {{"N", 1000}}};
  bundle.launch.grid = {"ceildiv(N, 256)", "1", "1"};
  bundle.launch.block = {"256", "1", "1"};
  for (const char *name : {"a", "b", "c"}) {
    BufferSpec buffer;
    buffer.name = name;
    buffer.element = ElementType::F32;
    buffer.shape = {"N"};
    buffer.role =
        std::string(name) == "c" ? BufferRole::Output : BufferRole::Input;
    if (buffer.role == BufferRole::Input) {
      InitRecipe init;
      init.kind = InitRecipe::Kind::Uniform;
      init.lo = -4;
      init.hi = 4;
      init.special = true;
      buffer.init = init;
    }
    bundle.buffers.push_back(buffer);
    for (ParamRole role :
         {ParamRole::AllocatedPtr, ParamRole::AlignedPtr, ParamRole::Offset,
          ParamRole::Size, ParamRole::Stride}) {
      ParamSpec param;
      param.role = role;
      param.buffer = name;
      bundle.params.push_back(param);
    }
  }
  bundle.alignment = 4;
  bundle.reference = {"nvptx", "vadd", ".version 8.0\n.target sm_90\n", {}};
  bundle.candidates.push_back({"copy", "vadd", ".version 8.0\n", {}});
  return bundle;
}

/// A 2-D strided, dynamic-offset scale: c[i, j] = a[i, j] * s with row
/// stride K, sizes M x N.
inline VerificationBundle stridedBundle() {
  VerificationBundle bundle;
  bundle.kernel = "scale2d";
  bundle.sizes = {"M", "N", "K"};
  bundle.shapes = {{{"M", 3}, {"N", 5}, {"K", 7}}};
  bundle.launch.grid = {"ceildiv(N, 32)", "ceildiv(M, 8)", "1"};
  bundle.launch.block = {"32", "8", "1"};
  for (const char *name : {"a", "c"}) {
    BufferSpec buffer;
    buffer.name = name;
    buffer.element = ElementType::F32;
    buffer.shape = {"M", "N"};
    buffer.strides = {"K", "1"};
    buffer.offset = "any";
    buffer.role =
        std::string(name) == "c" ? BufferRole::Output : BufferRole::Input;
    bundle.buffers.push_back(buffer);
    for (ParamRole role :
         {ParamRole::AllocatedPtr, ParamRole::AlignedPtr, ParamRole::Offset}) {
      ParamSpec param;
      param.role = role;
      param.buffer = name;
      bundle.params.push_back(param);
    }
    for (ParamRole role : {ParamRole::Size, ParamRole::Stride})
      for (unsigned dim = 0; dim < 2; ++dim) {
        ParamSpec param;
        param.role = role;
        param.buffer = name;
        param.dim = dim;
        bundle.params.push_back(param);
      }
  }
  ParamSpec scale;
  scale.role = ParamRole::Scalar;
  scale.type = "f32";
  scale.value = "2.5";
  bundle.params.push_back(scale);
  bundle.reference = {"nvptx", "scale2d", ".version 8.0\n", {}};
  return bundle;
}

} // namespace llmptx::runtime::testing

#endif // LLMPTX_TEST_UNIT_RUNTIME_TESTBUNDLES_H
