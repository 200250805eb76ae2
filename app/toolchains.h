#pragma once

// What this machine has of each language's toolchain (language/toolchain_check.h), looked at once
// when the server starts (a stat per file). A language whose run files are missing is listed as
// unavailable with the apt-get line that adds it, and a call or a session of it is refused in
// that line before anything starts; the server's log says the same once, at start.

#include <map>
#include <string>
#include <vector>

#include "language/policy_store.h"
#include "language/toolchain_check.h"

namespace paddock::app {

class Toolchains {
 public:
  // `host_root`: the backend runs sandboxes from this machine's /usr (the native one); other
  // backends run every language from an image, which brings its own.
  Toolchains(const language::PolicyStore& policies, bool host_root);

  [[nodiscard]] const language::ToolchainCheck& of(const language::LanguagePolicy& policy) const;
  // Why `policy` cannot run here, in one line; empty when it can.
  [[nodiscard]] std::string unavailable(const language::LanguagePolicy& policy) const;
  // The server's start-up lines: one naming the languages that are ready, and one for each that
  // lacks something, with its apt-get line.
  [[nodiscard]] std::vector<std::string> log_lines(const language::PolicyStore& policies) const;

 private:
  std::map<std::string, language::ToolchainCheck> checks_;  // by policy name
  language::ToolchainCheck unchecked_;
};

}  // namespace paddock::app
