#pragma once

// The one place code is screened before it runs: CodeService (every MCP call) and `paddock run`
// both ask here. Its own file so that the lean, static `paddock run` links only this of app/.

#include <optional>
#include <string>

#include "language/policy.h"
#include "language/screening.h"

namespace paddock::app {

// The code's screening under the policy's rules, with the operator's mode over the policy's
// when one is given.
language::ScreeningVerdict screen_code(const language::LanguagePolicy& policy,
                                       const std::string& code,
                                       std::optional<language::ScreeningMode> mode = std::nullopt);

}  // namespace paddock::app
