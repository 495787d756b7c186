//===- Bundle.cpp - Verification bundles: JSON, validation ----------------===//

#include "llmptx/Runtime/Bundle.h"

#include "JsonSupport.h"
#include "llmptx/Runtime/InputRecipe.h"
#include "llmptx/Runtime/Plan.h"
#include "llmptx/Support/FileIO.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

using namespace llmptx::runtime;
using namespace llmptx::runtime::json_support;

const char *llmptx::runtime::bufferRoleName(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::InOut:
    return "inout";
  case BufferRole::Scratch:
    return "scratch";
  }
  return "?";
}

const char *llmptx::runtime::initRecipeKindName(InitRecipe::Kind kind) {
  switch (kind) {
  case InitRecipe::Kind::Uniform:
    return "uniform";
  case InitRecipe::Kind::RandInt:
    return "randint";
  case InitRecipe::Kind::Iota:
    return "iota";
  case InitRecipe::Kind::Zeros:
    return "zeros";
  case InitRecipe::Kind::Constant:
    return "constant";
  case InitRecipe::Kind::Copy:
    return "copy";
  }
  return "?";
}

const char *llmptx::runtime::paramRoleName(ParamRole role) {
  switch (role) {
  case ParamRole::AllocatedPtr:
    return "allocated_ptr";
  case ParamRole::AlignedPtr:
    return "aligned_ptr";
  case ParamRole::Offset:
    return "offset";
  case ParamRole::Size:
    return "size";
  case ParamRole::Stride:
    return "stride";
  case ParamRole::BarePtr:
    return "bare_ptr";
  case ParamRole::Scalar:
    return "scalar";
  }
  return "?";
}

size_t VerificationBundle::shapeCount() const {
  return shapes.size() + (timing.production ? 1 : 0);
}

const SizeBindings &VerificationBundle::shapeAt(size_t index) const {
  return index < shapes.size() ? shapes[index] : *timing.production;
}

int VerificationBundle::findBuffer(std::string_view name) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name)
      return static_cast<int>(i);
  return -1;
}

