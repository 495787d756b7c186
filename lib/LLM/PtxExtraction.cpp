//===- PtxExtraction.cpp - Find the PTX module in a completion ------------===//
//
// Fenced blocks are scored by how much of a PTX module they hold; among
// equals the last one wins, because models that answer twice put the
// corrected module last. Without a fence the module is cut from the first
// directive line to the last line that closes a brace.
//
//===----------------------------------------------------------------------===//

#include "llmptx/LLM/PtxExtraction.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;

namespace llmptx::llm {

namespace {

struct FencedBlock {
  std::string info; // first word of the info string, lower case
  std::string content;
  bool closed = false;
};

std::string ordinal(size_t n) {
  StringRef suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1)
      suffix = "st";
    else if (n % 10 == 2)
      suffix = "nd";
    else if (n % 10 == 3)
      suffix = "rd";
  }
  return utostr(n) + suffix.str();
}

/// Reasoning models put a draft (often with fences) inside <think> tags;
/// only the text after it is the answer.
std::string dropThinking(StringRef text, bool &dropped) {
  dropped = false;
  std::string out;
  while (true) {
    size_t open = text.find("<think>");
    if (open == StringRef::npos)
      break;
    size_t close = text.find("</think>", open);
    if (close == StringRef::npos)
      break;
    out += text.take_front(open).str();
    text = text.drop_front(close + strlen("</think>"));
    dropped = true;
  }
  out += text.str();
  return out;
}

bool isFence(StringRef trimmed, char &fenceChar, size_t &fenceLen) {
  if (!trimmed.starts_with("```") && !trimmed.starts_with("~~~"))
    return false;
  fenceChar = trimmed[0];
  fenceLen = trimmed.find_first_not_of(fenceChar);
  if (fenceLen == StringRef::npos)
    fenceLen = trimmed.size();
  return true;
}

std::vector<FencedBlock> findFencedBlocks(ArrayRef<StringRef> lines) {
  std::vector<FencedBlock> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef trimmed = lines[i].trim();
    char fenceChar;
    size_t fenceLen;
    if (!isFence(trimmed, fenceChar, fenceLen))
      continue;
    FencedBlock block;
    StringRef info = trimmed.drop_front(fenceLen).trim();
    block.info = info.take_until([](char c) { return isSpace(c); }).lower();
    std::string content;
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      StringRef inner = lines[j].trim();
      char innerChar;
      size_t innerLen;
      if (isFence(inner, innerChar, innerLen) && innerChar == fenceChar &&
          innerLen >= fenceLen && inner.size() == innerLen) {
        block.closed = true;
        break;
      }
      content += lines[j].str();
      content += "\n";
    }
    block.content = std::move(content);
    blocks.push_back(std::move(block));
    i = j;
  }
  return blocks;
}

int ptxScore(const FencedBlock &block) {
  StringRef content = block.content;
  int score = 0;
  if (content.contains(".entry"))
    score += 4;
  if (content.contains(".version"))
    score += 2;
  if (content.contains(".target"))
    score += 1;
  if (block.info == "ptx")
    score += 2;
  return score;
}

bool isCandidate(const FencedBlock &block) {
  StringRef content = block.content;
  return content.contains(".entry") || content.contains(".func") ||
         (block.info == "ptx" && !content.trim().empty());
}

bool startsModule(StringRef trimmed) {
  for (StringRef directive :
       {".version", ".target", ".address_size", ".visible", ".entry", ".func",
        ".global", ".extern", ".const", ".shared"})
    if (trimmed.starts_with(directive))
      return true;
  return false;
}

/// Cuts the PTX module out of text without fences.
ExtractedAnswer extractUnfenced(ArrayRef<StringRef> lines) {
  ExtractedAnswer result;
  size_t start = lines.size();
  for (size_t i = 0; i < lines.size() && start == lines.size(); ++i)
    if (lines[i].trim().starts_with(".version"))
      start = i;
  for (size_t i = 0; i < lines.size() && start == lines.size(); ++i)
    if (startsModule(lines[i].trim()))
      start = i;
  if (start == lines.size()) {
    result.note = "no fenced block and no PTX directive (.version, .entry) "
                  "in the answer";
    return result;
  }
  // A comment block right above the first directive belongs to the module.
  while (start > 0 && lines[start - 1].trim().starts_with("//"))
    --start;
  size_t end = lines.size();
  for (size_t i = lines.size(); i > start; --i)
    if (lines[i - 1].trim().starts_with("}")) {
      end = i;
      break;
    }
  bool closed = end != lines.size() || lines.back().trim().starts_with("}");
  std::string ptx;
  for (size_t i = start; i < end; ++i) {
    ptx += lines[i].str();
    ptx += "\n";
  }
  if (!StringRef(ptx).contains(".entry") && !StringRef(ptx).contains(".func")) {
    result.note = "no fenced block and no .entry or .func in the answer";
    return result;
  }
  result.found = true;
  result.code = std::move(ptx);
  result.note = "no fenced block; took lines " + utostr(start + 1) + "-" +
                utostr(end) + " of " + utostr(lines.size());
  if (!closed)
    result.note += "; no closing brace (answer cut off?)";
  return result;
}

