#include "app/code_screening.h"

namespace paddock::app {

language::ScreeningVerdict screen_code(const language::LanguagePolicy& policy,
                                       const std::string& code,
                                       std::optional<language::ScreeningMode> mode) {
  language::Screening screening = policy.screening_rules;
  if (mode) screening.mode = *mode;
  return language::screen(screening, policy.source_syntax, code);
}

}  // namespace paddock::app
