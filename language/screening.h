#pragma once

// Code screening: the patterns and restricted modules a language policy lists, checked against
// the code before anything runs, so that obvious intent (shelling out, FFI, raw system calls,
// fork bombs, reaching for credentials) is reported or refused early and by name.
//
// A convenience, not a boundary: a pattern never understands a program, and any of them can be
// evaded (string building, eval, an interpreter inside the interpreter). What holds is the
// kernel isolation of the sandbox; screening only says "this looks like X" before it runs.
//
// Policy format (the `screening` object of policies/<language>.json, see policies/schema.json):
//   {"mode": "enforce"|"warn"|"off", "threshold": "low"|"medium"|"high"|"critical",
//    "refuse": SEVERITY|"never", "show": SEVERITY,
//    "rules": [{"id", "pattern", "severity", "message", "kind": "pattern"|"module",
//               "same_groups": bool}],
//    "restricted_modules": [{"name", "severity", "message"}]}

#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "language/screening_regex.h"
#include "language/syntax.h"

namespace paddock::language {

enum class ScreeningMode { kOff, kWarn, kEnforce };
enum class Severity { kLow, kMedium, kHigh, kCritical };  // in increasing order

const char* to_string(ScreeningMode mode);
const char* to_string(Severity severity);
std::optional<ScreeningMode> screening_mode_from_name(std::string_view name);

struct ScreeningRule {
  enum class Kind {
    kPattern,  // `pattern` is searched for in the code, comments left out; a match is
               // counted once per line, on the line where it starts
    kModule,   // `pattern` must match the whole name of a module the code imports, or the
               // name is `module` or below it (restricted_modules)
  };
  std::string id;
  Kind kind = Kind::kPattern;
  std::string pattern_text;
  ScreeningRegex pattern;
  std::string module;  // restricted_modules: os matches os and os.path, fs matches fs/promises
  // A match counts only when every group of the pattern captured the same text (what a
  // backreference would say; RE2 has none): a fork bomb calls itself, `f(){ f|f& }`.
  bool same_groups = false;
  Severity severity = Severity::kMedium;
  std::string message;
};

struct Screening {
  ScreeningMode mode = ScreeningMode::kOff;
  Severity threshold = Severity::kHigh;  // refused from this severity up, in enforce mode
  // Refused from this severity up in warn mode too (a fork bomb is not worth running to see);
  // none: warn mode only warns.
  std::optional<Severity> refuse = Severity::kCritical;
  // Findings below this severity are reported in the structured result only, not in the text a
  // reader (a model) has to read: `import subprocess` is not worth its context.
  Severity show = Severity::kCritical;
  // restricted_modules become kModule rules with the id "module:NAME", after the rules.
  std::vector<ScreeningRule> rules;
};

// Parses a policy's `screening` object (null: no screening). Errors name `origin` and the JSON
// pointer: "python.json: /screening/rules/2/pattern: invalid regex (...)".
core::Result<Screening> parse_screening(const nlohmann::json& screening, std::string_view origin);

struct ScreeningFinding {
  std::string rule_id;
  ScreeningRule::Kind kind = ScreeningRule::Kind::kPattern;
  Severity severity = Severity::kMedium;
  std::string message;
  int line = 0;       // 1-based
  std::string match;  // what matched (the module name for kModule), shortened and printable
};

struct ScreeningVerdict {
  ScreeningMode mode = ScreeningMode::kOff;
  Severity threshold = Severity::kHigh;
  std::optional<Severity> refused_from;  // what blocks in this mode (threshold, refuse)
  Severity show = Severity::kCritical;
  bool blocked = false;                    // a finding at or above refused_from
  std::vector<ScreeningFinding> findings;  // by line; one per rule and line
  int findings_omitted = 0;                // beyond the cap on findings kept
};

// Screens `code`, written in a language of `syntax` (its policy's: comments are skipped, and
// imports found, as it says).
ScreeningVerdict screen(const Screening& screening, const LanguageSyntax& syntax,
                        const std::string& code);

// Every module `code` imports, as the syntax's import patterns find them (comments included: a
// name there counts as imported).
std::set<std::string> imported_module_names(const LanguageSyntax& syntax, const std::string& code);

// "line 3: runs a shell command [rule py-shell, high]: os.system("
std::string describe(const ScreeningFinding& finding);
// The findings a reader is told about in text: those at or above `show`, or all of them when
// the verdict blocked.
std::vector<const ScreeningFinding*> findings_to_show(const ScreeningVerdict& verdict);
// Why a blocked verdict blocked: "rule py-shell, line 3" (", and 2 more" when several did).
std::string blocking_summary(const ScreeningVerdict& verdict);

nlohmann::json to_json(const ScreeningVerdict& verdict);

}  // namespace paddock::language
