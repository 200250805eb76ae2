#include "app/json_lines.h"

#include <algorithm>
#include <utility>

#include "core/json_nesting.h"

namespace paddock::app {
namespace {

// The UTF-16 unit of the four hex digits at `at`, or -1.
int hex_unit(std::string_view text, std::size_t at) {
  if (at + 4 > text.size()) return -1;
  int unit = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    char c = text[i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return -1;
    unit = unit * 16 + digit;
  }
  return unit;
}

bool high_surrogate(int unit) {
  return unit >= 0xD800 && unit <= 0xDBFF;
}
bool low_surrogate(int unit) {
  return unit >= 0xDC00 && unit <= 0xDFFF;
}

// `text` with each unpaired surrogate escape replaced by "\ufffd", which has the same length, or
// nothing when there is none.
std::optional<std::string> without_lone_surrogates(std::string_view text) {
  std::string copy(text);
  bool in_string = false, changed = false;
  for (std::size_t i = 0; i < copy.size(); ++i) {
    if (copy[i] == '"') in_string = !in_string;
    if (!in_string || copy[i] != '\\') continue;
    if (i + 1 >= copy.size() || copy[i + 1] != 'u') {
      ++i;  // an escaped character, a quote perhaps
      continue;
    }
    int unit = hex_unit(copy, i + 2);
    bool paired = high_surrogate(unit) && copy.compare(i + 6, 2, "\\u") == 0 &&
                  low_surrogate(hex_unit(copy, i + 8));
    if (paired) {
      i += 11;
    } else if (high_surrogate(unit) || low_surrogate(unit)) {
      copy.replace(i + 2, 4, "fffd");
      changed = true;
      i += 5;
    }
  }
  if (!changed) return std::nullopt;
  return copy;
}

}  // namespace

std::string_view JsonLine::message() const {
  std::string_view text = raw;
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

std::vector<JsonLine> JsonLineSplitter::feed(std::string_view bytes) {
  std::vector<JsonLine> lines;
  while (!bytes.empty()) {
    auto newline = bytes.find('\n');
    if (skipping_) {
      if (newline == std::string_view::npos) {
        skipped_ += bytes.size();
        break;
      }
      skipped_ += newline;
      lines.push_back(JsonLine{"", skipped_, true});
      skipping_ = false;
      skipped_ = 0;
      bytes.remove_prefix(newline + 1);
      continue;
    }
    std::size_t take = newline == std::string_view::npos ? bytes.size() : newline;
    std::size_t length = pending_.size() + take;
    char last = take > 0 ? bytes[take - 1] : (pending_.empty() ? '\0' : pending_.back());
    // Over the bound for certain: more than max_line + 1 bytes, or max_line + 1 whose last is not
    // the '\r' that a newline may still follow. The bytes held are let go at once.
    if (length > max_line_ + 1 || (length == max_line_ + 1 && last != '\r')) {
      skipping_ = true;
      skipped_ = pending_.size();
      pending_.clear();
      pending_.shrink_to_fit();
      continue;
    }
    pending_.append(bytes.substr(0, take));
    if (newline == std::string_view::npos) break;
    pending_ += '\n';
    lines.push_back(JsonLine{std::move(pending_), length, false});
    pending_.clear();
    bytes.remove_prefix(newline + 1);
  }
  return lines;
}

std::optional<JsonLine> JsonLineSplitter::finish() {
  if (skipping_) {
    skipping_ = false;
    return JsonLine{"", std::exchange(skipped_, 0), true};
  }
  if (pending_.empty()) return std::nullopt;
  JsonLine last{std::move(pending_) + "\n", 0, false};
  last.bytes = last.raw.size() - 1;
  pending_.clear();
  return last;
}

bool blank_line(std::string_view message) {
  return message.find_first_not_of(" \t\r") == std::string_view::npos;
}

ParsedLine parse_line(std::string_view message) {
  if (core::json_nesting_depth(message, kMaxJsonDepth) > kMaxJsonDepth) {
    return {nullptr, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
  }
  auto parsed = nlohmann::json::parse(message, nullptr, false);
  if (parsed.is_discarded()) {
    if (auto mended = without_lone_surrogates(message)) {
      parsed = nlohmann::json::parse(*mended, nullptr, false);
    }
  }
  if (parsed.is_discarded()) return {nullptr, "not valid JSON in UTF-8"};
  return {std::move(parsed), std::nullopt};
}

}  // namespace paddock::app
