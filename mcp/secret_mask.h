#pragma once

// Keeps the values of passed-through variables (--pass-through-env) out of what the server
// sends back: a program that prints its API key shows "***" to the model instead, as CI systems
// mask their secrets. Values shorter than 4 characters are not masked (masking "1" would garble
// every output); the server warns about those at start. What a program transforms (base64, a
// reversed string) is beyond any mask: the README says so.

#include <string>
#include <string_view>
#include <vector>

namespace paddock::mcp {

class SecretMask {
 public:
  static constexpr std::size_t kShortest = 4;

  // From "NAME=VALUE" entries.
  explicit SecretMask(const std::vector<std::string>& assignments);
  // `text` with every value replaced by "***". `cut` says the text was cut off at its end (an
  // output over its limit, the start of a file): a value's beginning there is masked too.
  [[nodiscard]] std::string apply(std::string text, bool cut = false) const;
  // Whether any value occurs whole in `data`.
  [[nodiscard]] bool found_in(std::string_view data) const;
  // The longest value masked: text held back this long minus one cannot end inside a value.
  [[nodiscard]] std::size_t longest() const { return values_.empty() ? 0 : values_[0].size(); }
  // The names whose values are too short to mask.
  [[nodiscard]] const std::vector<std::string>& unmasked() const { return unmasked_; }

 private:
  void add(std::string value);
  std::vector<std::string> values_;  // longest first, so that one inside another is covered
  std::vector<std::string> unmasked_;
};

}  // namespace paddock::mcp