uint64_t VerificationBundle::bufferAlignment(size_t index) const {
  const BufferSpec &buffer = buffers[index];
  uint64_t stated = buffer.alignment ? buffer.alignment : alignment;
  return std::max<uint64_t>(stated, elementByteSize(buffer.element));
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
class BundleReader {
public:
  std::optional<VerificationBundle> read(const Json &root) {
    VerificationBundle bundle;
    const std::string path = "$";
    if (!reader.expectObject(root, path,
                             {"format", "version", "kernel", "chip", "seed",
                              "sizes", "shapes", "launch", "buffers",
                              "alignment", "params", "reference", "candidates",
                              "timing", "comment", "metadata"}))
      return std::nullopt;
    std::string format = reader.string(root, path, "format", true);
    if (!reader.failed() && format != kBundleFormat)
      reader.fail("$.format", "expected \"" + std::string(kBundleFormat) +
                                  "\", got \"" + format + "\"");
    int64_t version = reader.integer(root, path, "version", true);
    if (!reader.failed() && version != kBundleVersion)
      reader.fail("$.version", "unsupported version " +
                                   std::to_string(version) +
                                   " (this runner reads version " +
                                   std::to_string(kBundleVersion) + ")");
    bundle.kernel = reader.string(root, path, "kernel", true);
    bundle.chip = reader.string(root, path, "chip", false);
    bundle.seed =
        reader.unsignedInteger(root, path, "seed", false, kDefaultSeed);
    bundle.alignment = reader.unsignedInteger(root, path, "alignment", false);
    // 0 would read as "not stated"; written out, it is a mistake.
    if (root.contains("alignment") && bundle.alignment == 0)
      reader.fail("$.alignment", "alignment must be a power of two up to " +
                                     std::to_string(kMaxAlignment));

    if (const Json *sizes = reader.member(root, path, "sizes", true);
        sizes && reader.expectArray(*sizes, "$.sizes"))
      for (size_t i = 0; i < sizes->size(); ++i) {
        const Json &size = (*sizes)[i];
        if (!size.is_string()) {
          reader.fail(elementPath("$.sizes", i),
                      "expected a size name, got " + typeName(size));
          break;
        }
        bundle.sizes.push_back(size.get<std::string>());
      }

    if (const Json *shapes = reader.member(root, path, "shapes", true);
        shapes && reader.expectArray(*shapes, "$.shapes"))
      for (size_t i = 0; i < shapes->size() && !reader.failed(); ++i)
        readShape((*shapes)[i], elementPath("$.shapes", i), bundle);

    if (const Json *launch = reader.member(root, path, "launch", true))
      bundle.launch = readLaunch(*launch, "$.launch");

    if (const Json *buffers = reader.member(root, path, "buffers", true);
        buffers && reader.expectArray(*buffers, "$.buffers"))
      for (size_t i = 0; i < buffers->size() && !reader.failed(); ++i)
        bundle.buffers.push_back(
            readBuffer((*buffers)[i], elementPath("$.buffers", i)));

    if (const Json *params = reader.member(root, path, "params", true);
        params && reader.expectArray(*params, "$.params"))
      for (size_t i = 0; i < params->size() && !reader.failed(); ++i)
        bundle.params.push_back(
            readParam((*params)[i], elementPath("$.params", i)));

    if (const Json *reference = reader.member(root, path, "reference", true))
      bundle.reference = readKernel(*reference, "$.reference", true);

    if (const Json *candidates = reader.member(root, path, "candidates", true);
        candidates && reader.expectArray(*candidates, "$.candidates"))
      for (size_t i = 0; i < candidates->size() && !reader.failed(); ++i)
        bundle.candidates.push_back(readKernel(
            (*candidates)[i], elementPath("$.candidates", i), false));

    if (const Json *timing = reader.member(root, path, "timing", false);
        timing && reader.expectObject(*timing, "$.timing",
                                      {"shape", "min_runs", "max_ms", "flops",
                                       "production", "confirm_above"})) {
      bundle.timing.shape =
          reader.integer(*timing, "$.timing", "shape", false, -1);
      bundle.timing.minRuns = static_cast<unsigned>(
          reader.unsignedInteger(*timing, "$.timing", "min_runs", false, 30));
      bundle.timing.maxMs =
          reader.number(*timing, "$.timing", "max_ms", false, 2000);
      if (const Json *flops =
              reader.member(*timing, "$.timing", "flops", false);
          flops && !flops->is_null())
        bundle.timing.flops = reader.expression(*flops, "$.timing.flops");
      if (const Json *production =
              reader.member(*timing, "$.timing", "production", false))
        bundle.timing.production =
            readBindings(*production, "$.timing.production");
      bundle.timing.confirmAbove = reader.number(
          *timing, "$.timing", "confirm_above", false, kDefaultConfirmAbove);
    }
    if (reader.failed())
      return std::nullopt;
    return bundle;
  }

  JsonReader reader;

private:
  void readShape(const Json &shape, const std::string &path,
                 VerificationBundle &bundle) {
    bundle.shapes.push_back(readBindings(shape, path));
  }

  SizeBindings readBindings(const Json &shape, const std::string &path) {
    SizeBindings bindings;
    if (!shape.is_object()) {
      reader.fail(path,
                  "expected an object of size values, got " + typeName(shape));
      return bindings;
    }
    for (auto it = shape.begin(); it != shape.end(); ++it) {
      std::string memberPath = path + "." + it.key();
      if (!it->is_number_integer()) {
        reader.fail(memberPath,
                    "expected an integer size, got " + typeName(*it));
        return bindings;
      }
      bindings[it.key()] = it->get<int64_t>();
    }
    return bindings;
  }

  std::array<std::string, 3> readTriple(const Json &value,
                                        const std::string &path) {
    std::array<std::string, 3> result{"1", "1", "1"};
    if (!reader.expectArray(value, path))
      return result;
    if (value.size() < 1 || value.size() > 3) {
      reader.fail(path, "expected 1 to 3 dimensions, got " +
                            std::to_string(value.size()));
      return result;
    }
    for (size_t i = 0; i < value.size(); ++i)
      result[i] = reader.expression(value[i], elementPath(path, i));
    return result;
  }

  LaunchSpec readLaunch(const Json &value, const std::string &path) {
    LaunchSpec launch;
    if (!reader.expectObject(value, path,
                             {"grid", "block", "dynamic_shared_bytes"}))
      return launch;
    if (const Json *grid = reader.member(value, path, "grid", true))
      launch.grid = readTriple(*grid, path + ".grid");
    if (const Json *block = reader.member(value, path, "block", true))
      launch.block = readTriple(*block, path + ".block");
    if (const Json *shared =
            reader.member(value, path, "dynamic_shared_bytes", false))
      launch.dynamicSharedBytes =
          reader.expression(*shared, path + ".dynamic_shared_bytes");
    return launch;
  }

  std::vector<std::string> readExpressions(const Json &value,
                                           const std::string &path) {
    std::vector<std::string> result;
    if (!reader.expectArray(value, path))
      return result;
    for (size_t i = 0; i < value.size(); ++i)
      result.push_back(reader.expression(value[i], elementPath(path, i)));
    return result;
  }

  InitRecipe readInit(const Json &value, const std::string &path) {
    InitRecipe init;
    if (!reader.expectObject(
            value, path,
            {"kind", "lo", "hi", "special", "start", "step", "value", "from"}))
      return init;
    std::string kind = reader.string(value, path, "kind", true);
    if (reader.failed())
      return init;
    auto allowOnly = [&](std::initializer_list<const char *> keys) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it.key() == "kind")
          continue;
        bool fine = false;
        for (const char *key : keys)
          fine |= it.key() == key;
        if (!fine) {
          reader.fail(path + "." + it.key(),
                      "not a field of the '" + kind + "' recipe");
          return;
        }
      }
    };
    if (kind == "uniform") {
      allowOnly({"lo", "hi", "special"});
      init.kind = InitRecipe::Kind::Uniform;
      init.lo = reader.number(value, path, "lo", true);
      init.hi = reader.number(value, path, "hi", true);
      init.special = reader.boolean(value, path, "special", false);
    } else if (kind == "randint") {
      allowOnly({"lo", "hi"});
      init.kind = InitRecipe::Kind::RandInt;
      init.lo = static_cast<double>(reader.integer(value, path, "lo", true));
      init.hi = static_cast<double>(reader.integer(value, path, "hi", true));
    } else if (kind == "iota") {
      allowOnly({"start", "step"});
      init.kind = InitRecipe::Kind::Iota;
      init.start = reader.number(value, path, "start", false, 0);
      init.step = reader.number(value, path, "step", false, 1);
    } else if (kind == "zeros") {
      allowOnly({});
      init.kind = InitRecipe::Kind::Zeros;
    } else if (kind == "constant") {
      allowOnly({"value"});
      init.kind = InitRecipe::Kind::Constant;
      const Json *constant = reader.member(value, path, "value", true);
      if (constant) {
        if (constant->is_string())
          init.value = constant->get<std::string>();
        else if (constant->is_number_integer())
          init.value = std::to_string(constant->get<int64_t>());
        else if (constant->is_number())
          init.value = constant->dump();
        else
          reader.fail(path + ".value", "expected a number or a string, got " +
                                           typeName(*constant));
      }
    } else if (kind == "copy") {
      allowOnly({"from"});
      init.kind = InitRecipe::Kind::Copy;
      init.from = reader.string(value, path, "from", true);
    } else {
      reader.fail(path + ".kind",
                  "unknown recipe '" + kind +
                      "' (uniform, randint, iota, zeros, constant, copy)");
    }
    return init;
  }

  Tolerance readTolerance(const Json &value, const std::string &path) {
    Tolerance tolerance;
    if (!reader.expectObject(value, path, {"ulp", "rel", "abs", "signed_zero"}))
      return tolerance;
    tolerance.ulp = reader.unsignedInteger(value, path, "ulp", false);
    tolerance.rel = reader.number(value, path, "rel", false);
    tolerance.abs = reader.number(value, path, "abs", false);
    tolerance.signedZero = reader.boolean(value, path, "signed_zero", false);
    if (!reader.failed() && (tolerance.rel < 0 || tolerance.abs < 0))
      reader.fail(path, "tolerances must not be negative");
    if (!reader.failed() && tolerance.ulp > kMaxUlpTolerance)
      reader.fail(path + ".ulp",
                  "at most " + std::to_string(kMaxUlpTolerance) +
                      " (a wider ulp tolerance accepts any finite output)");
    return tolerance;
  }

  BufferSpec readBuffer(const Json &value, const std::string &path) {
    BufferSpec buffer;
    if (!reader.expectObject(value, path,
                             {"name", "element", "shape", "strides", "offset",
                              "role", "init", "tolerance", "alignment"}))
      return buffer;
    buffer.name = reader.string(value, path, "name", true);
    std::string element = reader.string(value, path, "element", true);
    if (!reader.failed()) {
      if (auto type = parseElementType(element))
        buffer.element = *type;
      else
        reader.fail(path + ".element",
                    "unknown element type '" + element +
                        "' (f16 bf16 f32 f64 i1 i8 i16 i32 i64)");
    }
    if (const Json *shape = reader.member(value, path, "shape", true))
      buffer.shape = readExpressions(*shape, path + ".shape");
    if (const Json *strides = reader.member(value, path, "strides", false))
      buffer.strides = readExpressions(*strides, path + ".strides");
    if (const Json *offset = reader.member(value, path, "offset", false))
      buffer.offset = reader.expression(*offset, path + ".offset");
    std::string role = reader.string(value, path, "role", true);
    if (!reader.failed()) {
      if (role == "input")
        buffer.role = BufferRole::Input;
      else if (role == "output")
        buffer.role = BufferRole::Output;
      else if (role == "inout")
        buffer.role = BufferRole::InOut;
      else if (role == "scratch")
        buffer.role = BufferRole::Scratch;
      else
        reader.fail(path + ".role", "unknown role '" + role +
                                        "' (input, output, inout, scratch)");
    }
    if (const Json *init = reader.member(value, path, "init", false))
      buffer.init = readInit(*init, path + ".init");
    if (const Json *tolerance = reader.member(value, path, "tolerance", false))
      buffer.tolerance = readTolerance(*tolerance, path + ".tolerance");
    buffer.alignment = reader.unsignedInteger(value, path, "alignment", false);
    if (value.contains("alignment") && buffer.alignment == 0)
      reader.fail(path + ".alignment",
                  "alignment must be a power of two up to " +
                      std::to_string(kMaxAlignment));
    return buffer;
  }

  ParamSpec readParam(const Json &value, const std::string &path) {
    ParamSpec param;
    if (!reader.expectObject(value, path,
                             {"role", "buffer", "dim", "type", "value"}))
      return param;
    std::string role = reader.string(value, path, "role", true);
    if (reader.failed())
      return param;
    static const std::pair<const char *, ParamRole> roles[] = {
        {"allocated_ptr", ParamRole::AllocatedPtr},
        {"aligned_ptr", ParamRole::AlignedPtr},
        {"offset", ParamRole::Offset},
        {"size", ParamRole::Size},
        {"stride", ParamRole::Stride},
        {"bare_ptr", ParamRole::BarePtr},
        {"scalar", ParamRole::Scalar}};
    bool known = false;
    for (const auto &[name, kind] : roles)
      if (role == name) {
        param.role = kind;
        known = true;
      }
    if (!known) {
      reader.fail(path + ".role",
                  "unknown parameter role '" + role +
                      "' (allocated_ptr, aligned_ptr, offset, size, stride, "
                      "bare_ptr, scalar)");
      return param;
    }
    bool isScalar = param.role == ParamRole::Scalar;
    bool hasDim =
        param.role == ParamRole::Size || param.role == ParamRole::Stride;
    if (isScalar) {
      if (value.contains("buffer") || value.contains("dim"))
        reader.fail(path, "a scalar parameter has no buffer or dim");
      param.type = reader.string(value, path, "type", true);
      if (const Json *scalar = reader.member(value, path, "value", true)) {
        if (scalar->is_number_float())
          param.value = scalar->dump();
        else
          param.value = reader.expression(*scalar, path + ".value");
      }
      return param;
    }
    if (value.contains("value"))
      reader.fail(path + ".value", "only scalar parameters have a value");
    param.buffer = reader.string(value, path, "buffer", true);
    if (hasDim)
      param.dim = static_cast<unsigned>(
          reader.unsignedInteger(value, path, "dim", true));
    else if (value.contains("dim"))
      reader.fail(path + ".dim", "only size and stride parameters have a dim");
    param.type = reader.string(value, path, "type", false);
    return param;
  }

  KernelObject readKernel(const Json &value, const std::string &path,
                          bool isReference) {
    KernelObject kernel;
    if (!reader.expectObject(
            value, path,
            {"name", "entry", "ptx", "launch", "tensor_maps", "comment"}))
      return kernel;
    kernel.name = reader.string(value, path, "name", !isReference,
                                isReference ? "nvptx" : "");
    kernel.entry = reader.string(value, path, "entry", true);
    kernel.ptx = reader.string(value, path, "ptx", true);
    if (const Json *launch = reader.member(value, path, "launch", false);
        launch && !launch->is_null())
      kernel.launch = readLaunch(*launch, path + ".launch");
    if (const Json *maps = reader.member(value, path, "tensor_maps", false);
        maps && reader.expectArray(*maps, path + ".tensor_maps"))
      for (size_t i = 0; i < maps->size() && !reader.failed(); ++i)
        kernel.tensorMaps.push_back(
            readTensorMap((*maps)[i], elementPath(path + ".tensor_maps", i)));
    return kernel;
  }

  TensorMapSpec readTensorMap(const Json &value, const std::string &path) {
    TensorMapSpec map;
    if (!reader.expectObject(value, path,
                             {"name", "buffer", "box", "swizzle", "interleave",
                              "l2_promotion", "oob_fill"}))
      return map;
    map.name = reader.string(value, path, "name", true);
    map.buffer = reader.string(value, path, "buffer", true);
    if (const Json *box = reader.member(value, path, "box", true);
        box && reader.expectArray(*box, path + ".box"))
      for (size_t i = 0; i < box->size(); ++i) {
        const Json &entry = (*box)[i];
        if (!entry.is_number_unsigned() ||
            entry.get<uint64_t>() > 0xffffffffu) {
          reader.fail(elementPath(path + ".box", i),
                      "expected an integer in 0..2^32-1");
          break;
        }
        map.box.push_back(static_cast<uint32_t>(entry.get<uint64_t>()));
      }
    map.swizzle = reader.string(value, path, "swizzle", false, "none");
    map.interleave = reader.string(value, path, "interleave", false, "none");
    map.l2Promotion = reader.string(value, path, "l2_promotion", false, "none");
    map.oobFill = reader.string(value, path, "oob_fill", false, "none");
    return map;
  }
};

