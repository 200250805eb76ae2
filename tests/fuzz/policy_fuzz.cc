// Fuzzes the loading of a language policy (language/policy_store.h, language/policy.h): a policy
// file's text, checked as `paddock policy check` and --policy-dir check it, on its own or merged
// over the built-in policy of the language it names, through the schema, the screening and
// syntax rules (RE2) and the mirror variables.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "language/policy_store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Every mirror variable a policy names is set, so the mirror's URL is read too.
  auto variables = [](const std::string& name) -> std::optional<std::string> {
    if (name.size() % 2 == 0) return "http://10.0.0.5:3141/simple";
    return std::nullopt;
  };
  (void)paddock::language::check_policy_text(text, "fuzz.json", variables);
  return 0;
}
