//===- ParserTest.cpp - Tests of the PTX parser -----------------*- C++ -*-===//

#include "PTXTestInputs.h"

#include "llmptx/PTX/Parser.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

constexpr const char *Kernel = R"(//
// header comment
.version 8.4
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 global_smem[];
.global .align 4 .u32 counter = 0;

.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .align 8 .b8 k_param_1[24],
	.param .u32 k_param_2
)
.maxntid 128, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>, %q;
	.reg .b64 	%rd<4>;
	.shared .align 4 .b8 tile[512];
	.loc	1 5 3
	ld.param.u64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	setp.lt.s32 	%p1|%p2, %r1, 4;
	@!%p1 bra 	$L__BB0_2;
	ld.global.v4.b32 	{ %r2, %r3, %r4, %r5 }, [ %rd1 + 16 ];
	st.global.b32 	[%rd1+-8], %r2;
	{
	.reg .b32 	%t;
	add.s32 	%t, %r2, -1;
	}
$L__BB0_2:
	ret;
}
	.section	.debug_info
	{
.b8 1
	}
)";

TEST(ParserTest, ParsesDirectivesParamsRegistersAndOperands) {
  ParseResult r = parsePtx(Kernel);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().message;
  const Module &m = r.module;
  EXPECT_EQ(m.version(), 84u);
  EXPECT_EQ(m.chip(), "sm_90a");
  EXPECT_EQ(m.addressSize, 64u);
  EXPECT_EQ(m.versionLoc.line, 3u);
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.globals[0].name, "global_smem");
  EXPECT_EQ(m.globals[0].linkage, ".extern");
  EXPECT_TRUE(m.globals[0].isArray);
  EXPECT_EQ(m.globals[0].dims[0], 0u);
  EXPECT_TRUE(m.globals[1].hasInitializer);

  ASSERT_EQ(m.functions.size(), 1u);
  const Function &fn = m.functions[0];
  EXPECT_TRUE(fn.isEntry);
  EXPECT_EQ(fn.name, "k");
  EXPECT_EQ(fn.linkage, ".visible");
  ASSERT_EQ(fn.params.size(), 3u);
  EXPECT_TRUE(fn.params[0].isPtr);
  EXPECT_EQ(fn.params[0].ptrSpace, ".global");
  EXPECT_EQ(fn.params[0].ptrAlign, 16u);
  EXPECT_EQ(fn.params[0].sizeBytes(), 8u);
  EXPECT_TRUE(fn.params[1].isArray);
  EXPECT_EQ(fn.params[1].align, 8u);
  EXPECT_EQ(fn.params[1].sizeBytes(), 24u);
  EXPECT_EQ(fn.params[2].loc.line, 13u);
  ASSERT_EQ(fn.directives.size(), 1u);
  EXPECT_EQ(fn.directives[0].name, ".maxntid");
  EXPECT_EQ(fn.directives[0].values.size(), 3u);

  ASSERT_EQ(fn.registers.size(), 5u);
  EXPECT_TRUE(fn.registers[1].isRange);
  EXPECT_EQ(fn.registers[1].count, 10u);
  EXPECT_FALSE(fn.registers[2].isRange);
  EXPECT_EQ(fn.registers[2].name, "%q");
  EXPECT_EQ(fn.registers[4].scope, 1u);
  EXPECT_EQ(fn.variables.size(), 1u);
  ASSERT_EQ(fn.labels.size(), 1u);
  EXPECT_EQ(fn.labels[0].name, "$L__BB0_2");

  ASSERT_EQ(fn.instructions.size(), 8u);
  const Instruction &mov = fn.instructions[1];
  EXPECT_EQ(mov.operands[1].kind, Operand::Kind::Register);
  EXPECT_EQ(mov.operands[1].text, "%tid.x");
  const Instruction &setp = fn.instructions[2];
  EXPECT_EQ(setp.operands[0].kind, Operand::Kind::Expression);
  EXPECT_EQ(setp.operands[0].elements.size(), 2u);
  const Instruction &bra = fn.instructions[3];
  EXPECT_EQ(bra.guard, "%p1");
  EXPECT_TRUE(bra.guardNegated);
  EXPECT_EQ(bra.operands[0].kind, Operand::Kind::Symbol);
  const Instruction &ld = fn.instructions[4];
  EXPECT_EQ(ld.opcode, "ld.global.v4.b32");
  EXPECT_EQ(ld.baseOpcode, "ld");
  ASSERT_EQ(ld.modifiers.size(), 3u);
  EXPECT_EQ(ld.modifiers[1], ".v4");
  EXPECT_EQ(ld.operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(ld.operands[0].elements.size(), 4u);
  EXPECT_EQ(ld.operands[1].kind, Operand::Kind::Address);
  EXPECT_EQ(ld.operands[1].intValue, 16);
  EXPECT_EQ(ld.operands[1].elements[0].text, "%rd1");
  EXPECT_EQ(ld.loc.line, 26u);
  EXPECT_EQ(ld.loc.column, 2u);
  EXPECT_EQ(fn.instructions[5].operands[0].intValue, -8);
  const Instruction &add = fn.instructions[6];
  EXPECT_EQ(add.scope, 1u);
  EXPECT_EQ(add.operands[2].kind, Operand::Kind::IntImmediate);
  EXPECT_EQ(add.operands[2].intValue, -1);
  EXPECT_EQ(fn.labels[0].instructionIndex, 7u);
}

