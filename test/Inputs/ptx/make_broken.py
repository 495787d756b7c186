#!/usr/bin/env python3
#===- make_broken.py - The broken half of the PTX lint corpus --------------===#
import os
import sys
# usage: make_broken.py [OUT_DIR]; writes one broken kernel per lint class.
# Markers: "// LINT: <code> <culprit>" (error on that line),
# "// LINT-WARNING: <code> <culprit>", "// LINT-NOTE: <code>" (note of the
# error on that line), "// PTXAS-DIFFERS: why" (ptxas reports elsewhere).
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "broken")
HDR = """.version 8.0
.target sm_90
.address_size 64
"""
def kernel(body, regs=None, params=None, name="k", hdr=HDR, pre=""):
    regs = regs if regs is not None else """	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;"""
    params = params if params is not None else """	.param .u64 {n}_param_0,
	.param .u64 {n}_param_1,
	.param .u32 {n}_param_2""".format(n=name)
    return hdr + pre + """
.visible .entry {n}(
{params}
)
{{
{regs}

{body}
}}
""".format(n=name, params=params, regs=regs, body=body)

PRO = """	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	ld.param.u32 	%r1, [k_param_2];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mul.wide.u32 	%rd5, %r5, 4;
	add.s64 	%rd6, %rd3, %rd5;
	add.s64 	%rd7, %rd4, %rd5;"""
EPI = """$L__BB0_2:
	ret;"""
def simple(mid, **kw):
    return kernel(PRO + "\n" + mid + "\n" + EPI, **kw)

files = {}
files["undeclared_register_scalar"] = "// The classic mistake: `.reg .b32 %r10;` declares ONE register named %r10,\n// not ten registers %r0..%r9.\n" + kernel(PRO.replace("ld.param.u32 	%r1, [k_param_2];", "ld.param.u32 	%r1, [k_param_2]; // LINT: undeclared-register %r1") + """
	ld.global.f32 	%f1, [%rd6];
	add.f32 	%f2, %f1, %f1;
	st.global.f32 	[%rd7], %f2;
""" + EPI, regs="""	.reg .pred 	%p<2>;
	.reg .b32 	%r10; // LINT-NOTE: undeclared-register
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;""")
files["undeclared_register"] = "// %fd1 is used but no .f64 register was declared at all.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	cvt.f64.f32 	%fd1, %f1; // LINT: undeclared-register %fd1
	st.global.f32 	[%rd7], %f1;""")
files["register_out_of_range"] = "// %r8 is past %r<8> (which declares %r0..%r7).\n" + simple("""	ld.global.u32 	%r6, [%rd6];
	add.s32 	%r8, %r6, 1; // LINT: register-out-of-range %r8
	st.global.u32 	[%rd7], %r8;""")
files["duplicate_declaration"] = "// %rd3 is declared by the range and again on its own.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", regs="""	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;
	.reg .b64 	%rd3; // LINT: duplicate-declaration %rd3""")
files["operand_64bit_in_s32"] = "// A 64-bit register in a .s32 operation.\n" + simple("""	ld.global.u32 	%r6, [%rd6];
	add.s32 	%r7, %r6, %rd5; // LINT: operand-type-mismatch %rd5
	st.global.u32 	[%rd7], %r7;""")
files["predicate_as_value"] = "// A predicate used as an integer value.\n" + simple("""	ld.global.u32 	%r6, [%rd6];
	add.s32 	%r7, %r6, %p1; // LINT: predicate-as-value %p1
	st.global.u32 	[%rd7], %r7;""")
files["float_op_on_int_regs"] = "// add.f32 on registers declared .u32 (PTX forbids float ops on .u/.s registers).\n" + simple("""	ld.global.u32 	%u1, [%rd6];
	add.f32 	%u2, %u1, %u1; // LINT: operand-type-mismatch %u
	st.global.u32 	[%rd7], %u2;""", regs="""	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .u32 	%u<3>;
	.reg .b64 	%rd<10>;""")
files["immediate_type"] = "// An integer literal as a .f32 operand.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	add.f32 	%f2, %f1, 1; // LINT: immediate-type-mismatch 1
	st.global.f32 	[%rd7], %f2;""")
files["vector_elements"] = "// A vector load into registers of different widths.\n" + simple("""	ld.global.v2.u32 	{%r6, %rd8}, [%rd6]; // LINT: vector-element-mismatch %rd8
	st.global.u32 	[%rd7], %r6;""")
files["unknown_label"] = "// A branch to a label that does not exist.\n" + kernel(PRO.replace("@%p1 bra 	$L__BB0_2;", "@%p1 bra 	$L__BB0_3; // LINT: unknown-label $L__BB0_3") + """
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;
""" + EPI)
files["unknown_instruction"] = "// fmax is CUDA C, not PTX (max.f32 is).\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	fmax.f32 	%f2, %f1, %f1; // LINT: unknown-instruction fmax
	st.global.f32 	[%rd7], %f2;""")