bool isIdentifier(const std::string &name) {
  if (name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

bool isReservedName(const std::string &name) {
  return name == "ceildiv" || name == "min" || name == "max";
}

/// Semantic checks shared by parsed and in-memory bundles.
class BundleValidator {
public:
  explicit BundleValidator(const VerificationBundle &bundle) : bundle(bundle) {}

  std::optional<std::string> run() {
    checkSizes();
    checkShapes();
    checkLaunch(bundle.launch, "$.launch");
    checkBuffers();
    checkParams();
    checkKernel(bundle.reference, "$.reference", true);
    std::set<std::string> names;
    for (size_t i = 0; i < bundle.candidates.size(); ++i) {
      std::string path = elementPath("$.candidates", i);
      checkKernel(bundle.candidates[i], path, false);
      if (!names.insert(bundle.candidates[i].name).second)
        fail(path + ".name",
             "duplicate candidate name '" + bundle.candidates[i].name + "'");
    }
    checkTiming();
    if (error.empty())
      checkEveryShape();
    if (error.empty())
      return std::nullopt;
    return error;
  }

private:
  void fail(const std::string &path, const std::string &message) {
    if (error.empty())
      error = path + ": " + message;
  }

  void checkExpression(const std::string &text, const std::string &path) {
    if (!error.empty())
      return;
    auto expression = Expression::parse(text);
    if (!expression) {
      fail(path, "bad expression '" + llmptx::untrusted::clipForMessage(text) +
                     "': " + expression.error());
      return;
    }
    for (const std::string &name : expression->names())
      if (std::find(bundle.sizes.begin(), bundle.sizes.end(), name) ==
          bundle.sizes.end())
        fail(path, "unknown size '" + name + "' in '" +
                       llmptx::untrusted::clipForMessage(text) +
                       "' (sizes: " + sizeList() + ")");
  }

  std::string sizeList() const {
    std::string list;
    for (const std::string &size : bundle.sizes)
      list += (list.empty() ? "" : ", ") + size;
    return list.empty() ? "none" : list;
  }

  void checkSizes() {
    std::set<std::string> seen;
    for (size_t i = 0; i < bundle.sizes.size(); ++i) {
      const std::string &size = bundle.sizes[i];
      std::string path = elementPath("$.sizes", i);
      if (!isIdentifier(size) || isReservedName(size))
        fail(path, "'" + size + "' is not a valid size name");
      else if (!seen.insert(size).second)
        fail(path, "duplicate size '" + size + "'");
    }
  }

  void checkShapes() {
    if (bundle.shapes.empty())
      fail("$.shapes", "at least one shape is required");
    for (size_t i = 0; i < bundle.shapes.size(); ++i)
      checkBindings(bundle.shapes[i], elementPath("$.shapes", i));
    if (bundle.timing.production)
      checkBindings(*bundle.timing.production, "$.timing.production");
  }

  void checkBindings(const SizeBindings &shape, const std::string &path) {
    for (const std::string &size : bundle.sizes)
      if (!shape.count(size))
        fail(path, "no value for size '" + size + "'");
    for (const auto &[name, value] : shape) {
      if (std::find(bundle.sizes.begin(), bundle.sizes.end(), name) ==
          bundle.sizes.end())
        fail(path + "." + name,
             "'" + name + "' is not a declared size (sizes: " + sizeList() +
                 ")");
      else if (value < 0)
        fail(path + "." + name, "negative size " + std::to_string(value));
    }
  }

  void checkLaunch(const LaunchSpec &launch, const std::string &path) {
    for (int axis = 0; axis < 3; ++axis) {
      checkExpression(launch.grid[axis], elementPath(path + ".grid", axis));
      checkExpression(launch.block[axis], elementPath(path + ".block", axis));
    }
    checkExpression(launch.dynamicSharedBytes, path + ".dynamic_shared_bytes");
  }

  static bool isPowerOfTwo(uint64_t value) {
    return value && !(value & (value - 1));
  }

  void checkBuffers() {
    if (bundle.buffers.empty())
      fail("$.buffers", "at least one buffer is required");
    if (bundle.alignment &&
        (!isPowerOfTwo(bundle.alignment) || bundle.alignment > kMaxAlignment))
      fail("$.alignment", "alignment must be a power of two up to " +
                              std::to_string(kMaxAlignment));
    std::set<std::string> names;
    bool anyOutput = false;
    for (size_t i = 0; i < bundle.buffers.size(); ++i) {
      const BufferSpec &buffer = bundle.buffers[i];
      std::string path = elementPath("$.buffers", i);
      if (!isIdentifier(buffer.name))
        fail(path + ".name", "'" + buffer.name + "' is not a valid name");
      if (!names.insert(buffer.name).second)
        fail(path + ".name", "duplicate buffer name '" + buffer.name + "'");
      for (size_t d = 0; d < buffer.shape.size(); ++d)
        checkExpression(buffer.shape[d], elementPath(path + ".shape", d));
      if (!buffer.strides.empty() &&
          buffer.strides.size() != buffer.shape.size())
        fail(path + ".strides", std::to_string(buffer.strides.size()) +
                                    " strides for rank " +
                                    std::to_string(buffer.shape.size()));
      for (size_t d = 0; d < buffer.strides.size(); ++d)
        checkExpression(buffer.strides[d], elementPath(path + ".strides", d));
      if (!buffer.anyOffset())
        checkExpression(buffer.offset, path + ".offset");
      if (buffer.alignment &&
          (!isPowerOfTwo(buffer.alignment) || buffer.alignment > kMaxAlignment))
        fail(path + ".alignment", "alignment must be a power of two up to " +
                                      std::to_string(kMaxAlignment));
      bool isOutput =
          buffer.role == BufferRole::Output || buffer.role == BufferRole::InOut;
      anyOutput |= isOutput;
      if (buffer.role == BufferRole::Output && buffer.init)
        fail(path + ".init",
             "output buffers are poisoned before each run, not initialised "
             "(use role inout to give initial contents)");
      const Tolerance &tolerance = buffer.tolerance;
      bool hasTolerance = tolerance.ulp || tolerance.rel || tolerance.abs ||
                          tolerance.signedZero;
      if (hasTolerance && !isOutput)
        fail(path + ".tolerance", "only outputs have a tolerance");
      if (hasTolerance && !isFloatType(buffer.element))
        fail(path + ".tolerance",
             "integer outputs are compared exactly; remove the tolerance");
      if (buffer.init)
        checkInit(*buffer.init, buffer, path + ".init");
    }
    if (!anyOutput)
      fail("$.buffers", "no buffer has role output or inout: nothing would "
                        "be compared");
  }

  void checkInit(const InitRecipe &init, const BufferSpec &buffer,
                 const std::string &path) {
    switch (init.kind) {
    case InitRecipe::Kind::Uniform:
      if (!(init.lo <= init.hi) || !std::isfinite(init.lo) ||
          !std::isfinite(init.hi))
        fail(path, "uniform needs finite lo <= hi");
      if (init.special && !isFloatType(buffer.element))
        fail(path + ".special",
             "special values exist only for float element types");
      break;
    case InitRecipe::Kind::RandInt:
      if (init.lo > init.hi)
        fail(path, "randint needs lo <= hi");
      break;
    case InitRecipe::Kind::Constant: {
      if (init.value.empty())
        fail(path + ".value", "missing value");
      else if (auto problem = checkConstant(init.value, buffer.element))
        fail(path + ".value", *problem);
      break;
    }
    case InitRecipe::Kind::Copy: {
      int from = bundle.findBuffer(init.from);
      if (from < 0)
        fail(path + ".from", "unknown buffer '" + init.from + "'");
      else if (bundle.buffers[from].role == BufferRole::Output)
        fail(path + ".from", "cannot copy output buffer '" + init.from + "'");
      else if (bundle.buffers[from].element != buffer.element)
        fail(path + ".from", "buffer '" + init.from + "' has element type " +
                                 elementTypeName(bundle.buffers[from].element));
      else if (bundle.buffers[from].init &&
               bundle.buffers[from].init->kind == InitRecipe::Kind::Copy)
        fail(path + ".from",
             "buffer '" + init.from + "' is itself a copy; copy its source");
      break;
    }
    default:
      break;
    }
  }

  void checkParams() {
    std::vector<bool> passed(bundle.buffers.size(), false);
    for (size_t i = 0; i < bundle.params.size(); ++i) {
      const ParamSpec &param = bundle.params[i];
      std::string path = elementPath("$.params", i);
      if (param.role == ParamRole::Scalar) {
        if (!scalarTypeByteSize(param.type))
          fail(path + ".type",
               "unknown scalar type '" + param.type +
                   "' (i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64)");
        bool isFloat = !param.type.empty() &&
                       (param.type[0] == 'f' || param.type[0] == 'b');
        if (!isFloat)
          checkExpression(param.value, path + ".value");
        continue;
      }
      int buffer = bundle.findBuffer(param.buffer);
      if (buffer < 0) {
        fail(path + ".buffer", "unknown buffer '" + param.buffer + "'");
        continue;
      }
      if (param.role == ParamRole::AllocatedPtr ||
          param.role == ParamRole::AlignedPtr ||
          param.role == ParamRole::BarePtr)
        passed[buffer] = true;
      bool indexLike = param.role == ParamRole::Offset ||
                       param.role == ParamRole::Size ||
                       param.role == ParamRole::Stride;
      if (indexLike && !param.type.empty() && param.type != "i64" &&
          param.type != "i32")
        fail(path + ".type", "index parameters are i64 or i32");
      if (!indexLike && !param.type.empty())
        fail(path + ".type", "pointer parameters have no type");
      if ((param.role == ParamRole::Size || param.role == ParamRole::Stride) &&
          param.dim >= bundle.buffers[buffer].shape.size())
        fail(path + ".dim",
             "dimension " + std::to_string(param.dim) + " of buffer '" +
                 param.buffer + "' of rank " +
                 std::to_string(bundle.buffers[buffer].shape.size()));
    }
    for (size_t b = 0; b < bundle.buffers.size(); ++b)
      if (!passed[b])
        fail("$.params", "buffer '" + bundle.buffers[b].name +
                             "' is not passed to the kernel by any pointer "
                             "parameter");
  }

  void checkKernel(const KernelObject &kernel, const std::string &path,
                   bool isReference) {
    if (!isReference && kernel.name.empty())
      fail(path + ".name", "a candidate needs a name");
    if (kernel.entry.empty())
      fail(path + ".entry", "missing entry name");
    if (isReference && kernel.ptx.empty())
      fail(path + ".ptx", "the reference PTX is empty");
    if (kernel.launch)
      checkLaunch(*kernel.launch, path + ".launch");
    if (isReference && !kernel.tensorMaps.empty())
      fail(path + ".tensor_maps", "the reference keeps its own ABI");
    for (size_t i = 0; i < kernel.tensorMaps.size(); ++i) {
      const TensorMapSpec &map = kernel.tensorMaps[i];
      std::string at = elementPath(path + ".tensor_maps", i);
      int buffer = bundle.findBuffer(map.buffer);
      if (buffer < 0) {
        fail(at + ".buffer", "no buffer '" + map.buffer + "'");
        continue;
      }
      const BufferSpec &spec = bundle.buffers[buffer];
      if (auto problem =
              checkTensorMapSpec(map, spec.element, spec.shape.size()))
        fail(at, *problem);
    }
  }

  void checkTiming() {
    int64_t count = static_cast<int64_t>(bundle.shapes.size());
    if (bundle.timing.shape >= count || bundle.timing.shape < -count)
      fail("$.timing.shape",
           "shape index " + std::to_string(bundle.timing.shape) +
               " out of range for " + std::to_string(count) + " shapes");
    if (bundle.timing.minRuns < 1)
      fail("$.timing.min_runs", "at least one run");
    if (!(bundle.timing.maxMs >= 0))
      fail("$.timing.max_ms", "must not be negative");
    if (!bundle.timing.flops.empty())
      checkExpression(bundle.timing.flops, "$.timing.flops");
    if (!(bundle.timing.confirmAbove >= 0))
      fail("$.timing.confirm_above", "must not be negative");
  }

  /// Evaluates every expression for every shape so that a runner never
  /// meets an evaluation error half-way through a GPU run.
  void checkEveryShape() {
    unsigned variants = offsetVariantCount(bundle);
    for (size_t s = 0; s < bundle.shapeCount() && error.empty(); ++s)
      for (unsigned v = 0; v < variants && error.empty(); ++v) {
        auto plan = planShape(bundle, s, v);
        if (!plan) {
          error = plan.error();
          return;
        }
        for (size_t b = 0; b < bundle.buffers.size(); ++b) {
          const BufferSpec &buffer = bundle.buffers[b];
          if (!buffer.init || buffer.init->kind != InitRecipe::Kind::Copy)
            continue;
          int from = bundle.findBuffer(buffer.init->from);
          if (plan->buffers[from].elementCount != plan->buffers[b].elementCount)
            fail(elementPath("$.buffers", b) + ".init.from",
                 "buffer '" + buffer.init->from + "' has " +
                     std::to_string(plan->buffers[from].elementCount) +
                     " elements, '" + buffer.name + "' has " +
                     std::to_string(plan->buffers[b].elementCount) +
                     " (shape " + std::to_string(s) + ")");
        }
      }
  }

  const VerificationBundle &bundle;
  std::string error;
};
} // namespace

std::optional<std::string>
llmptx::runtime::validateBundle(const VerificationBundle &bundle) {
  try {
    return BundleValidator(bundle).run();
  } catch (const std::exception &e) {
    return std::string("internal error while validating: ") + e.what();
  }
}

ValueOrError<VerificationBundle>
llmptx::runtime::parseBundleJson(std::string_view text) {
  try {
    std::string syntaxError;
    std::optional<Json> root = parseJsonText(text, syntaxError);
    if (!root)
      return Failure{syntaxError};
    BundleReader reader;
    std::optional<VerificationBundle> bundle = reader.read(*root);
    if (!bundle)
      return Failure{reader.reader.firstError()};
    if (auto problem = validateBundle(*bundle))
      return Failure{*problem};
    return std::move(*bundle);
  } catch (const std::exception &e) {
    return Failure{std::string("internal error while reading: ") + e.what()};
  }
}

ValueOrError<VerificationBundle>
llmptx::runtime::readBundleFile(const std::string &path) {
  std::string contents;
  if (auto problem = untrusted::readRegularFile(path, contents))
    return Failure{path + ": cannot read the file: " + *problem};
  auto bundle = parseBundleJson(contents);
  if (!bundle)
    return Failure{path + ": " + bundle.error()};
  return bundle;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static OrderedJson expressionJson(const std::string &text) {
  bool integer = !text.empty() && text.size() < 19;
  for (size_t i = 0; i < text.size() && integer; ++i)
    integer = std::isdigit(static_cast<unsigned char>(text[i])) ||
              (i == 0 && text[i] == '-' && text.size() > 1);
  if (integer)
    return std::stoll(text);
  return text;
}

static OrderedJson launchJson(const LaunchSpec &launch) {
  OrderedJson result;
  OrderedJson grid = OrderedJson::array(), block = OrderedJson::array();
  for (int axis = 0; axis < 3; ++axis) {
    grid.push_back(expressionJson(launch.grid[axis]));
    block.push_back(expressionJson(launch.block[axis]));
  }
  result["grid"] = grid;
  result["block"] = block;
  result["dynamic_shared_bytes"] = expressionJson(launch.dynamicSharedBytes);
  return result;
}

static OrderedJson kernelJson(const KernelObject &kernel) {
  OrderedJson result;
  result["name"] = kernel.name;
  result["entry"] = kernel.entry;
  result["ptx"] = kernel.ptx;
  if (kernel.launch)
    result["launch"] = launchJson(*kernel.launch);
  if (!kernel.tensorMaps.empty()) {
    OrderedJson maps = OrderedJson::array();
    for (const TensorMapSpec &map : kernel.tensorMaps) {
      OrderedJson entry;
      entry["name"] = map.name;
      entry["buffer"] = map.buffer;
      entry["box"] = map.box;
      entry["swizzle"] = map.swizzle;
      entry["interleave"] = map.interleave;
      entry["l2_promotion"] = map.l2Promotion;
      entry["oob_fill"] = map.oobFill;
      maps.push_back(std::move(entry));
    }
    result["tensor_maps"] = maps;
  }
  return result;
}

static OrderedJson numberOrText(const std::string &text) {
  // Constants that JSON can carry as numbers are written as numbers.
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value) && text != "-0" &&
        text.find_first_of("xX") == std::string::npos) {
      OrderedJson integer = expressionJson(text);
      if (integer.is_number_integer())
        return integer;
      return value;
    }
  } catch (const std::exception &) {
  }
  return text;
}

