#pragma once

// Keeps the values of passed-through variables (--pass-through-env) out of what the server
// sends back: a program that prints its API key shows "***" to the model instead, as CI systems
// mask their secrets. Values shorter than 4 characters are not masked (masking "1" would garble
// every output); the server warns about those at start.

#include <string>
#include <vector>

namespace paddock::mcp {

class SecretMask {
 public:
  static constexpr std::size_t kShortest = 4;

  // From "NAME=VALUE" entries.
  explicit SecretMask(const std::vector<std::string>& assignments);
  // `text` with every value replaced by "***".
  [[nodiscard]] std::string apply(std::string text) const;
  // The names whose values are too short to mask.
  [[nodiscard]] const std::vector<std::string>& unmasked() const { return unmasked_; }

 private:
  std::vector<std::string> values_;  // longest first, so that one inside another is covered
  std::vector<std::string> unmasked_;
};

}  // namespace paddock::mcp
