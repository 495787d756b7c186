//===- BundleTest.cpp - Bundle JSON, validation and errors ----------------===//

#include "llmptx/Runtime/Bundle.h"
#include "TestBundles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

using namespace llmptx::runtime;
using llmptx::runtime::testing::stridedBundle;
using llmptx::runtime::testing::vaddBundle;
using Json = nlohmann::json;

namespace {

/// The error of parsing the vadd bundle after `mutate` edited its JSON.
std::string errorAfter(const std::function<void(Json &)> &mutate) {
  Json json = Json::parse(writeBundleJson(vaddBundle()));
  mutate(json);
  auto parsed = parseBundleJson(json.dump());
  EXPECT_FALSE(parsed.ok()) << json.dump(2);
  return parsed.error();
}

TEST(BundleTest, WriteThenParseRoundTrips) {
  for (const VerificationBundle &original : {vaddBundle(), stridedBundle()}) {
    std::string text = writeBundleJson(original);
    auto parsed = parseBundleJson(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error() << "\n" << text;
    EXPECT_EQ(writeBundleJson(*parsed), text);
    EXPECT_EQ(parsed->kernel, original.kernel);
    EXPECT_EQ(parsed->shapes, original.shapes);
    EXPECT_EQ(parsed->buffers.size(), original.buffers.size());
    EXPECT_EQ(parsed->params.size(), original.params.size());
  }
}

TEST(BundleTest, ParsesTheDocumentedExample) {
  // The example of docs/verification.md, trimmed to one candidate.
  const char *text = R"json({
    "format": "llmptx-verification-bundle", "version": 1,
    "kernel": "vadd", "chip": "sm_90", "seed": 7,
    "sizes": ["N"],
    "shapes": [{"N": 1}, {"N": 97}],
    "launch": {"grid": ["ceildiv(N, 256)", 1, 1], "block": [256, 1, 1],
               "dynamic_shared_bytes": 0},
    "buffers": [
      {"name": "a", "element": "f32", "shape": ["N"], "role": "input",
       "init": {"kind": "uniform", "lo": -4, "hi": 4, "special": true}},
      {"name": "c", "element": "f32", "shape": ["N"], "role": "output",
       "tolerance": {"ulp": 2, "rel": 1e-6, "signed_zero": true}}
    ],
    "alignment": 4,
    "params": [
      {"role": "aligned_ptr", "buffer": "a"},
      {"role": "size", "buffer": "a", "dim": 0},
      {"role": "bare_ptr", "buffer": "c"},
      {"role": "scalar", "type": "u32", "value": "N"},
      {"role": "scalar", "type": "f32", "value": 2.5}
    ],
    "reference": {"name": "nvptx", "entry": "vadd", "ptx": ".version 8.0"},
    "candidates": [{"name": "s0-r1", "entry": "vadd", "ptx": "x",
                    "launch": null}],
    "timing": {"shape": -1, "min_runs": 30, "max_ms": 2000}
  })json";
  auto parsed = parseBundleJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const VerificationBundle &bundle = *parsed;
  EXPECT_EQ(bundle.seed, 7u);
  EXPECT_EQ(bundle.launch.grid[0], "ceildiv(N, 256)");
  EXPECT_EQ(bundle.launch.grid[1], "1");
  ASSERT_TRUE(bundle.buffers[0].init.has_value());
  EXPECT_TRUE(bundle.buffers[0].init->special);
  EXPECT_EQ(bundle.buffers[1].tolerance.ulp, 2u);
  EXPECT_DOUBLE_EQ(bundle.buffers[1].tolerance.rel, 1e-6);
  EXPECT_TRUE(bundle.buffers[1].tolerance.signedZero);
  EXPECT_EQ(bundle.params[4].value, "2.5");
  EXPECT_EQ(bundle.params[3].value, "N");
  EXPECT_FALSE(bundle.candidates[0].launch.has_value());
  EXPECT_EQ(bundle.bufferAlignment(0), 4u);
}