/// The answer's text without CRs and <think> sections, as lines.
struct AnswerText {
  std::string text;
  SmallVector<StringRef, 0> lines;
  bool droppedThinking = false;
  std::vector<FencedBlock> blocks;
  std::optional<std::string> launch;

  explicit AnswerText(StringRef completion) {
    std::string normalized;
    normalized.reserve(completion.size());
    for (size_t i = 0; i < completion.size(); ++i)
      if (!(completion[i] == '\r' && i + 1 < completion.size() &&
            completion[i + 1] == '\n'))
        normalized += completion[i];
    text = dropThinking(normalized, droppedThinking);
    StringRef(text).split(lines, '\n');
    // A trailing newline yields an empty last line that is not part of the
    // answer.
    if (!lines.empty() && lines.back().empty())
      lines.pop_back();
    blocks = findFencedBlocks(lines);
    for (const FencedBlock &block : blocks)
      if (block.info == "launch")
        launch = block.content;
  }
};

/// "took the only fenced block", "took the 2nd of 3 fenced blocks".
std::string tookBlock(const std::vector<FencedBlock> &blocks, size_t index) {
  std::string note = blocks.size() == 1
                         ? std::string("took the only fenced block")
                         : "took the " + ordinal(index + 1) + " of " +
                               utostr(blocks.size()) + " fenced blocks";
  if (!blocks[index].closed)
    note += "; the block is not closed (answer cut off?)";
  return note;
}

} // namespace

ExtractedAnswer extractPtx(StringRef completion) {
  AnswerText answer(completion);
  const std::vector<FencedBlock> &blocks = answer.blocks;
  ArrayRef<StringRef> lines = answer.lines;
  ExtractedAnswer result;
  if (!blocks.empty()) {
    int best = -1;
    for (size_t i = 0; i < blocks.size(); ++i)
      if (isCandidate(blocks[i]) &&
          (best < 0 || ptxScore(blocks[i]) >= ptxScore(blocks[best])))
        best = static_cast<int>(i);
    if (best >= 0) {
      result.found = true;
      result.code = blocks[best].content;
      result.note = tookBlock(blocks, best);
    } else {
      // The fences hold something else (a launch snippet); the module may
      // still be in the prose around them.
      result = extractUnfenced(lines);
      if (!result.found)
        result.note = "none of the " + utostr(blocks.size()) +
                      " fenced blocks holds a PTX module (no .entry) and " +
                      result.note;
    }
  } else {
    result = extractUnfenced(lines);
  }
  if (answer.droppedThinking)
    result.note += "; ignored the <think> section";
  result.launch = std::move(answer.launch);
  return result;
}

ExtractedAnswer extractCuda(StringRef completion) {
  AnswerText answer(completion);
  const std::vector<FencedBlock> &blocks = answer.blocks;
  auto tagged = [](const FencedBlock &block) {
    return block.info == "cuda" || block.info == "cu" || block.info == "cpp" ||
           block.info == "c++";
  };
  int best = -1;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (StringRef(blocks[i].content).contains("__global__") &&
        (best < 0 || tagged(blocks[i]) || !tagged(blocks[best])))
      best = static_cast<int>(i);
  ExtractedAnswer result;
  if (best >= 0) {
    result.found = true;
    result.code = blocks[best].content;
    result.note = tookBlock(blocks, best);
  } else {
    result.note = blocks.empty()
                      ? "no fenced block in the answer"
                      : "none of the " + utostr(blocks.size()) +
                            " fenced blocks defines a __global__ kernel";
  }
  if (answer.droppedThinking)
    result.note += "; ignored the <think> section";
  result.launch = std::move(answer.launch);
  return result;
}

} // namespace llmptx::llm
