//===- LLMGenSettings.td - The settings of #llmgen.target --*- tablegen -*-===//
//
// Every setting of the LLM path is declared here, once. The table gives:
//   - the parameters of `#llmgen.target` (LLMGenAttrs.td, in this order),
//   - the options of `llmgen-attach-target` (Passes.td),
//   - through cmake/llmgen_settings.py, the X-macro list LLMGenSettings.inc
//     from which C++ builds the `llm-lower` options, the attribute from the
//     options, the pipeline's plain PipelineSettings
//     (llmptx/Pipeline/Settings.h), their mapping from the attribute (with
//     the environment defaults) and the settings record of the report.
// Adding a setting is adding a row; its consumers follow.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENSETTINGS_TD
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENSETTINGS_TD

include "llmptx/Dialect/LLMGen/IR/LLMGenEnums.td"

class LLMGen_EnumParameter<EnumAttrInfo info, string default, string desc>
    : EnumParameter<info> {
  let summary = desc;
  let defaultValue = info.cppNamespace # "::" # info.className # "::" # default;
}

/// An enumerated setting of the pipeline (llmptx/Pipeline/SettingEnums.h),
/// spelled by the pipeline's own functions, so the values are declared and
/// spelled once, outside MLIR.
class LLMGen_PlainEnumParameter<string enumType, string default, string desc>
    : AttrOrTypeParameter<enumType, desc> {
  let parser = "::llmptx::llmgen::parseSettingParameter<" # enumType #
               ">($_parser)";
  let printer = "$_printer << ::llmptx::spellingOf($_self)";
  let defaultValue = enumType # "::" # default;
}

/// A pipeline enum the environment may give: absent in the attribute means
/// "from the variable, else the default", so a value the user gives always
/// wins over the variable.
class LLMGen_OptionalPlainEnumParameter<string enumType, string desc>
    : AttrOrTypeParameter<"std::optional<" # enumType # ">", desc> {
  let parser = "::llmptx::llmgen::parseOptionalSettingParameter<" #
               enumType # ">($_parser)";
  let printer = "$_printer << ::llmptx::spellingOf(*$_self)";
  let defaultValue = "std::nullopt";
}

/// The cache mode is the LLM library's enum, spelled by its own functions.
/// Absent means "from the environment, else readwrite", so that a mode the
/// user gives, readwrite included, always wins over LLMPTX_CACHE.
class LLMGen_CacheModeParameter<string desc>
    : AttrOrTypeParameter<"std::optional<::llmptx::llm::CacheMode>", desc> {
  let parser = [{ ::llmptx::llmgen::parseCacheModeParameter($_parser) }];
  let printer = [{ $_printer << ::llmptx::llm::cacheModeName(*$_self) }];
  let defaultValue = "std::nullopt";
}

/// One setting. `name` is the `#llmgen.target` parameter ("" for a pass
/// option that is not one), `flag` the pass option ("" for a parameter that
/// is not one).
class LLMGen_Setting<string parameterName, string optionFlag,
                     string description> {
  string name = parameterName;
  string flag = optionFlag;
  string summary = description;
  /// The C++ name of the pass option member and of the TargetSettings field.
  string cppName = parameterName;
  /// The variable that gives the value when the attribute leaves the setting
  /// unset (read when the module is serialized).
  string env = "";
  /// Listed, under `flag`, in the settings of the JSON report.
  bit reported = 0;
  /// A boolean option that sets a unit entry of the `flags` parameter.
  string flagsEntry = "";
  AttrOrTypeParameter parameter = ?;
  string optionType = "";
  string optionDefault = "";
  /// A field of PipelineSettings: the stages read it. The others (O,
  /// features, flags, link, slot) only shape the reference build or the
  /// attribute.
  bit pipeline = 1;
  /// The field's C++ type and default in PipelineSettings.
  string storageType = "";
  string storageDefault = optionDefault;
}

class LLMGen_StringSetting<string name, string flag, string default,
                           string summary>
    : LLMGen_Setting<name, flag, summary> {
  let parameter = StringRefParameter<summary, "\"" # default # "\"">;
  let optionType = "std::string";
  let optionDefault = "\"" # default # "\"";
  let storageType = "std::string";
}

