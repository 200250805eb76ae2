#include "language/screening_regex.h"

#include <re2/re2.h>

namespace paddock::language {

core::Result<ScreeningRegex> ScreeningRegex::compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_never_nl(false);
  options.set_dot_nl(false);
  // (?m): ^ and $ at each line's start and end, as rules written for one line at a time expect.
  auto regex = std::make_shared<const RE2>("(?m)" + pattern, options);
  if (!regex->ok()) return core::invalid_input("invalid regex (" + regex->error() + ")");
  ScreeningRegex compiled;
  compiled.regex_ = std::move(regex);
  return compiled;
}

std::vector<ScreeningRegex::Span> ScreeningRegex::find(std::string_view text, std::size_t from,
                                                       int groups) const {
  int wanted = std::min(groups, regex_->NumberOfCapturingGroups()) + 1;
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(wanted));
  re2::StringPiece whole(text.data(), text.size());
  if (from > text.size() ||
      !regex_->Match(whole, from, text.size(), RE2::UNANCHORED, pieces.data(), wanted)) {
    return {};
  }
  std::vector<Span> spans;
  for (const auto& piece : pieces) {
    if (piece.data() == nullptr) {
      spans.push_back({});
      continue;
    }
    auto begin = static_cast<std::size_t>(piece.data() - text.data());
    spans.push_back({begin, begin + piece.size(), true});
  }
  return spans;
}

bool ScreeningRegex::matches_whole(std::string_view text) const {
  return RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *regex_);
}

int ScreeningRegex::group_count() const {
  return regex_->NumberOfCapturingGroups();
}

}  // namespace paddock::language
