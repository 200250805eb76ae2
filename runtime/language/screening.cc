#include "language/screening.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace paddock {
namespace {

using nlohmann::json;

// Indexed by the enums' values.
constexpr const char* kModeNames[] = {"off", "warn", "enforce"};
constexpr const char* kSeverityNames[] = {"low", "medium", "high", "critical"};

template <typename Enum, std::size_t N>
std::optional<Enum> value_named(const char* const (&names)[N], std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

// "low, medium, high or critical", for messages.
template <std::size_t N>
std::string choices(const char* const (&names)[N]) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    text += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i];
  }
  return text;
}

// --- Language syntax -------------------------------------------------------------------------

struct Quote {
  std::string_view delimiter;
  bool multiline;  // else a newline ends it, which also resynchronises after a misreading
  bool escapes;    // a backslash escapes the next character
};

struct CommentSyntax {
  std::vector<std::string_view> line;  // markers that comment out the rest of the line
  bool block = false;                  // /* ... */
  bool line_needs_word_start = false;  // shell: '#' comments only at a word's start ($#, a#b)
  std::vector<Quote> quotes;           // longest delimiters first
};

// What screening knows of a language, as data: its comments and how it imports a module (each
// regex's group 1 is a module name, or a comma-separated list of them as in Python).
struct SyntaxData {
  std::vector<std::string_view> languages;
  CommentSyntax comments;
  std::vector<std::string_view> imports;
};

constexpr Quote kDouble{"\"", false, true};
constexpr Quote kSingle{"'", false, true};