/// An integer parameter; the option may be unsigned so that the option
/// parser refuses negative values.
class LLMGen_IntSetting<string name, string flag, int default, string summary,
                        string cppOptionType = "int">
    : LLMGen_Setting<name, flag, summary> {
  let parameter = DefaultValuedParameter<"int", !cast<string>(default), summary>;
  let optionType = cppOptionType;
  let optionDefault = !cast<string>(default);
  let storageType = "int";
}

class LLMGen_BoolSetting<string name, string flag, bit default, string summary>
    : LLMGen_Setting<name, flag, summary> {
  let parameter =
      DefaultValuedParameter<"bool", !if(default, "true", "false"), summary>;
  let optionType = "bool";
  let optionDefault = !if(default, "true", "false");
  let storageType = "bool";
}

/// A setting whose values are a pipeline enum (llmptx/Pipeline/SettingEnums.h).
class LLMGen_PlainEnumSetting<string cppType, string name, string flag,
                              string default, string summary>
    : LLMGen_Setting<name, flag, summary> {
  let parameter = LLMGen_PlainEnumParameter<cppType, default, summary>;
  let optionType = cppType;
  let optionDefault = cppType # "::" # default;
  let storageType = cppType;
}

/// A pipeline enum setting with an environment variable: the option is a
/// string (empty: unset), the field defaults to `default`.
class LLMGen_OptionalPlainEnumSetting<string cppType, string name, string flag,
                                      string default, string summary>
    : LLMGen_Setting<name, flag, summary> {
  let parameter = LLMGen_OptionalPlainEnumParameter<cppType, summary>;
  let optionType = "std::string";
  let optionDefault = "\"\"";
  let storageType = cppType;
  let storageDefault = cppType # "::" # default;
}

/// A setting whose values are an enum of the dialect (LLMGenEnums.td).
class LLMGen_EnumSetting<EnumAttrInfo info, string name, string flag,
                         string default, string summary>
    : LLMGen_Setting<name, flag, summary> {
  let parameter = LLMGen_EnumParameter<info, default, summary>;
  let optionType = info.cppNamespace # "::" # info.className;
  let optionDefault = info.cppNamespace # "::" # info.className # "::" # default;
}

/// A pass option that is not a parameter of the attribute.
class LLMGen_OptionOnly<string member, string flag, bit default,
                        string summary>
    : LLMGen_Setting<"", flag, summary> {
  let cppName = member;
  let optionType = "bool";
  let optionDefault = !if(default, "true", "false");
}

// The rows, each a setting; LLMGen_TargetSettings gives their order.

