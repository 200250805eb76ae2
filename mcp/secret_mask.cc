#include "secret_mask.h"

#include <algorithm>

namespace paddock::mcp {

SecretMask::SecretMask(const std::vector<std::string>& assignments) {
  for (const auto& assignment : assignments) {
    auto equals = assignment.find('=');
    std::string value = assignment.substr(equals + 1);
    if (value.size() < kShortest) {
      unmasked_.push_back(assignment.substr(0, equals));
    } else {
      values_.push_back(std::move(value));
    }
  }
  std::sort(values_.begin(), values_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string SecretMask::apply(std::string text) const {
  for (const auto& value : values_) {
    for (auto at = text.find(value); at != std::string::npos; at = text.find(value, at + 3)) {
      text.replace(at, value.size(), "***");
    }
  }
  return text;
}

}  // namespace paddock::mcp