/// One shape, the bundle's sizes first, in their order.
static OrderedJson bindingsJson(const VerificationBundle &bundle,
                                const SizeBindings &shape) {
  OrderedJson object = OrderedJson::object();
  for (const std::string &size : bundle.sizes)
    if (shape.count(size))
      object[size] = shape.at(size);
  for (const auto &[name, value] : shape)
    if (!object.contains(name))
      object[name] = value;
  return object;
}

/// The shapes, in their order.
static OrderedJson shapesJson(const VerificationBundle &bundle) {
  OrderedJson shapes = OrderedJson::array();
  for (const SizeBindings &shape : bundle.shapes)
    shapes.push_back(bindingsJson(bundle, shape));
  return shapes;
}

static OrderedJson initRecipeJson(const InitRecipe &init) {
  OrderedJson recipe;
  recipe["kind"] = initRecipeKindName(init.kind);
  switch (init.kind) {
  case InitRecipe::Kind::Uniform:
    recipe["lo"] = init.lo;
    recipe["hi"] = init.hi;
    if (init.special)
      recipe["special"] = true;
    break;
  case InitRecipe::Kind::RandInt:
    recipe["lo"] = static_cast<int64_t>(init.lo);
    recipe["hi"] = static_cast<int64_t>(init.hi);
    break;
  case InitRecipe::Kind::Iota:
    recipe["start"] = init.start;
    recipe["step"] = init.step;
    break;
  case InitRecipe::Kind::Constant:
    recipe["value"] = numberOrText(init.value);
    break;
  case InitRecipe::Kind::Copy:
    recipe["from"] = init.from;
    break;
  case InitRecipe::Kind::Zeros:
    break;
  }
  return recipe;
}