TEST(ParserTest, ParsesCallSequencesAndPrototypes) {
  ParseResult r = parsePtx(R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry k()
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd1;
	.param .b64 param1;
	st.param.b64 	[param1], %rd1;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _, .param .b64 _);
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 	%r1, [retval0];
	} // callseq 0
	ret;
}
)");
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().message;
  ASSERT_EQ(r.module.functions.size(), 2u);
  EXPECT_FALSE(r.module.functions[0].hasBody);
  EXPECT_EQ(r.module.functions[0].returnParams.size(), 1u);
  const Function &k = r.module.functions[1];
  const Instruction &call = k.instructions[2];
  EXPECT_EQ(call.opcode, "call.uni");
  ASSERT_EQ(call.operands.size(), 3u);
  EXPECT_EQ(call.operands[0].kind, Operand::Kind::ParenList);
  EXPECT_EQ(call.operands[2].elements.size(), 2u);
  EXPECT_EQ(k.variables.size(), 3u);
}

TEST(ParserTest, ReportsSyntaxErrorsWithLocationsAndRecovers) {
  ParseResult r = parsePtx(".version 8.0\n.target sm_90\n.address_size 64\n"
                           ".visible .entry k()\n{\n"
                           "\t.reg .b32 %r<3>;\n"
                           "\tmov.u32 %r1, 1\n"         // line 7: missing ';'
                           "\tadd.s32 %r2, %r1, 1;\n"); // no closing brace
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics[0].code, "unbalanced-braces");
  EXPECT_EQ(r.diagnostics[0].loc.line, 5u);
  EXPECT_EQ(r.diagnostics[1].code, "syntax");
  EXPECT_EQ(r.diagnostics[1].loc.line, 7u);
  EXPECT_EQ(r.diagnostics[1].loc.column, 16u);
  // Recovery: the next instruction still parsed.
  ASSERT_EQ(r.module.functions.size(), 1u);
  EXPECT_EQ(r.module.functions[0].instructions.size(), 2u);
}

TEST(ParserTest, NeverCrashesOnTruncatedOrGarbledInput) {
  std::string text = test::readCorpus("nvcc/device_call.ptx");
  ASSERT_FALSE(text.empty());
  // Every prefix length in steps, and the text with bytes flipped.
  for (size_t n = 0; n < text.size(); n += 37)
    (void)parsePtx(llvm::StringRef(text).take_front(n));
  std::string garbled = text;
  for (size_t i = 0; i < garbled.size(); i += 53)
    garbled[i] = "{}[]();,@!%<>.\"/*"[i % 17];
  ParseResult r = parsePtx(garbled);
  EXPECT_FALSE(r.ok());
  for (const Diagnostic &d : r.diagnostics)
    EXPECT_GT(d.loc.line, 0u) << d.message;
}

TEST(ParserTest, ParsesEveryGoodCorpusFile) {
  for (const char *file :
       {"nvptx/elementwise_add.ptx", "nvptx/transpose_global_shared.ptx",
        "nvcc/printf_template.ptx", "nvcc/inline_asm_vec.ptx",
        "triton/vector_add.ptx", "triton/softmax.ptx",
        "hand/cudaparm_local.ptx", "hand/misc_ops.ptx"}) {
    std::string text = test::readCorpus(file);
    ASSERT_FALSE(text.empty()) << file;
    ParseResult r = parsePtx(text);
    EXPECT_TRUE(r.ok()) << file << ": " << r.diagnostics.front().message;
    EXPECT_GT(r.module.instructionCount(), 0u) << file;
  }
}

} // namespace
