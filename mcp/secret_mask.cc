#include "mcp/secret_mask.h"

#include <algorithm>

namespace paddock::mcp {

SecretMask::SecretMask(const std::vector<std::string>& assignments) {
  for (const auto& assignment : assignments) {
    auto equals = assignment.find('=');
    std::string value = assignment.substr(equals + 1);
    if (value.size() < kShortest) {
      unmasked_.push_back(assignment.substr(0, equals));
      continue;
    }
    // Each line of a value with several (a PEM key) too: progress goes out a line at a time.
    if (value.find('\n') != std::string::npos) {
      std::size_t start = 0;
      for (std::size_t end; (end = value.find('\n', start)) != std::string::npos; start = end + 1) {
        add(value.substr(start, end - start));
      }
      add(value.substr(start));
    }
    add(std::move(value));
  }
  std::sort(values_.begin(), values_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void SecretMask::add(std::string value) {
  if (value.size() >= kShortest) values_.push_back(std::move(value));
}

std::string SecretMask::apply(std::string text, bool cut) const {
  for (const auto& value : values_) {
    for (auto at = text.find(value); at != std::string::npos; at = text.find(value, at + 3)) {
      text.replace(at, value.size(), "***");
    }
  }
  if (!cut) return text;
  // The longest beginning of any value that the text ends with.
  std::size_t tail = 0;
  for (const auto& value : values_) {
    for (std::size_t length = std::min(value.size() - 1, text.size()); length > tail; --length) {
      if (text.compare(text.size() - length, length, value, 0, length) == 0) {
        tail = length;
        break;
      }
    }
  }
  if (tail > 0) text.replace(text.size() - tail, tail, "***");
  return text;
}

bool SecretMask::found_in(std::string_view data) const {
  return std::any_of(values_.begin(), values_.end(), [data](const std::string& value) {
    return data.find(value) != std::string_view::npos;
  });
}

}  // namespace paddock::mcp