static OrderedJson toleranceJson(const Tolerance &tolerance) {
  OrderedJson bounds;
  bounds["ulp"] = tolerance.ulp;
  if (tolerance.rel)
    bounds["rel"] = tolerance.rel;
  if (tolerance.abs)
    bounds["abs"] = tolerance.abs;
  if (tolerance.signedZero)
    bounds["signed_zero"] = true;
  return bounds;
}

static OrderedJson expressionsJson(const std::vector<std::string> &texts) {
  OrderedJson array = OrderedJson::array();
  for (const std::string &text : texts)
    array.push_back(expressionJson(text));
  return array;
}

/// A buffer, leaving out what has its default value.
static OrderedJson bufferJson(const BufferSpec &buffer) {
  OrderedJson object;
  object["name"] = buffer.name;
  object["element"] = elementTypeName(buffer.element);
  object["shape"] = expressionsJson(buffer.shape);
  if (!buffer.strides.empty())
    object["strides"] = expressionsJson(buffer.strides);
  if (buffer.offset != "0")
    object["offset"] = expressionJson(buffer.offset);
  object["role"] = bufferRoleName(buffer.role);
  if (buffer.init)
    object["init"] = initRecipeJson(*buffer.init);
  bool written =
      buffer.role == BufferRole::Output || buffer.role == BufferRole::InOut;
  if (written && isFloatType(buffer.element))
    object["tolerance"] = toleranceJson(buffer.tolerance);
  if (buffer.alignment)
    object["alignment"] = buffer.alignment;
  return object;
}