TEST(BundleTest, SyntaxErrorsHaveLineAndColumn) {
  auto parsed = parseBundleJson("{\n  \"format\": \"x\",\n  oops\n}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().rfind("line 3, column 3: invalid JSON", 0), 0u)
      << parsed.error();
}

TEST(BundleTest, StructuralErrorsNameTheJsonPath) {
  EXPECT_EQ(errorAfter([](Json &j) { j.erase("kernel"); }),
            "$.kernel: missing required field");
  EXPECT_EQ(errorAfter([](Json &j) { j["format"] = "other"; }),
            "$.format: expected \"llmptx-verification-bundle\", got \"other\"");
  EXPECT_EQ(errorAfter([](Json &j) { j["version"] = 2; }),
            "$.version: unsupported version 2 (this runner reads version 1)");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][1]["tolerence"] = 1; }),
            "$.buffers[1].tolerence: unknown field (expected one of: name, "
            "element, shape, strides, offset, role, init, tolerance, "
            "alignment)");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][0]["element"] = "f8"; }),
            "$.buffers[0].element: unknown element type 'f8' (f16 bf16 f32 "
            "f64 i1 i8 i16 i32 i64)");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][0]["shape"] = "N"; }),
            "$.buffers[0].shape: expected an array, got a string");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][2]["shape"][0] = 1.5; }),
            "$.buffers[2].shape[0]: expected an integer or an expression "
            "string, got a number");
  EXPECT_EQ(errorAfter([](Json &j) { j["shapes"][1]["N"] = "97"; }),
            "$.shapes[1].N: expected an integer size, got a string");
  EXPECT_EQ(errorAfter([](Json &j) { j["params"][3]["role"] = "sizes"; }),
            "$.params[3].role: unknown parameter role 'sizes' "
            "(allocated_ptr, aligned_ptr, offset, size, stride, bare_ptr, "
            "scalar)");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][0]["init"]["kind"] = "x"; }),
            "$.buffers[0].init.kind: unknown recipe 'x' (uniform, randint, "
            "iota, zeros, constant, copy)");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][0]["init"]["start"] = 1; }),
            "$.buffers[0].init.start: not a field of the 'uniform' recipe");
  EXPECT_EQ(errorAfter([](Json &j) { j["launch"]["grid"] = Json::array(); }),
            "$.launch.grid: expected 1 to 3 dimensions, got 0");
}

TEST(BundleTest, SemanticErrorsNameTheJsonPath) {
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][1]["shape"][0] = "Q"; }),
            "$.buffers[1].shape[0]: unknown size 'Q' in 'Q' (sizes: N)");
  EXPECT_EQ(errorAfter([](Json &j) { j["launch"]["grid"][0] = "N +"; }),
            "$.launch.grid[0]: bad expression 'N +': column 4: expected a "
            "value");
  EXPECT_EQ(errorAfter(
                [](Json &j) { j["launch"]["grid"][0] = "ceildiv(N, N - 97)"; }),
            "$.launch.grid[0]: division by zero in 'ceildiv(N, N - 97)' "
            "(shape 1: N=97)");
  EXPECT_EQ(errorAfter([](Json &j) {
              j["shapes"][2] = {{"M", 3}};
            }),
            "$.shapes[2]: no value for size 'N'");
  EXPECT_EQ(errorAfter([](Json &j) { j["shapes"][0]["N"] = -1; }),
            "$.shapes[0].N: negative size -1");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][1]["name"] = "a"; }),
            "$.buffers[1].name: duplicate buffer name 'a'");
  EXPECT_EQ(errorAfter([](Json &j) {
              j["buffers"][2]["init"] = {{"kind", "zeros"}};
            }),
            "$.buffers[2].init: output buffers are poisoned before each run, "
            "not initialised (use role inout to give initial contents)");
  EXPECT_EQ(errorAfter([](Json &j) {
              j["buffers"][2]["element"] = "i32";
              j["buffers"][2]["tolerance"] = {{"ulp", 1}};
            }),
            "$.buffers[2].tolerance: integer outputs are compared exactly; "
            "remove the tolerance");
  EXPECT_EQ(errorAfter([](Json &j) { j["params"][3]["buffer"] = "z"; }),
            "$.params[3].buffer: unknown buffer 'z'");
  EXPECT_EQ(errorAfter([](Json &j) { j["params"][3]["dim"] = 1; }),
            "$.params[3].dim: dimension 1 of buffer 'a' of rank 1");
  EXPECT_EQ(errorAfter([](Json &j) {
              // Drop every pointer of c.
              Json kept = Json::array();
              for (const Json &p : j["params"])
                if (!(p["buffer"] == "c" && (p["role"] == "allocated_ptr" ||
                                             p["role"] == "aligned_ptr")))
                  kept.push_back(p);
              j["params"] = kept;
            }),
            "$.params: buffer 'c' is not passed to the kernel by any pointer "
            "parameter");
  EXPECT_EQ(errorAfter([](Json &j) { j["alignment"] = 12; }),
            "$.alignment: alignment must be a power of two up to 256");
  EXPECT_EQ(errorAfter([](Json &j) { j["timing"]["shape"] = 3; }),
            "$.timing.shape: shape index 3 out of range for 3 shapes");
  EXPECT_EQ(errorAfter(
                [](Json &j) { j["candidates"].push_back(j["candidates"][0]); }),
            "$.candidates[1].name: duplicate candidate name 'copy'");
  EXPECT_EQ(errorAfter([](Json &j) { j["buffers"][2]["role"] = "input"; }),
            "$.buffers: no buffer has role output or inout: nothing would be "
            "compared");
  EXPECT_EQ(errorAfter([](Json &j) {
              j["buffers"][1]["init"] = {{"kind", "copy"}, {"from", "c"}};
            }),
            "$.buffers[1].init.from: cannot copy output buffer 'c'");
  EXPECT_EQ(errorAfter([](Json &j) {
              j["buffers"][1]["shape"][0] = "N + 1";
              j["buffers"][1]["init"] = {{"kind", "copy"}, {"from", "a"}};
            }),
            "$.buffers[1].init.from: buffer 'a' has 1 elements, 'b' has 2 "
            "(shape 0)");
  EXPECT_EQ(errorAfter([](Json &j) { j["launch"]["block"][0] = 2048; }),
            "$.launch.block[0]: block x = 2048 is outside [1, 1024] (shape "
            "0: N=1)");
  EXPECT_EQ(errorAfter([](Json &j) {
              j["params"].push_back(
                  {{"role", "scalar"}, {"type", "u8"}, {"value", "N"}});
            }),
            "$.params[15].value: value 1000 of 'N' does not fit u8 (shape 2: "
            "N=1000)");
}