const std::vector<SyntaxData>& syntax_data() {
  static const std::vector<SyntaxData> kData = {
      {{"python"},
       {{"#"}, false, false, {{"\"\"\"", true, true}, {"'''", true, true}, kDouble, kSingle}},
       {R"((?:^|;)\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*))",
        R"((?:^|;)\s*from\s+([\w.]+)\s+import\b)",
        R"(\b(?:__import__|import_module)\s*\(\s*['"]([\w.]+)['"])"}},
      {{"javascript"},
       {{"//"}, true, false, {{"`", true, true}, kDouble, kSingle}},
       {R"(\brequire\s*\(\s*['"`](?:node:)?([^'"`]+)['"`])",
        R"(\bimport\s*\(\s*['"`](?:node:)?([^'"`]+)['"`])",
        R"((?:^|;)\s*import\s*['"](?:node:)?([^'"]+)['"])",
        R"(\bfrom\s*['"](?:node:)?([^'"]+)['"])"}},
      {{"ruby"},
       {{"#"}, false, false, {{"\"", true, true}, {"'", true, true}, {"`", true, true}}},
       {R"(\b(?:require|require_relative|load)\s*\(?\s*['"]([^'"]+)['"])"}},
      {{"r"},
       {{"#"}, false, false, {{"\"", true, true}, {"'", true, true}, {"`", true, true}}},
       {R"(\b(?:library|require|requireNamespace|loadNamespace)\s*\(\s*['"]?([\w.]+))",
        R"((?:^|[^\w.])([A-Za-z][\w.]*):::?)"}},
      // A shell "imports" the commands it runs: the first word of each command, after keywords
      // and wrappers (if, then, sudo, env...) and without its directory.
      {{"bash"},
       {{"#"}, false, true, {{"\"", true, true}, {"'", true, false}, {"`", true, true}}},
       {R"((?:^|[;&|({}!`]|\$\()\s*)"
        R"((?:(?:if|then|elif|else|do|while|until|exec|xargs|sudo|env|time|nohup|command)\s+|)"
        R"(\w+=[^\s;&|$`(]*\s+)*)"
        R"((?:[\w./-]*/)?([\w.+-]+))"}},
      {{"go"},
       {{"//"}, true, false, {{"`", true, false}, kDouble, kSingle}},
       {R"re(\bimport\s*\(?\s*(?:[\w.]+\s+)?"([^"]+)")re",
        // a line of an import ( ... ) block
        R"re(^\s*(?:[\w.]+\s+)?"([^"]+)"\s*;?\s*$)re"}},
      {{"java"},
       {{"//"}, true, false, {{"\"\"\"", true, true}, kDouble, kSingle}},
       {R"(^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*;)",
        // fully qualified names need no import
        R"(\b((?:java|javax|jdk|sun|com\.sun)\.[\w.]*\w))"}},
      {{"c", "cpp"},
       {{"//"}, true, false, {kDouble, kSingle}},
       {R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])"}},
  };
  return kData;
}

struct LanguageSyntax {
  CommentSyntax comments;
  std::vector<ScreeningRegex> imports;
};

const LanguageSyntax& syntax_of(std::string_view language) {
  static const auto kSyntaxes = [] {
    std::map<std::string, LanguageSyntax, std::less<>> syntaxes;
    for (const auto& data : syntax_data()) {
      LanguageSyntax syntax{data.comments, {}};
      for (auto pattern : data.imports) syntax.imports.emplace_back(pattern.begin(), pattern.end());
      for (auto name : data.languages) syntaxes.emplace(name, syntax);
    }
    return syntaxes;
  }();
  // Unknown languages: no comment handling (a wrong guess could hide code) and the usual words.
  static const LanguageSyntax kGeneric{
      {},
      {ScreeningRegex(
          R"(\b(?:import|require|include|use|library|load)\b\s*\(?\s*['"<]?([\w./:-]+))")}};
  auto it = kSyntaxes.find(language);
  return it == kSyntaxes.end() ? kGeneric : it->second;
}

std::string blank_comments(std::string_view code, const CommentSyntax& syntax) {
  std::string out(code);
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
  };
  auto starts_with = [&](std::size_t at, std::string_view what) {
    return code.compare(at, what.size(), what) == 0;
  };
  const Quote* open = nullptr;
  std::size_t i = 0;
  while (i < code.size()) {
    if (open != nullptr) {
      if (open->escapes && code[i] == '\\') {
        i += 2;
      } else if (starts_with(i, open->delimiter)) {
        i += open->delimiter.size();
        open = nullptr;
      } else {
        if (code[i] == '\n' && !open->multiline) open = nullptr;
        ++i;
      }
      continue;
    }
    if (code[i] == '\\') {  // an escaped quote or '#' outside a string (shell), a continuation
      i += 2;
      continue;
    }
    auto quote = std::find_if(syntax.quotes.begin(), syntax.quotes.end(),
                              [&](const Quote& q) { return starts_with(i, q.delimiter); });
    if (quote != syntax.quotes.end()) {
      open = &*quote;
      i += quote->delimiter.size();
      continue;
    }
    if (syntax.block && starts_with(i, "/*")) {
      std::size_t end = code.find("*/", i + 2);
      end = end == std::string_view::npos ? code.size() : end + 2;
      blank(i, end);
      i = end;
      continue;
    }
    bool word_start =
        i == 0 || std::string_view(" \t\n;&|(").find(code[i - 1]) != std::string_view::npos;
    bool line_comment =
        std::any_of(syntax.line.begin(), syntax.line.end(),
                    [&](std::string_view marker) { return starts_with(i, marker); });
    if (line_comment && (!syntax.line_needs_word_start || word_start)) {
      std::size_t end = std::min(code.find('\n', i), code.size());
      blank(i, end);
      i = end;
      continue;
    }
    ++i;
  }
  return out;
}

// --- Matching --------------------------------------------------------------------------------

// libstdc++'s std::regex recurses once per character a repetition consumes, so `a.*b` on a
// 100 kB line overflows the stack. Long lines are searched in overlapping windows instead; a
// match longer than the overlap can then be missed, which a convenience check may afford.
constexpr std::size_t kWindow = 4096;
constexpr std::size_t kOverlap = 512;
constexpr std::size_t kMaxFindings = 100;
constexpr std::size_t kMaxExcerpt = 80;

// Calls visit(match) for each match of `pattern` in `line` until it returns false.
template <typename Visit>
void for_each_match(const ScreeningRegex& pattern, std::string_view line, Visit visit) {
  for (std::size_t start = 0;; start += kWindow - kOverlap) {
    std::size_t end = std::min(line.size(), start + kWindow);
    auto flags = std::regex_constants::match_default;
    // So that ^, $ and \b see the window's neighbours rather than its edges.
    if (start > 0) flags |= std::regex_constants::match_prev_avail;
    if (end < line.size()) {
      flags |= std::regex_constants::match_not_eol | std::regex_constants::match_not_eow;
    }
    using Iterator = std::regex_iterator<const char*, char, ScreeningRegexTraits>;
    for (Iterator it(line.data() + start, line.data() + end, pattern, flags), last; it != last;
         ++it) {
      if (!visit(*it)) return;
    }
    if (end == line.size()) return;
  }
}

std::optional<std::string> first_match(const ScreeningRegex& pattern, std::string_view line) {
  std::optional<std::string> found;
  for_each_match(pattern, line, [&](const std::cmatch& match) {
    found = match.str(0);
    return false;
  });
  return found;
}

std::string trim(std::string_view text) {
  auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

std::set<std::string> imported_modules(const LanguageSyntax& syntax, std::string_view line) {
  std::set<std::string> modules;
  for (const auto& pattern : syntax.imports) {
    for_each_match(pattern, line, [&](const std::cmatch& match) {
      std::string names = match.str(1);
      // "os, sys as system" (Python): each name without its alias
      for (std::size_t from = 0; from <= names.size();) {
        std::size_t comma = std::min(names.find(',', from), names.size());
        std::string name = trim(std::string_view(names).substr(from, comma - from));
        name = name.substr(0, name.find_first_of(" \t"));
        if (!name.empty()) modules.insert(name);
        from = comma + 1;
      }
      return true;
    });
  }
  return modules;
}

std::optional<std::string> first_module(const ScreeningRule& rule,
                                        const std::set<std::string>& modules) {
  for (const auto& name : modules) {
    bool matches = rule.module.empty()
                       ? std::regex_match(name, rule.pattern)
                       : name.starts_with(rule.module) &&
                             (name.size() == rule.module.size() ||
                              name[rule.module.size()] == '.' || name[rule.module.size()] == '/');
    if (matches) return name;
  }
  return std::nullopt;
}

// Short and printable: it goes to a terminal, and the code is untrusted.
std::string excerpt(std::string text) {
  if (text.size() > kMaxExcerpt) {
    std::size_t cut = kMaxExcerpt;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text;
}

// --- Parsing ---------------------------------------------------------------------------------

// Where in the policy a value is, for errors: "python.json: /screening/rules/2/pattern: ...".
struct Where {
  std::string_view origin;
  std::string pointer;  // below /screening

  [[nodiscard]] Where operator/(std::string_view key) const {
    return {origin, pointer + "/" + std::string(key)};
  }
  [[nodiscard]] Where operator/(std::size_t index) const { return *this / std::to_string(index); }
  [[nodiscard]] Error error(const std::string& what) const {
    return invalid_input(std::string(origin) + ": /screening" + pointer + ": " + what);
  }
};

Status check_object(const json& value, const Where& where,
                    std::initializer_list<std::string_view> known) {
  if (!value.is_object()) return where.error("must be an object");
  for (const auto& [key, unused] : value.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return (where / key).error("is not a known field");
    }
  }
  return {};
}

Result<std::string> text_field(const json& object, const Where& where, const std::string& key,
                               bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) return (where / key).error("is missing");
    return std::string();
  }
  if (!it->is_string()) return (where / key).error("must be a string");
  if (required && it->get<std::string>().empty()) return (where / key).error("must not be empty");
  return it->get<std::string>();
}

template <typename Enum, std::size_t N>
Result<Enum> named_field(const json& object, const Where& where, const std::string& key,
                         const char* const (&names)[N], std::optional<Enum> fallback) {
  if (!object.contains(key) && fallback) return *fallback;
  auto text = text_field(object, where, key, true);
  if (!text) return text.error();
  auto value = value_named<Enum>(names, *text);
  if (!value) return (where / key).error("'" + *text + "' is not valid; use " + choices(names));
  return *value;
}

Result<ScreeningRegex> compile(const std::string& pattern, const Where& where) {
  try {
    ScreeningRegex regex(pattern, ScreeningRegex::ECMAScript);
    // It would report every line, which is a mistake, not a rule.
    if (std::regex_search("", regex)) return where.error("matches empty text");
    return regex;
  } catch (const std::regex_error& error) {
    return where.error(std::string("invalid regex (") + error.what() + ")");
  }
}

// Rule ids appear in messages and results; restricted modules take "module:NAME".
bool valid_rule_id(const std::string& id) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !id.empty() && alnum(id[0]) && std::all_of(id.begin(), id.end(), [&](char c) {
    return alnum(c) || c == '.' || c == '_' || c == '-';
  });
}

Result<ScreeningRule> parse_rule(const json& object, const Where& where) {
  if (auto ok = check_object(object, where, {"id", "pattern", "severity", "message", "kind"});
      !ok) {
    return ok.error();
  }
  ScreeningRule rule;
  auto id = text_field(object, where, "id", true);
  if (!id) return id.error();
  if (!valid_rule_id(*id)) {
    return (where / "id").error("'" + *id + "' must be letters, digits, '.', '_' and '-'");
  }
  rule.id = *id;
  auto kind = text_field(object, where, "kind", false);
  if (!kind) return kind.error();
  if (*kind == "module") {
    rule.kind = ScreeningRule::Kind::kModule;
  } else if (!kind->empty() && *kind != "pattern") {
    return (where / "kind").error("'" + *kind + "' is not valid; use pattern or module");
  }
  auto pattern = text_field(object, where, "pattern", true);
  if (!pattern) return pattern.error();
  auto regex = compile(*pattern, where / "pattern");
  if (!regex) return regex.error();
  rule.pattern_text = *pattern;
  rule.pattern = std::move(*regex);
  auto severity = named_field<Severity>(object, where, "severity", kSeverityNames, std::nullopt);
  if (!severity) return severity.error();
  rule.severity = *severity;
  auto message = text_field(object, where, "message", false);
  if (!message) return message.error();
  rule.message = message->empty() ? "matches /" + rule.pattern_text + "/" : *message;
  return rule;
}

Result<ScreeningRule> parse_restricted_module(const json& object, const Where& where) {
  if (auto ok = check_object(object, where, {"name", "severity", "message"}); !ok) {
    return ok.error();
  }
  auto name = text_field(object, where, "name", true);
  if (!name) return name.error();
  if (name->find_first_of(" \t\n,'\"") != std::string::npos) {
    return (where / "name").error("'" + *name + "' is not a module name");
  }
  auto severity = named_field<Severity>(object, where, "severity", kSeverityNames, std::nullopt);
  if (!severity) return severity.error();
  auto message = text_field(object, where, "message", false);
  if (!message) return message.error();
  ScreeningRule rule;
  rule.id = "module:" + *name;
  rule.kind = ScreeningRule::Kind::kModule;
  rule.module = *name;
  rule.severity = *severity;
  rule.message = message->empty() ? "imports " + *name : *message;
  return rule;
}

template <typename Parse>
Status parse_list(const json& screening, const Where& where, const std::string& key, Parse parse,
                  std::set<std::string>& ids, std::vector<ScreeningRule>& rules) {
  auto it = screening.find(key);
  if (it == screening.end()) return {};
  if (!it->is_array()) return (where / key).error("must be a list of objects");
  for (std::size_t i = 0; i < it->size(); ++i) {
    auto rule = parse((*it)[i], where / key / i);
    if (!rule) return rule.error();
    if (!ids.insert(rule->id).second) {
      return (where / key / i).error("'" + rule->id + "' is there twice");
    }
    rules.push_back(std::move(*rule));
  }
  return {};
}

}  // namespace

const char* to_string(ScreeningMode mode) {
  return kModeNames[static_cast<int>(mode)];
}
const char* to_string(Severity severity) {
  return kSeverityNames[static_cast<int>(severity)];
}

std::optional<ScreeningMode> screening_mode_from_name(std::string_view name) {
  return value_named<ScreeningMode>(kModeNames, name);
}

std::optional<Severity> severity_from_name(std::string_view name) {
  return value_named<Severity>(kSeverityNames, name);
}

Result<Screening> parse_screening(const json& screening, std::string_view origin) {
  Screening result;
  if (screening.is_null()) return result;
  Where where{origin, ""};
  if (auto ok =
          check_object(screening, where, {"mode", "threshold", "rules", "restricted_modules"});
      !ok) {
    return ok.error();
  }
  // Rules without a mode are meant to do something: they warn.
  auto mode =
      named_field<ScreeningMode>(screening, where, "mode", kModeNames, ScreeningMode::kWarn);
  if (!mode) return mode.error();
  result.mode = *mode;
  auto threshold =
      named_field<Severity>(screening, where, "threshold", kSeverityNames, Severity::kHigh);
  if (!threshold) return threshold.error();
  result.threshold = *threshold;
  std::set<std::string> ids;
  for (auto status : {parse_list(screening, where, "rules", parse_rule, ids, result.rules),
                      parse_list(screening, where, "restricted_modules", parse_restricted_module,
                                 ids, result.rules)}) {
    if (!status) return status.error();
  }
  return result;
}

ScreeningVerdict screen(const Screening& screening, const std::string& language,
                        const std::string& code) {
  ScreeningVerdict verdict;
  verdict.mode = screening.mode;
  verdict.threshold = screening.threshold;
  if (screening.mode == ScreeningMode::kOff || screening.rules.empty()) return verdict;
  const LanguageSyntax& syntax = syntax_of(language);
  std::string text = blank_comments(code, syntax.comments);
  int line_number = 1;
  for (std::size_t start = 0; start <= text.size(); ++line_number) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    std::optional<std::set<std::string>> modules;  // found when a module rule first asks
    for (const auto& rule : screening.rules) {
      std::optional<std::string> match;
      if (rule.kind == ScreeningRule::Kind::kPattern) {
        match = first_match(rule.pattern, line);
      } else {
        if (!modules) modules = imported_modules(syntax, line);
        match = first_module(rule, *modules);
      }
      if (!match) continue;
      if (screening.mode == ScreeningMode::kEnforce && rule.severity >= screening.threshold) {
        verdict.blocked = true;
      }
      if (verdict.findings.size() == kMaxFindings) {
        ++verdict.findings_omitted;
      } else {
        verdict.findings.push_back(
            {rule.id, rule.kind, rule.severity, rule.message, line_number, excerpt(*match)});
      }
    }
  }
  return verdict;
}

std::string describe(const ScreeningFinding& finding) {
  return "line " + std::to_string(finding.line) + ": " + finding.message + " [rule " +
         finding.rule_id + ", " + to_string(finding.severity) + "]: " + finding.match;
}

std::string blocking_summary(const ScreeningVerdict& verdict) {
  std::vector<const ScreeningFinding*> blocking;
  for (const auto& finding : verdict.findings) {
    if (finding.severity >= verdict.threshold) blocking.push_back(&finding);
  }
  if (blocking.empty()) return "a finding past the first " + std::to_string(kMaxFindings);
  std::string summary =
      "rule " + blocking[0]->rule_id + ", line " + std::to_string(blocking[0]->line);
  if (blocking.size() > 1) summary += ", and " + std::to_string(blocking.size() - 1) + " more";
  return summary;
}

json to_json(const ScreeningVerdict& verdict) {
  json findings = json::array();
  for (const auto& finding : verdict.findings) {
    findings.push_back(
        {{"rule", finding.rule_id},
         {"kind", finding.kind == ScreeningRule::Kind::kModule ? "module" : "pattern"},
         {"severity", to_string(finding.severity)},
         {"line", finding.line},
         {"message", finding.message},
         {"match", finding.match}});
  }
  json result = {{"mode", to_string(verdict.mode)},
                 {"threshold", to_string(verdict.threshold)},
                 {"blocked", verdict.blocked},
                 {"findings", std::move(findings)}};
  if (verdict.findings_omitted > 0) result["findings_omitted"] = verdict.findings_omitted;
  return result;
}

std::string without_comments(std::string_view code, std::string_view language) {
  return blank_comments(code, syntax_of(language).comments);
}

}  // namespace paddock