files["unknown_modifier"] = "// .rnd is not a rounding modifier (.rn is).\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	add.rnd.f32 	%f2, %f1, %f1; // LINT: unknown-modifier .rnd
	st.global.f32 	[%rd7], %f2;""")
files["unknown_state_space"] = "// .glbal is not a state space.\n" + simple("""	ld.glbal.f32 	%f1, [%rd6]; // LINT: unknown-state-space .glbal
	st.global.f32 	[%rd7], %f1;""")
files["unknown_state_space_decl"] = "// A variable declared in a misspelled state space.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", pre="\n.shraed .align 4 .b8 buf[64]; // LINT: unknown-state-space .shraed\n")
files["unknown_parameter"] = "// Reads a parameter the entry does not declare.\n" + kernel(PRO.replace("ld.param.u32 	%r1, [k_param_2];", "ld.param.u32 	%r1, [k_param_3]; // LINT: unknown-parameter k_param_3") + """
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;
""" + EPI)
files["undeclared_symbol"] = "// Uses a .shared array that was never declared.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	mov.u32 	%r6, tile; // LINT: undeclared-symbol tile
	shl.b32 	%r7, %r4, 2;
	add.s32 	%r7, %r6, %r7;
	st.shared.f32 	[%r7], %f1;
	bar.sync 	0;
	ld.shared.f32 	%f2, [%r7];
	st.global.f32 	[%rd7], %f2;""")
files["unbalanced_braces"] = "// The entry's body is never closed.\n// PTXAS-DIFFERS: ptxas reports the end of the file, lint the open brace.\n" + HDR + """
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1,
	.param .u32 k_param_2
)
{ // LINT: unbalanced-braces {
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;

""" + PRO + """
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;
""" + EPI + "\n"
files["version_target"] = "// PTX ISA 7.0 predates sm_90 (which needs 7.8).\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", hdr=""".version 7.0
.target sm_90 // LINT: version-target-mismatch sm_90
.address_size 64
""")
files["unsupported_version"] = "// There is no PTX ISA 9.5.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", hdr=""".version 9.5 // LINT: unsupported-version 9.5
.target sm_90
.address_size 64
""")
files["instruction_not_on_target"] = "// elect.sync needs sm_90; the target is sm_80.\n" + simple("""	elect.sync 	%r6|%p1, -1; // LINT: instruction-not-on-target elect.sync
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", hdr=""".version 8.0
.target sm_80
.address_size 64
""")
files["arch_specific"] = "// setmaxnreg needs sm_90a, not plain sm_90.\n" + simple("""	setmaxnreg.dec.sync.aligned.u32 	40; // LINT: instruction-not-on-target sm_90a
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""")
files["missing_semicolon"] = "// A missing ';' after an instruction.\n// PTXAS-DIFFERS: ptxas reports the next line (where parsing fails).\n" + simple("""	ld.global.f32 	%f1, [%rd6] // LINT: syntax ';'
	st.global.f32 	[%rd7], %f1;""")
files["guard_not_predicate"] = "// A .b32 register used as a guard.\n" + kernel(PRO.replace("@%p1 bra 	$L__BB0_2;", "@%r1 bra 	$L__BB0_2; // LINT: operand-type-mismatch %r1") + """
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;
""" + EPI)
files["load_without_brackets"] = "// A load whose address is not in brackets.\n" + simple("""	ld.global.f32 	%f1, %rd6; // LINT: operand-type-mismatch [%rd6]
	st.global.f32 	[%rd7], %f1;""")
files["bad_register_type"] = "// .b23 is not a type.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", regs="""	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;
	.reg .b23 	%q<2>; // LINT: syntax .b23""")
files["mul_wide_destination"] = "// mul.wide.u32 produces 64 bits; the destination is 32-bit.\n" + simple("""	mul.wide.u32 	%r6, %r5, 4; // LINT: operand-type-mismatch %r6
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""")
files["shift_amount_64"] = "// The shift amount of shl is always .u32.\n" + simple("""	ld.global.u32 	%r6, [%rd6];
	shl.b32 	%r7, %r6, %rd5; // LINT: operand-type-mismatch %rd5
	st.global.u32 	[%rd7], %r7;""")
files["missing_version"] = "// No .version directive.\n// PTXAS-DIFFERS: ptxas reports the first line after the directives.\n" + simple("""	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1;""", hdr=""".target sm_90 // LINT: missing-version .version
.address_size 64
""").replace("// No .version directive.\n.target", "// No .version directive.\n.target")
files["unguarded_store"] = "// Legal but suspicious: a thread-indexed global store with no bounds check.\n" + kernel("""	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mul.wide.u32 	%rd5, %r5, 4;
	add.s64 	%rd6, %rd3, %rd5;
	add.s64 	%rd7, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	st.global.f32 	[%rd7], %f1; // LINT-WARNING: unguarded-global-store k
	ret;""")
files["timer_read"] = "// Legal but suspicious: the result depends on %globaltimer.\n" + simple("""	mov.u64 	%rd8, %globaltimer; // LINT-WARNING: timer-read %globaltimer
	cvt.u32.u64 	%r6, %rd8;
	st.global.u32 	[%rd7], %r6;""")
# Register pressure: 300 live f32 values.
N = 300
body = [PRO]
for i in range(N):
    body.append("\tld.global.f32 \t%%f%d, [%%rd6+%d];" % (i + 1, 4 * i) +
                (" // LINT-WARNING: register-pressure k" if i == N - 1 else ""))
body.append("\tmov.f32 \t%%f%d, 0f00000000;" % (N + 1))
for i in range(N):
    body.append("\tadd.f32 \t%%f%d, %%f%d, %%f%d;" % (N + 1, N + 1, i + 1))
body.append("\tst.global.f32 \t[%%rd7], %%f%d;" % (N + 1))
body.append(EPI)
files["register_pressure"] = "// Legal but suspicious: about 300 f32 values live at once.\n" + kernel("\n".join(body), regs="""	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<302>;
	.reg .b64 	%rd<10>;""")
os.makedirs(out, exist_ok=True)
for name, text in files.items():
    open(os.path.join(out, name + ".ptx"), "w").write(text)
print(len(files), "files")
