//===- PtxIsa.cpp - Tables of PTX ISA facts ---------------------*- C++ -*-===//
//
// Facts from the PTX ISA manual (up to ISA 9.0 / CUDA 13.0), checked against
// CUDA 13.0's ptxas where noted in docs/ptx-toolkit.md. Each table is a plain
// array: to teach the lint a new instruction or chip, add a row.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/PtxIsa.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cctype>

using namespace llmptx::ptx;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Chips and versions
//===----------------------------------------------------------------------===//

std::optional<Chip> llmptx::ptx::parseChip(StringRef name) {
  if (!name.consume_front("sm_"))
    return std::nullopt;
  Chip chip;
  if (name.consume_back("a"))
    chip.archSpecific = true;
  else if (name.consume_back("f"))
    chip.familySpecific = true;
  if (name.empty() || name.getAsInteger(10, chip.sm))
    return std::nullopt;
  return chip;
}

namespace {
struct ChipRow {
  unsigned sm;
  unsigned minPtx;       ///< plain sm_XX
  unsigned minPtxArch;   ///< sm_XXa (0 = no such target)
  unsigned minPtxFamily; ///< sm_XXf (0 = no such target)
};
// PTX ISA "Target ISA notes"; each pairing checked with CUDA 13.0 ptxas
// ("PTX .version 7.7 does not support .target sm_90").
constexpr ChipRow ChipTable[] = {
    {50, 40, 0, 0},    {52, 41, 0, 0},    {53, 42, 0, 0},    {60, 50, 0, 0},
    {61, 50, 0, 0},    {62, 50, 0, 0},    {70, 60, 0, 0},    {72, 61, 0, 0},
    {75, 63, 0, 0},    {80, 70, 0, 0},    {86, 71, 0, 0},    {87, 74, 0, 0},
    {88, 90, 0, 0},    {89, 78, 0, 0},    {90, 78, 80, 0},   {100, 86, 86, 88},
    {101, 86, 86, 88}, {103, 88, 88, 88}, {110, 90, 90, 90}, {120, 87, 87, 88},
    {121, 88, 88, 88},
};

struct VersionRow {
  unsigned ptx;
  unsigned cuda;
};
constexpr VersionRow VersionTable[] = {
    {40, 60},  {41, 65},  {42, 70},  {43, 75},  {50, 80},  {60, 90},
    {61, 91},  {62, 92},  {63, 100}, {64, 101}, {65, 102}, {70, 110},
    {71, 111}, {72, 112}, {73, 113}, {74, 114}, {75, 115}, {76, 116},
    {77, 117}, {78, 118}, {80, 120}, {81, 121}, {82, 122}, {83, 123},
    {84, 124}, {85, 125}, {86, 127}, {87, 128}, {88, 129}, {90, 130},
};
} // namespace

std::optional<unsigned> llmptx::ptx::minPtxVersionForChip(const Chip &chip) {
  for (const ChipRow &row : ChipTable) {
    if (row.sm != chip.sm)
      continue;
    unsigned v = chip.archSpecific     ? row.minPtxArch
                 : chip.familySpecific ? row.minPtxFamily
                                       : row.minPtx;
    if (v == 0)
      return std::nullopt;
    return v;
  }
  return std::nullopt;
}

std::optional<unsigned> llmptx::ptx::cudaReleaseForPtxVersion(unsigned v) {
  for (const VersionRow &row : VersionTable)
    if (row.ptx == v)
      return row.cuda;
  return std::nullopt;
}

