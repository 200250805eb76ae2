#include "mcp/result_text.h"

#include <algorithm>

namespace paddock::mcp {
namespace {

bool continues_character(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

std::string left_out_line(std::uint64_t bytes) {
  return "[... " + std::to_string(bytes) + " bytes left out here ...]\n";
}

}  // namespace

std::size_t utf8_prefix(std::string_view text, std::size_t limit) {
  if (limit >= text.size()) return text.size();
  // A character is at most 4 bytes; past 3 continuation bytes the text is not UTF-8 there.
  for (std::size_t back = 0; back < 4 && limit >= back; ++back) {
    if (!continues_character(text[limit - back])) return limit - back;
  }
  return limit;
}

std::string keep_start_and_end(std::string_view text, std::size_t cap, const InnerMarker& inner) {
  if (text.size() <= cap) return std::string(text);
  // The marker's own bytes come out of the cap too, so the result never exceeds it.
  std::size_t marker = left_out_line(text.size() + inner.stands_for).size() + 1;
  if (cap <= marker) return std::string(text.substr(0, utf8_prefix(text, cap)));
  std::size_t room = cap - marker;
  std::size_t head = utf8_prefix(text, room * 2 / 3);
  // Cut at a line's end where that keeps most of the start.
  if (auto newline = text.rfind('\n', head == 0 ? 0 : head - 1);
      newline != std::string_view::npos && newline + 1 > head / 2 && newline + 1 <= head) {
    head = newline + 1;
  }
  std::size_t tail_size = room - head;
  std::size_t tail_start = text.size() - tail_size;
  for (int step = 0; step < 3 && tail_start < text.size() && continues_character(text[tail_start]);
       ++step) {
    ++tail_start;
  }
  if (auto newline = text.find('\n', tail_start);
      newline != std::string_view::npos && newline + 1 - tail_start < tail_size / 2) {
    tail_start = newline + 1;
  }
  std::string kept(text.substr(0, head));
  if (!kept.empty() && kept.back() != '\n') kept += '\n';
  // What the cut took of an inner marker is not the stream's: what that marker stood for is.
  std::uint64_t left_out = tail_start - head;
  std::size_t inner_end = inner.offset + inner.length;
  if (inner.length > 0 && inner.offset < tail_start && inner_end > head) {
    left_out -= std::min(inner_end, tail_start) - std::max(inner.offset, head);
    left_out += inner.stands_for;
  }
  kept += left_out_line(left_out);
  kept.append(text.substr(tail_start));
  return kept;
}

void bound_result_text(ToolResult& result, std::size_t cap) {
  std::size_t total = 0;
  for (const auto& block : result.content) {
    if (block.value("type", "") == "text") total += block.value("text", "").size();
  }
  if (total <= cap) return;
  const std::string note = "[this result's text was " + std::to_string(total) +
                           " bytes: tool results are capped at " + std::to_string(cap) +
                           " bytes of text; ask for less at once to see the rest]\n";
  std::size_t budget = cap - std::min(cap, note.size() + 1);  // and a line break before it
  json* last_text = nullptr;
  for (auto& block : result.content) {
    if (block.value("type", "") != "text") continue;
    std::string text = block.value("text", "");
    std::size_t share = std::min(text.size(), budget);
    // Blocks past the budget go whole: the note below counts them.
    if (share < text.size()) text = share == 0 ? std::string() : keep_start_and_end(text, share);
    budget -= std::min(budget, text.size());
    block["text"] = std::move(text);
    last_text = &block;
  }
  if (last_text != nullptr) {
    std::string text = (*last_text)["text"].get<std::string>();
    if (!text.empty() && text.back() != '\n') text += '\n';
    (*last_text)["text"] = text + note;
  }
}

}  // namespace paddock::mcp