def LLMGen_OSetting : LLMGen_IntSetting<"O", "O", 3,
    "LLVM optimization level of the reference", "unsigned"> {
  let cppName = "optLevel";
  let pipeline = 0;
}
def LLMGen_ChipSetting : LLMGen_StringSetting<"chip", "chip", "sm_90",
    "target chip (sm_XX, sm_XXa or sm_XXf)"> {
  let reported = 1;
}
def LLMGen_FeaturesSetting : LLMGen_StringSetting<"features", "features", "",
    "LLVM target features of the reference (e.g. +ptx80)"> {
  let pipeline = 0;
}
def LLMGen_FlagsSetting : LLMGen_Setting<"flags", "",
    "#nvvm.target flags of the reference (fast, ftz, ptxas-cmd-options)"> {
  let parameter = OptionalParameter<"::mlir::DictionaryAttr", summary>;
  let pipeline = 0;
}
def LLMGen_FastSetting : LLMGen_OptionOnly<"fastFlag", "fast", 0,
    "fast math in the reference (the `fast` flag)"> {
  let flagsEntry = "fast";
}
def LLMGen_FtzSetting : LLMGen_OptionOnly<"ftzFlag", "ftz", 0,
    "flush denormals to zero in the reference (the `ftz` flag)"> {
  let flagsEntry = "ftz";
}
def LLMGen_LinkSetting : LLMGen_Setting<"link", "",
    "bitcode files linked into the reference"> {
  let parameter = OptionalParameter<"::mlir::ArrayAttr", summary>;
  let pipeline = 0;
}
def LLMGen_ProviderSetting : LLMGen_StringSetting<"provider", "provider", "",
    "provider kind: openai, anthropic, exec or replay (empty: "
    "$LLMPTX_PROVIDER)"> {
  let env = "LLMPTX_PROVIDER";
  let reported = 1;
}
def LLMGen_ModelSetting : LLMGen_StringSetting<"model", "model", "",
    "model name (empty: $LLMPTX_MODEL)"> {
  let env = "LLMPTX_MODEL";
  let reported = 1;
}
def LLMGen_BaseUrlSetting : LLMGen_StringSetting<"base_url", "base-url", "",
    "base URL of the provider (empty: $LLMPTX_BASE_URL)"> {
  let cppName = "baseUrl";
  let env = "LLMPTX_BASE_URL";
}
def LLMGen_ExecCommandSetting : LLMGen_StringSetting<"exec_command",
    "exec-command", "",
    "command of the exec provider (empty: $LLMPTX_EXEC_COMMAND)"> {
  let cppName = "execCommand";
  let env = "LLMPTX_EXEC_COMMAND";
}
def LLMGen_SamplesSetting : LLMGen_IntSetting<"samples", "samples", 1,
    "candidates asked for per kernel", "unsigned"> {
  let reported = 1;
}
def LLMGen_RepairsSetting : LLMGen_IntSetting<"repairs", "repairs", 2,
    "repair rounds per candidate", "unsigned"> {
  let reported = 1;
}
def LLMGen_RoundsSetting : LLMGen_IntSetting<"rounds", "rounds", -1,
    "optimization rounds after verification by execution (-1: 2 with "
    "mode=optimize, 0 with mode=translate)"> {
  let reported = 1;
}
def LLMGen_ModeSetting : LLMGen_PlainEnumSetting<"::llmptx::Mode", "mode",
    "mode",
    "Translate",
    "what the model is asked to do: translate (the gpu.func into PTX) or "
    "optimize (improve on the reference PTX)"> {
  let reported = 1;
}
// `verification` in the attribute: a parameter named `verify` would collide
// with the attribute's generated verify method.
def LLMGen_VerifySetting : LLMGen_PlainEnumSetting<"::llmptx::VerifyLevel",
    "verification", "verify", "Compile",
    "how far LLM kernels are checked: none (extraction only), compile (lint, "
    "ABI check and a real compile) or exec (execution against the reference "
    "on a GPU)"> {
  let reported = 1;
}
def LLMGen_SelectSetting : LLMGen_PlainEnumSetting<"::llmptx::SelectPolicy",
    "select", "select", "Auto",
    "which object is selected: auto (an LLM kernel only if verified by "
    "execution and not slower), llm (the best LLM kernel at the highest level "
    "reached) or nvptx (always the reference)"> {
  let reported = 1;
}
def LLMGen_LanguageSetting : LLMGen_OptionalPlainEnumSetting<
    "::llmptx::Language", "language", "language", "PTX",
    "what candidates are written in: ptx, cuda (CUDA C++, compiled to PTX by "
    "NVRTC) or auto (the samples split between both) (empty: "
    "$LLMPTX_LANGUAGE, else ptx)"> {
  let env = "LLMPTX_LANGUAGE";
  let reported = 1;
}
def LLMGen_ConfirmAboveSetting : LLMGen_IntSetting<"confirm_above",
    "confirm-above", 10,
    "a speedup above this many times the reference is selected only after a "
    "confirmation run passed (fresh inputs on every shape, a second timed "
    "input set, memcheck and racecheck); 0 confirms every candidate",
    "unsigned"> {
  let cppName = "confirmAbove";
  let reported = 1;
}
def LLMGen_FragmentsSetting : LLMGen_BoolSetting<"fragments", "fragments", 1,
    "optimize and improve prompts list the proven PTX fragments "
    "(fragments/) that apply to the kernel"> {
  let reported = 1;
}
def LLMGen_StrictSetting : LLMGen_BoolSetting<"strict", "strict", 0,
    "fail instead of falling back to the reference"> {
  let reported = 1;
}
// An option that is not given is not a default: the environment fills it.
def LLMGen_CacheSetting : LLMGen_Setting<"cache", "cache",
    "response cache use: readwrite, read or off (empty: $LLMPTX_CACHE, else "
    "readwrite)"> {
  let parameter = LLMGen_CacheModeParameter<summary>;
  let optionType = "std::string";
  let optionDefault = "\"\"";
  let storageType = "::llmptx::llm::CacheMode";
  let storageDefault = "::llmptx::llm::CacheMode::ReadWrite";
  let env = "LLMPTX_CACHE";
  let reported = 1;
}
def LLMGen_CacheDirSetting : LLMGen_StringSetting<"cache_dir", "cache-dir", "",
    "cache directory (empty: $LLMPTX_CACHE_DIR, else the user cache)"> {
  let cppName = "cacheDir";
  let env = "LLMPTX_CACHE_DIR";
}
def LLMGen_RunnerSetting : LLMGen_StringSetting<"runner", "runner", "",
    "command that runs llmptx-runner (empty: $LLMPTX_RUNNER)"> {
  let env = "LLMPTX_RUNNER";
}
def LLMGen_ReportSetting : LLMGen_StringSetting<"report", "report", "",
    "path of the JSON report (empty: none)">;
