//===- CompileCheckTest.cpp - Tests of the real compile check ---*- C++ -*-===//

#include "PTXTestInputs.h"

#include "llmptx/PTX/CompileCheck.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace llmptx::ptx;

namespace {

TEST(CompileCheckTest, ParsesPtxasLog) {
  std::vector<Diagnostic> diags;
  std::vector<ResourceReport> resources;
  parseAssemblerLog(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'add' for 'sm_90'\n"
      "ptxas info    : Function properties for add\n"
      "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, "
      "380 bytes cmem[0], 8 bytes cmem[2]\n"
      "ptxas /tmp/x.ptx, line 20; error   : Arguments mismatch for "
      "instruction 'add'\n"
      "ptxas /tmp/x.ptx, line 1; fatal   : Unsupported .version 9.5; "
      "current version is '9.0'\n"
      "ptxas /tmp/x.ptx, line 7; warning : Unused variable\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n",
      diags, resources);
  ASSERT_EQ(resources.size(), 1u);
  const ResourceReport &r = resources[0];
  EXPECT_EQ(r.entry, "add");
  EXPECT_EQ(r.registers, 40u);
  EXPECT_EQ(r.barriers, 1u);
  EXPECT_EQ(r.sharedBytes, 1024u);
  EXPECT_EQ(r.constantBytes, 388u);
  EXPECT_EQ(r.localBytes, 16u);
  EXPECT_EQ(r.spillStores, 8u);
  EXPECT_EQ(r.spillLoads, 4u);
  ASSERT_EQ(diags.size(), 3u); // "aborted" is dropped after real errors
  EXPECT_EQ(diags[0].loc.line, 20u);
  EXPECT_EQ(diags[0].message, "Arguments mismatch for instruction 'add'");
  EXPECT_EQ(diags[0].severity, Severity::Error);
  EXPECT_EQ(diags[1].loc.line, 1u);
  EXPECT_EQ(diags[2].severity, Severity::Warning);
}

TEST(CompileCheckTest, ExplicitCudaPathNeverFallsBack) {
  llvm::Expected<CudaToolkit> tk = findCudaToolkit("/nonexistent/cuda");
  ASSERT_FALSE(static_cast<bool>(tk));
  EXPECT_NE(llvm::toString(tk.takeError()).find("/nonexistent/cuda"),
            std::string::npos);
}

TEST(CompileCheckTest, FindsAToolkitLaidOutLikeCuda) {
  // A directory with bin/ptxas (an executable) is a toolkit root.
  llvm::SmallString<128> root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("llmptx-cuda", root));
  llvm::SmallString<128> bin(root);
  llvm::sys::path::append(bin, "bin");
  ASSERT_FALSE(llvm::sys::fs::create_directory(bin));
  llvm::SmallString<128> ptxas(bin);
  llvm::sys::path::append(ptxas, "ptxas");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxas, ec);
    ASSERT_FALSE(ec);
    os << "#!/bin/sh\nexit 0\n";
  }
  llvm::sys::fs::setPermissions(ptxas, llvm::sys::fs::all_read |
                                           llvm::sys::fs::all_exe |
                                           llvm::sys::fs::owner_write);
  llvm::Expected<CudaToolkit> tk = findCudaToolkit(root);
  ASSERT_TRUE(static_cast<bool>(tk)) << llvm::toString(tk.takeError());
  EXPECT_EQ(tk->root, std::string(root));
  EXPECT_EQ(tk->ptxasPath, std::string(ptxas));
  EXPECT_TRUE(tk->nvJitLinkPath.empty());
  llvm::sys::fs::remove_directories(root);
}

/// The real toolkit of this machine, or a skip.
std::optional<CudaToolkit> realToolkit() {
  llvm::Expected<CudaToolkit> tk = findCudaToolkit("");
  if (!tk) {
    llvm::consumeError(tk.takeError());
    return std::nullopt;
  }
  return *tk;
}

TEST(CompileCheckTest, PtxasAndNvJitLinkAgreeOnTheReference) {
  std::optional<CudaToolkit> tk = realToolkit();
  if (!tk || tk->ptxasPath.empty())
    GTEST_SKIP() << "no ptxas on this machine";
  std::string text = test::readCorpus("nvptx/block_reduce_shared.ptx");
  CompileOptions ptxasOnly;
  ptxasOnly.backend = CompileBackend::Ptxas;
  CompileResult viaPtxas = compilePtx(text, "sm_90", *tk, ptxasOnly);
  ASSERT_TRUE(viaPtxas.ok) << viaPtxas.log;
  EXPECT_EQ(viaPtxas.tool, "ptxas");
  EXPECT_FALSE(viaPtxas.cubin.empty());
  ASSERT_EQ(viaPtxas.resources.size(), 1u);
  EXPECT_EQ(viaPtxas.resources[0].entry, "block_reduce");
  EXPECT_EQ(viaPtxas.resources[0].sharedBytes, 1024u);
  EXPECT_EQ(viaPtxas.resources[0].barriers, 1u);
  EXPECT_GT(viaPtxas.resources[0].registers, 0u);
  if (tk->nvJitLinkPath.empty())
    GTEST_SKIP() << "no libnvJitLink on this machine";
  CompileOptions jit;
  jit.backend = CompileBackend::NvJitLink;
  CompileResult viaJit = compilePtx(text, "sm_90", *tk, jit);
  ASSERT_TRUE(viaJit.ok) << viaJit.log;
  EXPECT_EQ(viaJit.tool, "nvJitLink");
  ASSERT_EQ(viaJit.resources.size(), 1u);
  EXPECT_EQ(viaJit.resources[0].registers, viaPtxas.resources[0].registers);
  EXPECT_EQ(viaJit.resources[0].sharedBytes, 1024u);
}