static OrderedJson paramJson(const ParamSpec &param) {
  OrderedJson object;
  object["role"] = paramRoleName(param.role);
  if (param.role == ParamRole::Scalar) {
    object["type"] = param.type;
    bool isFloat =
        !param.type.empty() && (param.type[0] == 'f' || param.type[0] == 'b');
    object["value"] =
        isFloat ? numberOrText(param.value) : expressionJson(param.value);
    return object;
  }
  object["buffer"] = param.buffer;
  if (param.role == ParamRole::Size || param.role == ParamRole::Stride)
    object["dim"] = param.dim;
  if (!param.type.empty())
    object["type"] = param.type;
  return object;
}

static OrderedJson timingSpecJson(const VerificationBundle &bundle,
                                  const TimingSpec &spec) {
  OrderedJson timing;
  timing["shape"] = spec.shape;
  timing["min_runs"] = spec.minRuns;
  timing["max_ms"] = spec.maxMs;
  if (!spec.flops.empty())
    timing["flops"] = expressionJson(spec.flops);
  if (spec.production)
    timing["production"] = bindingsJson(bundle, *spec.production);
  if (spec.confirmAbove != kDefaultConfirmAbove)
    timing["confirm_above"] = spec.confirmAbove;
  return timing;
}

std::string llmptx::runtime::writeBundleJson(const VerificationBundle &bundle) {
  OrderedJson root;
  root["format"] = kBundleFormat;
  root["version"] = kBundleVersion;
  root["kernel"] = bundle.kernel;
  if (!bundle.chip.empty())
    root["chip"] = bundle.chip;
  root["seed"] = bundle.seed;
  root["sizes"] = bundle.sizes;
  root["shapes"] = shapesJson(bundle);
  root["launch"] = launchJson(bundle.launch);
  OrderedJson buffers = OrderedJson::array();
  for (const BufferSpec &buffer : bundle.buffers)
    buffers.push_back(bufferJson(buffer));
  root["buffers"] = buffers;
  if (bundle.alignment)
    root["alignment"] = bundle.alignment;
  OrderedJson params = OrderedJson::array();
  for (const ParamSpec &param : bundle.params)
    params.push_back(paramJson(param));
  root["params"] = params;
  root["reference"] = kernelJson(bundle.reference);
  OrderedJson candidates = OrderedJson::array();
  for (const KernelObject &candidate : bundle.candidates)
    candidates.push_back(kernelJson(candidate));
  root["candidates"] = candidates;
  root["timing"] = timingSpecJson(bundle, bundle.timing);
  return root.dump(2) + "\n";
}