def LLMGen_EmitBundlesSetting : LLMGen_StringSetting<"emit_bundles",
    "emit-bundles", "", "directory for verification bundles (empty: none)"> {
  let cppName = "emitBundles";
}
def LLMGen_JobsSetting : LLMGen_IntSetting<"jobs", "jobs", 0,
    "model calls in flight (0: automatic)", "unsigned">;
def LLMGen_GpuJobsSetting : LLMGen_IntSetting<"gpu_jobs", "gpu-jobs", 0,
    "verification bundles in flight; 0: one runner call for all kernels "
    "after the search, N: each kernel's bundle goes to the runner as soon "
    "as its candidates compile, at most N at once", "unsigned"> {
  let cppName = "gpuJobs";
}
def LLMGen_SlotSetting : LLMGen_EnumSetting<LLMGen_Slot, "slot", "",
    "Selected", "object produced by this target"> {
  let pipeline = 0;
}
def LLMGen_AlternateSetting : LLMGen_OptionOnly<"alternate", "alternate", 1,
    "also attach the alternate slot, so the gpu.binary keeps both the "
    "selected object and the other one">;

def LLMGen_TargetSettings {
  list<LLMGen_Setting> all = [
    LLMGen_OSetting, LLMGen_ChipSetting, LLMGen_FeaturesSetting,
    LLMGen_FlagsSetting, LLMGen_FastSetting, LLMGen_FtzSetting,
    LLMGen_LinkSetting, LLMGen_ProviderSetting, LLMGen_ModelSetting,
    LLMGen_BaseUrlSetting, LLMGen_ExecCommandSetting, LLMGen_SamplesSetting,
    LLMGen_RepairsSetting, LLMGen_RoundsSetting, LLMGen_ModeSetting,
    LLMGen_VerifySetting, LLMGen_SelectSetting, LLMGen_LanguageSetting,
    LLMGen_ConfirmAboveSetting,
    LLMGen_FragmentsSetting, LLMGen_StrictSetting,
    LLMGen_CacheSetting, LLMGen_CacheDirSetting, LLMGen_RunnerSetting,
    LLMGen_ReportSetting, LLMGen_EmitBundlesSetting, LLMGen_JobsSetting,
    LLMGen_GpuJobsSetting, LLMGen_SlotSetting, LLMGen_AlternateSetting
  ];
}

/// The parameters of `#llmgen.target`, in order.
defvar LLMGen_TargetParameters =
    !filter(setting, LLMGen_TargetSettings.all, !ne(setting.name, ""));

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENSETTINGS_TD