TEST(CompileCheckTest, CompileErrorsBecomeLocatedDiagnostics) {
  std::optional<CudaToolkit> tk = realToolkit();
  if (!tk)
    GTEST_SKIP() << "no CUDA toolkit on this machine";
  std::string text = test::readCorpus("broken/vector_elements.ptx");
  for (CompileBackend backend :
       {CompileBackend::Ptxas, CompileBackend::NvJitLink}) {
    if ((backend == CompileBackend::Ptxas && tk->ptxasPath.empty()) ||
        (backend == CompileBackend::NvJitLink && tk->nvJitLinkPath.empty()))
      continue;
    CompileOptions opts;
    opts.backend = backend;
    CompileResult r = compilePtx(text, "sm_90", *tk, opts);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cubin.empty());
    ASSERT_FALSE(r.diagnostics.empty()) << r.log;
    EXPECT_EQ(r.diagnostics[0].loc.line, 31u) << r.log;
    EXPECT_EQ(r.diagnostics[0].loc.column, 2u);
    EXPECT_NE(r.diagnostics[0].message.find("vector"), std::string::npos);
  }
}

TEST(CompileCheckTest, AutoTakesPtxasWhenThereIsOne) {
  std::optional<CudaToolkit> tk = realToolkit();
  if (!tk || tk->ptxasPath.empty() || tk->nvJitLinkPath.empty())
    GTEST_SKIP() << "needs both ptxas and libnvJitLink";
  std::string text = test::readCorpus("triton/matmul_wgmma.ptx");
  CompileResult r = compilePtx(text, "sm_90a", *tk);
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.tool, "ptxas");
  std::string plain = test::readCorpus("nvptx/block_reduce_shared.ptx");
  EXPECT_EQ(compilePtx(plain, "sm_90", *tk).tool, "ptxas");
  CudaToolkit libraryOnly = *tk;
  libraryOnly.ptxasPath.clear();
  EXPECT_EQ(compilePtx(plain, "sm_90", libraryOnly).tool, "nvJitLink");
}

/// A 100k-character .func name corrupts CUDA 13's nvJitLink heap (glibc
/// aborts, or LLVM's crash handler deadlocks in malloc). It runs in a child
/// process, so this process gets a diagnostic and goes on.
TEST(CompileCheckTest, NvJitLinkCrashIsADiagnosticNotOurs) {
  std::optional<CudaToolkit> tk = realToolkit();
  if (!tk || tk->nvJitLinkPath.empty())
    GTEST_SKIP() << "no libnvJitLink on this machine";
  std::string name(100000, 'f');
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".func " +
                     name +
                     "()\n{\n\tret;\n}\n.visible .entry k()\n{\n"
                     "\tcall " +
                     name + ", ();\n\tret;\n}\n";
  CompileOptions options;
  options.backend = CompileBackend::NvJitLink;
  options.timeoutSeconds = 60;
  CompileResult r = compilePtx(text, "sm_90", *tk, options);
  if (!r.ok) {
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].code, "compile-tool")
        << r.diagnostics[0].message;
  }
  // The process is whole: a plain compile still works.
  std::string plain = test::readCorpus("nvptx/block_reduce_shared.ptx");
  EXPECT_TRUE(compilePtx(plain, "sm_90", *tk, options).ok);
}

TEST(CompileCheckTest, AssemblerTimeLimitIsADiagnostic) {
  std::optional<CudaToolkit> tk = realToolkit();
  if (!tk || tk->nvJitLinkPath.empty())
    GTEST_SKIP() << "no libnvJitLink on this machine";
  // 200k unrolled dependent FMAs take nvJitLink seconds.
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k(.param .u64 p)\n{\n"
                     "\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<2>;\n"
                     "\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, "
                     "[%rd1];\n";
  for (int i = 0; i < 200000; ++i)
    text += "\tfma.rn.f32 %f1, %f1, %f1, %f1;\n";
  text += "\tst.global.f32 [%rd1], %f1;\n\tret;\n}\n";
  CompileOptions options;
  options.backend = CompileBackend::NvJitLink;
  options.timeoutSeconds = 1;
  CompileResult r = compilePtx(text, "sm_90", *tk, options);
  if (r.ok)
    GTEST_SKIP() << "this nvJitLink assembled it within a second";
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].code, "compile-tool");
  EXPECT_NE(r.diagnostics[0].message.find("did not finish within 1 s"),
            std::string::npos)
      << r.diagnostics[0].message;
}

TEST(CompileCheckTest, MissingToolIsAnErrorNotACrash) {
  CudaToolkit none;
  CompileResult r = compilePtx(".version 8.0\n", "sm_90", none, {});
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "compile-tool");
  r = compilePtx(".version 8.0\n", "", none, {});
  EXPECT_FALSE(r.ok);
}

} // namespace
