//===- LintTest.cpp - Tests of the PTX lint ---------------------*- C++ -*-===//

#include "llmptx/PTX/Lint.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

/// Wraps a function body into a complete sm_90 kernel.
std::string kernel(const std::string &regs, const std::string &body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_param_0)\n{\n" +
         regs + "\n\tld.param.u64 %rd1, [k_param_0];\n" + body +
         "\n\tret;\n}\n";
}

const char *Regs = "\t.reg .pred %p<3>;\n\t.reg .b16 %rs<3>;\n"
                   "\t.reg .b32 %r<9>;\n\t.reg .f32 %f<4>;\n"
                   "\t.reg .b64 %rd<6>;";

std::vector<Diagnostic> errorsOf(const std::string &text,
                                 LintOptions opts = {}) {
  std::vector<Diagnostic> all = lintPtx(text, opts), errors;
  for (Diagnostic &d : all)
    if (d.severity == Severity::Error)
      errors.push_back(d);
  return errors;
}

TEST(LintTest, AcceptsWhatPtxAllows) {
  // Loads into wider registers, stores and cvt from wider registers, .b32
  // registers in float ops, packing moves, hex float literals, predicated
  // vector loads and registers without '%' (inline asm).
  std::string text = kernel(std::string(Regs) + "\n\t.reg .pred q;", R"(
	ld.global.u8 	%r1, [%rd1];
	ld.global.u16 	%rd2, [%rd1];
	ld.global.f32 	%rd3, [%rd1];
	st.global.u8 	[%rd1], %r1;
	st.global.u32 	[%rd1+4], %rd2;
	cvt.u16.u32 	%rs1, %r1;
	cvt.u32.u16 	%r2, %r1;
	cvt.rn.f32.s32 	%f1, %rd2;
	add.rn.f32 	%r3, %r1, %r2;
	mov.b64 	%rd4, {%r1, %r2};
	mov.b32 	{%rs1, %rs2}, %r3;
	mov.f32 	%f2, 0f3F800000;
	mov.b32 	%r4, 0f3F800000;
	setp.gt.f32 	q, %f1, %f2;
	selp.f32 	%f3, %f1, %f2, q;
	shl.b64 	%rd5, %rd4, %r1;
	mul.wide.u32 	%rd5, %r1, 4;
	mad.wide.u32 	%rd5, %r1, %r2, %rd5;
	@q ld.global.v2.b32 	{%r5, %r6}, [%rd1];
	popc.b64 	%r7, %rd5;
	bfe.u64 	%rd5, %rd5, %r1, 8;)");
  std::vector<Diagnostic> errors = errorsOf(text);
  for (const Diagnostic &d : errors)
    ADD_FAILURE() << d.loc.line << ": " << d.message;
}

TEST(LintTest, FlagsTypeMistakesAtTheCulprit) {
  std::string text = kernel(Regs, R"(
	add.s32 	%r1, %r2, %rd1;
	add.s32 	%r1, %p1, 1;
	ld.global.u32 	%rs1, [%rd1];
	st.global.f32 	[%rd1], %rd2;
	cvt.rn.f32.f64 	%f1, %f2;)");
  std::vector<Diagnostic> errors = errorsOf(text);
  // st.global.f32 from a .b64 register is legal (ptxas agrees): 4 errors.
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].code, "operand-type-mismatch");
  EXPECT_EQ(errors[0].loc.line, 13u);
  EXPECT_EQ(errors[0].loc.column, 21u);
  EXPECT_NE(errors[0].message.find("%rd1"), std::string::npos);
  EXPECT_EQ(errors[1].code, "predicate-as-value");
  EXPECT_FALSE(errors[1].hint.empty());
  EXPECT_EQ(errors[1].loc.line, 14u);
  EXPECT_EQ(errors[2].loc.line, 15u);
  EXPECT_EQ(errors[3].loc.line, 17u);
}

TEST(LintTest, RegisterScopesFollowNestedBlocks) {
  std::string text = kernel(Regs, R"(
	{
	.reg .b32 	%tmp;
	mov.u32 	%tmp, 1;
	}
	mov.u32 	%r1, %tmp;)");
  std::vector<Diagnostic> errors = errorsOf(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code, "undeclared-register");
  EXPECT_EQ(errors[0].loc.line, 17u);
}

TEST(LintTest, ClassicScalarDeclarationGetsOneErrorWithNote) {
  std::string text = kernel("\t.reg .b32 %r4;\n\t.reg .b64 %rd<2>;", R"(
	mov.u32 	%r1, %tid.x;
	add.u32 	%r2, %r1, %r3;)");
  std::vector<Diagnostic> errors = errorsOf(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code, "undeclared-register");
  EXPECT_EQ(errors[0].loc.line, 10u);
  ASSERT_EQ(errors[0].notes.size(), 1u);
  EXPECT_EQ(errors[0].notes[0].loc.line, 6u);
  EXPECT_NE(errors[0].hint.find("%r<5>"), std::string::npos);
  EXPECT_NE(errors[0].message.find("%r1, %r2, %r3"), std::string::npos);
}

TEST(LintTest, TargetAndVersionChecks) {
  std::string text = kernel(Regs, "\tredux.sync.add.u32 %r1, %r2, -1;");
  EXPECT_TRUE(errorsOf(text).empty());
  LintOptions sm75;
  sm75.chip = "sm_75";
  // .target sm_90 is newer than sm_75, and sm_75 lacks redux.sync.
  std::vector<Diagnostic> errors = errorsOf(text, sm75);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].code, "version-target-mismatch");
  EXPECT_EQ(errors[1].code, "instruction-not-on-target");

  std::string old = text;
  old.replace(old.find("8.0"), 3, "7.5");
  errors = errorsOf(old);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].code, "version-target-mismatch");
  EXPECT_EQ(errors[0].loc.line, 2u);
}

TEST(LintTest, WarningsForSuspiciousButLegalCode) {
  std::string text = kernel(Regs, R"(
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	mov.u64 	%rd4, %clock64;
	st.global.u32 	[%rd3], %r1;)");
  std::vector<Diagnostic> diags = lintPtx(text, {});
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].code, "timer-read");
  EXPECT_EQ(diags[1].code, "unguarded-global-store");
  EXPECT_EQ(diags[1].loc.line, 17u);
  LintOptions quiet;
  quiet.warnings = false;
  EXPECT_TRUE(lintPtx(text, quiet).empty());
  // A bounds check silences the store warning.
  std::string guarded = text;
  guarded.insert(guarded.find("\tmul.wide"), "\tsetp.ge.u32 %p1, %r1, 64;\n"
                                             "\t@%p1 bra $L_end;\n");
  guarded.insert(guarded.find("\tret;"), "$L_end:\n");
  diags = lintPtx(guarded, {});
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "timer-read");
}

TEST(LintTest, FormatsDiagnosticsWithNotesAndHints) {
  Diagnostic d = makeDiagnostic(Severity::Error, {3, 5}, "unknown-label",
                                "branch to unknown label 'L'", "define 'L:'");
  d.notes.push_back(makeDiagnostic(Severity::Note, {1, 1}, "", "see here"));
  EXPECT_EQ(formatDiagnostic(d, "f.ptx"),
            "f.ptx:3:5: error: branch to unknown label 'L' [unknown-label]\n"
            "f.ptx:1:1: note: see here\n"
            "f.ptx:3:5: note: fix: define 'L:'\n");
}

} // namespace
