#pragma once

// Keeps the values of passed-through variables (--pass-through-env) out of everything the server
// sends: a program that prints its API key shows "***" to the model instead, as CI systems mask
// their secrets. A value matches in any ASCII case, because paddock itself folds some text (the
// egress proxy lowercases host names, so a secret used as a subdomain comes back lowercased).
// Values shorter than 4 characters are not masked (masking "1" would garble every output); the
// server warns about those at start. What a program transforms (base64, a reversed string) is
// beyond any mask: the README says so.
//
// The mask is applied where text leaves the server, not where it is made: to every message the
// server writes (MessageWriter), to every audit log line (AuditLog) and to its own log (log.h), so
// that a new field, tool or error is masked without anyone remembering to. Output streams are
// masked earlier too, where they are cut: a cut can split a value, which only its writer sees.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace paddock::app {

class SecretMask {
 public:
  static constexpr std::size_t kShortest = 4;

  // From "NAME=VALUE" entries.
  explicit SecretMask(const std::vector<std::string>& assignments);
  // `text` with every value, in any case, replaced by "***". `cut` says the text was cut off at its
  // end (an output over its limit, the start of a file): a value's beginning there is masked too.
  [[nodiscard]] std::string apply(std::string text, bool cut = false) const;
  // Every string of a JSON message, and every key, masked in place; but the fields whose values the
  // server alone chooses and clients match on (the JSON-RPC envelope, content types, progress
  // tokens), and base64 payloads (image data, blobs), whose contents are screened before they are
  // encoded (app/client_view.h).
  void apply_to(nlohmann::json& message) const;
  // Whether any value occurs whole in `data`, in any case.
  [[nodiscard]] bool found_in(std::string_view data) const;
  // The longest value masked: text held back this long minus one cannot end inside a value.
  [[nodiscard]] std::size_t longest() const { return values_.empty() ? 0 : values_[0].size(); }
  [[nodiscard]] bool empty() const { return values_.empty(); }
  // The names whose values are too short to mask.
  [[nodiscard]] const std::vector<std::string>& unmasked() const { return unmasked_; }

 private:
  void add(std::string value);
  void apply_to(nlohmann::json& value, int depth) const;
  std::vector<std::string> values_;  // lowercased; longest first, so one inside another is covered
  std::vector<std::string> unmasked_;
};

}  // namespace paddock::app