unsigned llmptx::ptx::newestKnownPtxVersion() {
  return std::end(VersionTable)[-1].ptx;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

std::optional<ScalarType> llmptx::ptx::parseScalarType(StringRef type) {
  if (!type.consume_front("."))
    return std::nullopt;
  if (type == "pred")
    return ScalarType{TypeKind::Predicate, 1};
  unsigned lanes = 1;
  // Packed types: .f16x2, .bf16x2, .u16x2, .f32x2, .e4m3x2 ...
  if (type.size() > 2 && type.ends_with("x2")) {
    lanes = 2;
    type = type.drop_back(2);
  } else if (type.size() > 2 && type.ends_with("x4")) {
    lanes = 4;
    type = type.drop_back(2);
  }
  TypeKind kind;
  StringRef digits;
  if (type.starts_with("bf")) {
    kind = TypeKind::Float;
    digits = type.drop_front(2);
  } else if (type == "tf32") {
    return ScalarType{TypeKind::Other, 32 * lanes};
  } else if (type == "e4m3" || type == "e5m2" || type == "ue8m0") {
    return ScalarType{TypeKind::Other, 8 * lanes};
  } else if (type == "e2m1" || type == "e2m3" || type == "e3m2") {
    return ScalarType{TypeKind::Other, (type == "e2m1" ? 4u : 6u) * lanes};
  } else if (!type.empty() && (type[0] == 'b' || type[0] == 'u' ||
                               type[0] == 's' || type[0] == 'f')) {
    kind = type[0] == 'b'   ? TypeKind::Bits
           : type[0] == 'u' ? TypeKind::Unsigned
           : type[0] == 's' ? TypeKind::Signed
                            : TypeKind::Float;
    digits = type.drop_front(1);
  } else {
    return std::nullopt;
  }
  unsigned bits = 0;
  if (digits.getAsInteger(10, bits))
    return std::nullopt;
  bool valid = false;
  switch (kind) {
  case TypeKind::Bits:
    valid = bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 128;
    break;
  case TypeKind::Signed:
  case TypeKind::Unsigned:
    valid = bits == 8 || bits == 16 || bits == 32 || bits == 64;
    break;
  case TypeKind::Float:
    valid = bits == 16 || bits == 32 || bits == 64;
    break;
  default:
    break;
  }
  if (!valid)
    return std::nullopt;
  return ScalarType{kind, bits * lanes};
}

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

namespace {
using S = OperandShape;
// Every base opcode of PTX ISA 9.0, with the operand shape the lint checks.
constexpr OpcodeInfo OpcodeTable[] = {
    // Integer and floating-point arithmetic.
    {"add", S::AllSame},
    {"sub", S::AllSame},
    {"addc", S::AllSame},
    {"subc", S::AllSame},
    {"mul", S::Wide},
    {"mad", S::Wide},
    {"madc", S::Wide},
    {"mul24", S::AllSame},
    {"mad24", S::AllSame},
    {"sad", S::AllSame},
    {"div", S::AllSame},
    {"rem", S::AllSame},
    {"abs", S::AllSame},
    {"neg", S::AllSame},
    {"min", S::AllSame},
    {"max", S::AllSame},
    {"popc", S::CountBits},
    {"clz", S::CountBits},
    {"bfind", S::CountBits},
    {"fns", S::Unchecked},
    {"brev", S::AllSame},
    {"bfe", S::BitField},
    {"bfi", S::BitInsert},
    {"szext", S::Unchecked},
    {"bmsk", S::Unchecked},
    {"dp4a", S::Unchecked},
    {"dp2a", S::Unchecked},
    {"testp", S::Unchecked},
    {"copysign", S::AllSame},
    {"fma", S::AllSame},
    {"rcp", S::AllSame},
    {"sqrt", S::AllSame},
    {"rsqrt", S::AllSame},
    {"sin", S::AllSame},
    {"cos", S::AllSame},
    {"lg2", S::AllSame},
    {"ex2", S::AllSame},
    {"tanh", S::AllSame},
    // Comparison and selection.
    {"set", S::Unchecked},
    {"setp", S::SetPredicate},
    {"selp", S::Select},
    {"slct", S::Unchecked},
    // Logic and shift.
    {"and", S::AllSame},
    {"or", S::AllSame},
    {"xor", S::AllSame},
    {"not", S::AllSame},
    {"cnot", S::AllSame},
    {"lop3", S::Unchecked},
    {"shf", S::Unchecked},
    {"shl", S::Shift},
    {"shr", S::Shift},
    // Data movement and conversion.
    {"mov", S::Move},
    {"shfl", S::Unchecked},
    {"prmt", S::AllSame},
    {"ld", S::Load},
    {"ldu", S::Load},
    {"st", S::Store},
    {"multimem", S::Unchecked},
    {"prefetch", S::Unchecked},
    {"prefetchu", S::Unchecked},
    {"applypriority", S::Unchecked},
    {"discard", S::Unchecked},
    {"createpolicy", S::Unchecked},
    {"isspacep", S::Unchecked},
    {"cvta", S::Unchecked},
    {"cvt", S::Convert},
    {"mapa", S::Unchecked},
    {"getctarank", S::Unchecked},
    {"cp", S::Unchecked},
    {"tensormap", S::Unchecked},
    {"ldmatrix", S::Unchecked},
    {"stmatrix", S::Unchecked},
    {"movmatrix", S::Unchecked},
    {"alloca", S::Unchecked},
    {"stacksave", S::Unchecked},
    {"stackrestore", S::Unchecked},
    // Texture and surface.
    {"tex", S::Unchecked},
    {"tld4", S::Unchecked},
    {"txq", S::Unchecked},
    {"istypep", S::Unchecked},
    {"suld", S::Unchecked},
    {"sust", S::Unchecked},
    {"sured", S::Unchecked},
    {"suq", S::Unchecked},
    // Control flow.
    {"bra", S::Unchecked},
    {"brx", S::Unchecked},
    {"call", S::Unchecked},
    {"ret", S::Unchecked},
    {"exit", S::Unchecked},
    // Synchronization and communication.
    {"bar", S::Unchecked},
    {"barrier", S::Unchecked},
    {"membar", S::Unchecked},
    {"fence", S::Unchecked},
    {"atom", S::Atomic},
    {"red", S::Reduce},
    {"vote", S::Unchecked},
    {"match", S::Unchecked},
    {"activemask", S::Unchecked},
    {"redux", S::Unchecked},
    {"elect", S::Unchecked},
    {"mbarrier", S::Unchecked},
    {"griddepcontrol", S::Unchecked},
    {"nanosleep", S::Unchecked},
    {"setmaxnreg", S::Unchecked},
    {"clusterlaunchcontrol", S::Unchecked},
    // Matrix multiply-accumulate.
    {"wmma", S::Unchecked},
    {"mma", S::Unchecked},
    {"wgmma", S::Unchecked},
    {"tcgen05", S::Unchecked},
    // Video (SIMD) instructions.
    {"vadd", S::Unchecked},
    {"vsub", S::Unchecked},
    {"vabsdiff", S::Unchecked},
    {"vmin", S::Unchecked},
    {"vmax", S::Unchecked},
    {"vshl", S::Unchecked},
    {"vshr", S::Unchecked},
    {"vmad", S::Unchecked},
    {"vset", S::Unchecked},
    {"vadd2", S::Unchecked},
    {"vsub2", S::Unchecked},
    {"vavrg2", S::Unchecked},
    {"vabsdiff2", S::Unchecked},
    {"vmin2", S::Unchecked},
    {"vmax2", S::Unchecked},
    {"vset2", S::Unchecked},
    {"vadd4", S::Unchecked},
    {"vsub4", S::Unchecked},
    {"vavrg4", S::Unchecked},
    {"vabsdiff4", S::Unchecked},
    {"vmin4", S::Unchecked},
    {"vmax4", S::Unchecked},
    {"vset4", S::Unchecked},
    // Miscellaneous.
    {"trap", S::Unchecked},
    {"brkpt", S::Unchecked},
    {"pmevent", S::Unchecked},
};

const llvm::StringMap<const OpcodeInfo *> &opcodeMap() {
  static const llvm::StringMap<const OpcodeInfo *> map = [] {
    llvm::StringMap<const OpcodeInfo *> m;
    for (const OpcodeInfo &info : OpcodeTable)
      m[info.name] = &info;
    return m;
  }();
  return map;
}
} // namespace

const OpcodeInfo *llmptx::ptx::lookupOpcode(StringRef baseOpcode) {
  const auto &map = opcodeMap();
  auto it = map.find(baseOpcode);
  return it == map.end() ? nullptr : it->second;
}

StringRef llmptx::ptx::suggestOpcode(StringRef baseOpcode) {
  StringRef best;
  unsigned bestDistance = 3;
  for (const OpcodeInfo &info : OpcodeTable) {
    unsigned d = baseOpcode.edit_distance(info.name, true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = info.name;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Modifiers
//===----------------------------------------------------------------------===//

namespace {
constexpr StringRef StateSpaces[] = {
    ".global",       ".shared",      ".local",       ".const",
    ".param",        ".generic",     ".shared::cta", ".shared::cluster",
    ".param::entry", ".param::func", ".tex",         ".surf"};

// Modifiers of PTX ISA 9.0 instructions (types are recognised separately).
constexpr StringRef ModifierTable[] = {
    // Rounding, saturation, special behaviour.
    ".rn",
    ".rz",
    ".rm",
    ".rp",
    ".rni",
    ".rzi",
    ".rmi",
    ".rpi",
    ".rna",
    ".rs",
    ".ftz",
    ".sat",
    ".approx",
    ".full",
    ".relu",
    ".satfinite",
    ".nan",
    ".NaN",
    ".xorsign",
    ".abs",
    ".oob",
    ".noftz",
    ".cc",
    ".lo",
    ".hi",
    ".wide",
    ".uni",
    ".aligned",
    ".sync",
    ".warp", // bar.warp.sync
    ".to",
    ".shiftamt",
    ".clamp",
    ".wrap",
    ".mode",
    ".l",
    ".r",
    ".f4e",
    ".b4e",
    ".rc8",
    ".ecl",
    ".ecr",
    ".rc16",
    ".pack",
    ".unpack",
    ".finite",
    ".infinite",
    ".number",
    ".notanumber",
    ".normal",
    ".subnormal",
    ".bf16x2",
    // Comparison and boolean operators.
    ".eq",
    ".ne",
    ".lt",
    ".le",
    ".gt",
    ".ge",
    ".ls",
    ".hs",
    ".equ",
    ".neu",
    ".ltu",
    ".leu",
    ".gtu",
    ".geu",
    ".num",
    ".and",
    ".or",
    ".xor",
    // Memory consistency, scopes and caching.
    ".weak",
    ".volatile",
    ".relaxed",
    ".acquire",
    ".release",
    ".acq_rel",
    ".sc",
    ".mmio",
    ".cta",
    ".cluster",
    ".gpu",
    ".sys",
    ".gl",
    ".nc",
    ".ca",
    ".cg",
    ".cs",
    ".lu",
    ".cv",
    ".wb",
    ".wt",
    ".unified",
    ".L1",
    ".L2",
    ".level",
    ".proxy",
    ".alias",
    ".async",
    ".tensormap",
    ".bulk",
    ".mbarrier_init",
    ".L1::evict_normal",
    ".L1::evict_unchanged",
    ".L1::evict_first",
    ".L1::evict_last",
    ".L1::no_allocate",
    ".L2::evict_first",
    ".L2::evict_last",
    ".L2::evict_normal",
    ".L2::evict_unchanged",
    ".L2::cache_hint",
    ".L2::64B",
    ".L2::128B",
    ".L2::256B",
    ".fractional",
    ".range",
    // Vectors and shapes.
    ".v2",
    ".v4",
    ".v8",
    ".x1",
    ".x2",
    ".x4",
    ".x8",
    ".x16",
    ".x32",
    ".x64",
    ".x128",
    ".1d",
    ".2d",
    ".3d",
    ".4d",
    ".5d",
    ".a1d",
    ".a2d",
    ".cube",
    ".acube",
    ".2dms",
    ".a2dms",
    ".row",
    ".col",
    ".trans",
    // wmma.load.a / wmma.store.d: the operation and the fragment.
    ".load",
    ".store",
    ".c",
    ".d",
    // Atomic and reduction operations.
    ".add",
    ".inc",
    ".dec",
    ".min",
    ".max",
    ".exch",
    ".cas",
    ".popc",
    // Warp-level operations.
    ".up",
    ".down",
    ".bfly",
    ".idx",
    ".all",
    ".any",
    ".ballot",
    ".red",
    ".arrive",
    ".arrive_drop",
    ".expect_tx",
    ".complete_tx",
    ".test_wait",
    ".try_wait",
    ".pending_count",
    ".init",
    ".inval",
    ".noComplete",
    ".parity",
    ".launch_dependents",
    ".wait",
    ".inc",
    ".dec",
    // Asynchronous copies and tensor-core operations.
    ".commit_group",
    ".wait_group",
    ".wait_all",
    ".read",
    ".tensor",
    ".tile",
    ".im2col",
    ".im2col_no_offs",
    ".prefetch",
    ".reduce",
    ".noinc",
    ".bulk_group",
    ".fence",
    ".mma_async",
    ".sp",
    ".mma",
    ".alloc",
    ".dealloc",
    ".relinquish_alloc_permit",
    ".ld",
    ".st",
    ".commit",
    ".cp",
    ".shift",
    ".load_sync",
    ".store_sync",
    ".base",
    ".level",
    ".grad",
    ".b",
    ".trap",
    ".zero",
    ".ld_reduce",
    ".m8n8",
    ".m16n16",
    ".m8n16",
    ".m16n8",
    ".m8n32",
    ".m32n8",
    ".m16n8k8",
    ".m16n8k16",
    ".m16n8k32",
    ".m16n8k64",
    ".m16n8k128",
    ".m16n8k256",
    ".m8n8k4",
    ".m8n8k16",
    ".m8n8k32",
    ".m8n8k128",
    ".m16n16k16",
    ".m16n16k8",
    ".m32n8k16",
    ".m8n32k16",
    ".m16n8k4",
    ".block_scale",
    ".scale_vec::1X",
    ".scale_vec::2X",
    ".scale_vec::4X",
    ".replace",
    ".global_address",
    ".rank",
    ".box_dim",
    ".global_dim",
    ".global_stride",
    ".element_stride",
    ".elemtype",
    ".interleave_layout",
    ".swizzle_mode",
    ".fill_mode",
    ".is_canceled",
    ".query_cancel",
    ".try_cancel",
    ".get_first_ctaid",
    ".decoupled",
    ".uniform",
    ".collector",
    ".ws",
    ".pack::16b",
    ".unpack::16b",
    ".and",
    ".ballot",
    // Texture, surface, misc.
    ".4",
    ".r",
    ".g",
    ".a",
    ".width",
    ".height",
    ".depth",
    ".channel_data_type",
    ".channel_order",
    ".normalized_coords",
    ".filter_mode",
    ".addr_mode_0",
    ".addr_mode_1",
    ".addr_mode_2",
    ".array_size",
    ".num_mipmap_levels",
    ".num_samples",
    ".force_unnormalized_coords",
    ".texref",
    ".samplerref",
    ".surfref",
};

// Prefixes before "::" that introduce parameterised modifiers
// (".mbarrier::complete_tx::bytes", ".cta_group::1", ".kind::f16").
constexpr StringRef QualifiedPrefixes[] = {
    ".shared",
    ".param",
    ".L1",
    ".L2",
    ".mbarrier",
    ".multicast",
    ".cta_group",
    ".kind",
    ".level",
    ".im2col",
    ".tile",
    ".async",
    ".bulk",
    ".release",
    ".acquire",
    ".scale_vec",
    ".pack",
    ".unpack",
    ".collector",
    ".sem",
    ".scope",
    ".space",
    ".proxy",
    ".global",
    ".cluster",
    ".cta",
    ".gpu",
    ".sys",
    ".prefetch",
    ".read",
    ".eviction_priority",
};

const llvm::StringSet<> &modifierSet() {
  static const llvm::StringSet<> set = [] {
    llvm::StringSet<> s;
    for (StringRef m : ModifierTable)
      s.insert(m);
    for (StringRef m : StateSpaces)
      s.insert(m);
    return s;
  }();
  return set;
}

bool allDigits(StringRef s) {
  return !s.empty() && llvm::all_of(s, [](char c) { return std::isdigit(c); });
}

/// Shapes with numbers: .m64n128k16, .v16, .x2, .2d.
bool isNumberedShape(StringRef m) {
  StringRef body = m.drop_front(1);
  if ((body.starts_with("v") || body.starts_with("x")) &&
      allDigits(body.drop_front(1)))
    return true;
  if (body.size() == 2 && std::isdigit(body[0]) && body[1] == 'd')
    return true;
  if (body.starts_with("m")) {
    // m<digits>n<digits>[k<digits>]
    StringRef rest = body.drop_front(1);
    size_t n = rest.find('n');
    if (n == StringRef::npos || !allDigits(rest.take_front(n)))
      return false;
    rest = rest.drop_front(n + 1);
    size_t k = rest.find('k');
    if (k == StringRef::npos)
      return allDigits(rest);
    return allDigits(rest.take_front(k)) && allDigits(rest.drop_front(k + 1));
  }
  // Bit-width selectors of tcgen05.ld/st: .16x64b, .32x32b, .16x256b.
  size_t x = body.find('x');
  if (x != StringRef::npos && allDigits(body.take_front(x)) &&
      body.ends_with("b") && allDigits(body.slice(x + 1, body.size() - 1)))
    return true;
  return false;
}
} // namespace

bool llmptx::ptx::isKnownModifier(StringRef modifier) {
  if (modifierSet().contains(modifier) || isTypeName(modifier) ||
      isNumberedShape(modifier))
    return true;
  size_t colons = modifier.find("::");
  if (colons != StringRef::npos) {
    StringRef prefix = modifier.take_front(colons);
    for (StringRef p : QualifiedPrefixes)
      if (p == prefix)
        return true;
  }
  return false;
}

bool llmptx::ptx::isStateSpace(StringRef modifier) {
  for (StringRef s : StateSpaces)
    if (s == modifier)
      return true;
  return false;
}

StringRef llmptx::ptx::suggestModifier(StringRef modifier) {
  StringRef best;
  unsigned bestDistance = modifier.size() <= 4 ? 2 : 3;
  auto consider = [&](StringRef candidate) {
    unsigned d = modifier.edit_distance(candidate, true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  };
  for (StringRef s : StateSpaces)
    consider(s);
  for (StringRef m : ModifierTable)
    consider(m);
  static constexpr StringRef Types[] = {
      ".b8",  ".b16",  ".b32",  ".b64",   ".u8",  ".u16", ".u32",
      ".u64", ".s8",   ".s16",  ".s32",   ".s64", ".f16", ".f32",
      ".f64", ".pred", ".bf16", ".f16x2", ".b128"};
  for (StringRef t : Types)
    consider(t);
  return best;
}

//===----------------------------------------------------------------------===//
// Requirements
//===----------------------------------------------------------------------===//

namespace {
// Opcode prefixes and modifiers that need a newer chip or PTX ISA version
// (PTX ISA "Target ISA notes" / "PTX ISA notes" of each instruction).
// More specific prefixes come first; all matching rows are checked.
constexpr FeatureRequirement RequirementTable[] = {
    {"wgmma", 90, 80, true},
    {"setmaxnreg", 90, 80, true},
    {"tcgen05", 100, 86, true},
    {"tensormap.replace", 90, 83, true},
    {"cp.async.bulk", 90, 80, false},
    {"cp.reduce.async.bulk", 90, 80, false},
    {"cp.async", 80, 70, false},
    {"mbarrier.try_wait", 90, 78, false},
    {"mbarrier.expect_tx", 90, 80, false},
    {"mbarrier", 80, 70, false},
    {"elect.sync", 90, 80, false},
    {"griddepcontrol", 90, 78, false},
    {"fence.proxy.async", 90, 80, false},
    {"fence.proxy.tensormap", 90, 83, false},
    {"stmatrix", 90, 78, false},
    {"ldmatrix", 75, 65, false},
    {"movmatrix", 75, 78, false},
    {"redux.sync", 80, 70, false},
    {"mapa", 90, 78, false},
    {"getctarank", 90, 78, false},
    {"barrier.cluster", 90, 78, false},
    {"multimem", 90, 81, false},
    {"st.async", 90, 81, false},
    {"red.async", 90, 81, false},
    {"st.bulk", 100, 86, false},
    {"clusterlaunchcontrol", 100, 86, false},
    {"nanosleep", 70, 63, false},
    {"match.sync", 70, 60, false},
    {"activemask", 70, 62, false},
    {"wmma", 70, 60, false},
    {"mma", 70, 64, false},
    // Modifiers (matched anywhere in the opcode).
    {".e4m3", 89, 78, false},
    {".e5m2", 89, 78, false},
    {".e4m3x2", 89, 78, false},
    {".e5m2x2", 89, 78, false},
    {".e2m1x2", 100, 86, true},
    {".bf16", 80, 70, false},
    {".bf16x2", 80, 70, false},
    {".tf32", 80, 70, false},
    {".shared::cluster", 90, 78, false},
    {".multicast::cluster", 90, 80, false},
    {".f32x2", 100, 86, false},
};

bool opcodeHasModifier(StringRef opcode, StringRef modifier) {
  size_t pos = 0;
  while ((pos = opcode.find(modifier, pos)) != StringRef::npos) {
    size_t end = pos + modifier.size();
    if (end == opcode.size() || opcode[end] == '.')
      return true;
    pos = end;
  }
  return false;
}
} // namespace

const FeatureRequirement *llmptx::ptx::findRequirement(StringRef opcode,
                                                       const Chip &chip,
                                                       unsigned ptx,
                                                       std::string &why) {
  for (const FeatureRequirement &req : RequirementTable) {
    bool matches =
        req.pattern.starts_with(".")
            ? opcodeHasModifier(opcode, req.pattern)
            : (opcode == req.pattern || (opcode.starts_with(req.pattern) &&
                                         opcode.size() > req.pattern.size() &&
                                         opcode[req.pattern.size()] == '.'));
    if (!matches)
      continue;
    if (chip.sm != 0 && chip.sm < req.minSm) {
      why = "needs sm_" + std::to_string(req.minSm) +
            (req.needsArchSpecific ? "a" : "") + " or newer";
      return &req;
    }
    if (chip.sm != 0 && req.needsArchSpecific && !chip.archSpecific &&
        chip.sm == req.minSm) {
      why = "needs the architecture-specific target sm_" +
            std::to_string(chip.sm) + "a";
      return &req;
    }
    if (ptx != 0 && req.minPtx != 0 && ptx < req.minPtx) {
      why = "needs PTX ISA " + std::to_string(req.minPtx / 10) + "." +
            std::to_string(req.minPtx % 10) + " or newer";
      return &req;
    }
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Special registers and directives
//===----------------------------------------------------------------------===//

std::optional<unsigned> llmptx::ptx::specialRegisterBits(StringRef name,
                                                         unsigned *minSm) {
  if (minSm)
    *minSm = 0;
  StringRef base = name;
  StringRef component;
  size_t dot = name.find('.');
  if (dot != StringRef::npos) {
    base = name.take_front(dot);
    component = name.drop_front(dot + 1);
    if (component != "x" && component != "y" && component != "z")
      return std::nullopt;
  }
  bool hasComponents = llvm::StringSwitch<bool>(base)
                           .Cases({"%tid", "%ntid", "%ctaid", "%nctaid"}, true)
                           .Cases({"%clusterid", "%nclusterid"}, true)
                           .Cases({"%cluster_ctaid", "%cluster_nctaid"}, true)
                           .Default(false);
  if (!component.empty() && !hasComponents)
    return std::nullopt;
  if (hasComponents) {
    if (minSm && base.contains("cluster"))
      *minSm = 90;
    return component.empty() ? 128u : 32u;
  }
  if (base.consume_front("%envreg"))
    return allDigits(base) ? std::optional<unsigned>(32) : std::nullopt;
  if (base.starts_with("%pm") && base.size() >= 4 && std::isdigit(base[3]))
    return base.ends_with("_64") ? 64u : 32u;
  std::optional<unsigned> bits =
      llvm::StringSwitch<std::optional<unsigned>>(base)
          .Cases({"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid"}, 32u)
          .Cases({"%lanemask_eq", "%lanemask_le", "%lanemask_lt"}, 32u)
          .Cases({"%lanemask_ge", "%lanemask_gt"}, 32u)
          .Cases({"%clock", "%clock_hi", "%globaltimer_lo"}, 32u)
          .Case("%globaltimer_hi", 32u)
          .Cases({"%clock64", "%globaltimer", "%gridid"}, 64u)
          .Cases({"%total_smem_size", "%dynamic_smem_size"}, 32u)
          .Cases({"%aggr_smem_size", "%reserved_smem_offset_begin"}, 32u)
          .Cases({"%reserved_smem_offset_end", "%reserved_smem_offset_cap"},
                 32u)
          .Cases({"%reserved_smem_offset_0", "%reserved_smem_offset_1"}, 32u)
          .Case("%current_graph_exec", 64u)
          .Cases({"%cluster_ctarank", "%cluster_nctarank"}, 32u)
          .Case("%is_explicit_cluster", 1u)
          .Default(std::nullopt);
  if (bits && minSm &&
      (base.starts_with("%cluster_") || base == "%is_explicit_cluster"))
    *minSm = 90;
  return bits;
}

bool llmptx::ptx::isTimerRegister(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"%clock", "%clock64", "%clock_hi", "%globaltimer"}, true)
      .Cases({"%globaltimer_lo", "%globaltimer_hi"}, true)
      .Default(false);
}

bool llmptx::ptx::isKnownDirective(StringRef directive) {
  return llvm::StringSwitch<bool>(directive)
      .Cases({".version", ".target", ".address_size", ".file", ".loc"}, true)
      .Cases({".section", ".pragma", ".alias", ".entry", ".func"}, true)
      .Cases({".visible", ".extern", ".weak", ".common", ".reg"}, true)
      .Cases({".global", ".const", ".shared", ".local", ".param"}, true)
      .Cases({".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm"}, true)
      .Cases({".maxnreg", ".noreturn", ".callprototype", ".calltargets"}, true)
      .Cases({".reqnctapercluster", ".explicitcluster", ".maxclusterrank"},
             true)
      .Cases({".branchtargets", ".tex", ".texref", ".samplerref"}, true)
      .Cases({".surfref", ".blocksareclusters", ".abi_preserve"}, true)
      .Case(".abi_preserve_control", true)
      .Default(false);
}

std::pair<StringRef, StringRef>
llmptx::ptx::splitRegisterIndex(StringRef name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
    --i;
  StringRef digits = name.drop_front(i);
  if (digits.empty() || i == 0 || (digits.size() > 1 && digits[0] == '0'))
    return {name, StringRef()};
  return {name.take_front(i), digits};
}
