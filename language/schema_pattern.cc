#include "language/schema_pattern.h"

#include <re2/re2.h>

#include <memory>

namespace paddock::language {

core::Result<core::SchemaPattern> compile_schema_pattern(const std::string& pattern) {
  // Shared: a SchemaPattern is a std::function, which must be copyable, and an RE2 is not.
  auto regex = std::make_shared<const RE2>(pattern, RE2::Quiet);
  if (!regex->ok()) {
    return core::invalid_input("RE2 cannot compile " + pattern + ": " + regex->error());
  }
  return core::SchemaPattern(
      [regex](const std::string& text) { return RE2::PartialMatch(text, *regex); });
}

}  // namespace paddock::language
