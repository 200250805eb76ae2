#include "app/code_screening.h"

namespace paddock::app {

ScreeningVerdict screen_code(const LanguagePolicy& policy, const std::string& code,
                             std::optional<ScreeningMode> mode) {
  Screening screening = policy.screening_rules;
  if (mode) screening.mode = *mode;
  return screen(screening, policy.source_syntax, code);
}

}  // namespace paddock::app