TEST(BundleTest, FlopsAreAnOptionalTimingExpression) {
  // Absent: not written, read back as unknown.
  std::string plain = writeBundleJson(vaddBundle());
  EXPECT_EQ(plain.find("\"flops\""), std::string::npos);
  auto unknown = parseBundleJson(plain);
  ASSERT_TRUE(unknown.ok()) << unknown.error();
  EXPECT_TRUE(unknown->timing.flops.empty());

  VerificationBundle bundle = stridedBundle();
  bundle.timing.flops = "2 * M * N * K";
  std::string text = writeBundleJson(bundle);
  EXPECT_NE(text.find("\"flops\": \"2 * M * N * K\""), std::string::npos)
      << text;
  auto parsed = parseBundleJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->timing.flops, "2 * M * N * K");
  EXPECT_EQ(writeBundleJson(*parsed), text);

  // A plain integer is an expression too, and written as a number.
  bundle.timing.flops = "1000";
  text = writeBundleJson(bundle);
  EXPECT_NE(text.find("\"flops\": 1000"), std::string::npos) << text;
  parsed = parseBundleJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->timing.flops, "1000");

  // Empty and null mean unknown.
  Json json = Json::parse(writeBundleJson(vaddBundle()));
  json["timing"]["flops"] = "";
  auto empty = parseBundleJson(json.dump());
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_TRUE(empty->timing.flops.empty());
  json["timing"]["flops"] = nullptr;
  auto null = parseBundleJson(json.dump());
  ASSERT_TRUE(null.ok()) << null.error();
  EXPECT_TRUE(null->timing.flops.empty());
}

TEST(BundleTest, FlopsErrorsNameTheJsonPath) {
  EXPECT_EQ(errorAfter([](Json &j) { j["timing"]["flops"] = "2 * N * Q"; }),
            "$.timing.flops: unknown size 'Q' in '2 * N * Q' (sizes: N)");
  EXPECT_EQ(errorAfter([](Json &j) { j["timing"]["flops"] = "2 *"; }),
            "$.timing.flops: bad expression '2 *': column 4: expected a "
            "value");
  EXPECT_EQ(errorAfter([](Json &j) { j["timing"]["flops"] = true; }),
            "$.timing.flops: expected an integer or an expression string, got "
            "a boolean");
  EXPECT_EQ(errorAfter([](Json &j) { j["timing"]["flops"] = "N - 97"; }),
            "$.timing.flops: negative flop count -96 (shape 0: N=1)");
  EXPECT_EQ(
      errorAfter([](Json &j) { j["timing"]["flops"] = "(N - 1) / (N - 97)"; }),
      "$.timing.flops: division by zero in '(N - 1) / (N - 97)' (shape "
      "1: N=97)");
  EXPECT_EQ(errorAfter([](Json &j) { j["timing"]["flop"] = "N"; }),
            "$.timing.flop: unknown field (expected one of: shape, min_runs, "
            "max_ms, flops, production, confirm_above)");
  // In-memory bundles are checked the same way.
  VerificationBundle bundle = vaddBundle();
  bundle.timing.flops = "M";
  EXPECT_EQ(validateBundle(bundle).value_or(""),
            "$.timing.flops: unknown size 'M' in 'M' (sizes: N)");
}

TEST(BundleTest, OverlappingOutputStridesAreRejected) {
  VerificationBundle bundle = stridedBundle();
  bundle.buffers[1].strides = {"2", "1"}; // rows of 5 overlap at stride 2
  auto problem = validateBundle(bundle);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "$.buffers[1].strides: elements of output buffer 'c' "
                      "overlap (stride 2) (shape 0: M=3 N=5 K=7)");
  // An input may broadcast.
  bundle.buffers[1].strides = {"K", "1"};
  bundle.buffers[0].strides = {"0", "1"};
  EXPECT_FALSE(validateBundle(bundle).has_value());
}

TEST(BundleTest, InMemoryBundlesAreValidatedToo) {
  VerificationBundle bundle = vaddBundle();
  EXPECT_FALSE(validateBundle(bundle).has_value());
  bundle.reference.ptx.clear();
  EXPECT_EQ(validateBundle(bundle).value_or(""),
            "$.reference.ptx: the reference PTX is empty");
}

TEST(BundleTest, ReadBundleFileNamesThePath) {
  auto missing = readBundleFile("/nonexistent/bundle.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "/nonexistent/bundle.json: cannot read the file: "
                             "No such file or directory");
}

} // namespace
