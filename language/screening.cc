#include "language/screening.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace paddock::language {
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

// --- Matching --------------------------------------------------------------------------------

constexpr std::size_t kMaxFindings = 100;
constexpr std::size_t kMaxExcerpt = 80;

// Where each line of a text starts, to turn a match's offset into its line number.
class Lines {
 public:
  explicit Lines(std::string_view text) {
    starts_.push_back(0);
    for (std::size_t at = text.find('\n'); at != std::string_view::npos;
         at = text.find('\n', at + 1)) {
      starts_.push_back(at + 1);
    }
  }
  // 1-based.
  [[nodiscard]] int line_of(std::size_t offset) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), offset) -
                            starts_.begin());
  }
  // Where the line after `line` starts, or npos after the last.
  [[nodiscard]] std::size_t start_after(int line) const {
    auto index = static_cast<std::size_t>(line);
    return index < starts_.size() ? starts_[index] : std::string_view::npos;
  }

 private:
  std::vector<std::size_t> starts_;
};

// The modules each line imports, as the syntax's import patterns find them in the whole text
// (group 1: a name, or "os, sys as system" in Python: each name without its alias).
std::map<int, std::set<std::string>> imported_modules(const LanguageSyntax& syntax,
                                                      std::string_view text, const Lines& lines) {
  std::map<int, std::set<std::string>> modules;
  for (const auto& pattern : syntax.imports) {
    for (std::size_t from = 0;;) {
      auto spans = pattern.find(text, from, 1);
      if (spans.empty()) break;
      from = std::max(spans[0].end, spans[0].begin + 1);
      if (spans.size() < 2 || !spans[1].matched) continue;
      std::string_view names = text.substr(spans[1].begin, spans[1].end - spans[1].begin);
      auto& here = modules[lines.line_of(spans[1].begin)];
      for (std::size_t at = 0; at <= names.size();) {
        std::size_t comma = std::min(names.find(',', at), names.size());
        std::string name = core::trim(names.substr(at, comma - at));
        name = name.substr(0, name.find_first_of(" \t\n"));
        if (!name.empty()) here.insert(name);
        at = comma + 1;
      }
    }
  }
  return modules;
}

std::optional<std::string> first_module(const ScreeningRule& rule,
                                        const std::set<std::string>& modules) {
  for (const auto& name : modules) {
    bool matches = rule.module.empty()
                       ? rule.pattern.matches_whole(name)
                       : name.starts_with(rule.module) &&
                             (name.size() == rule.module.size() ||
                              name[rule.module.size()] == '.' || name[rule.module.size()] == '/');
    if (matches) return name;
  }
  return std::nullopt;
}

// Whether every group of a match captured the same text: what a backreference (\1) would ask,
// which RE2 does not have.
bool groups_agree(std::string_view text, const std::vector<ScreeningRegex::Span>& spans) {
  for (std::size_t i = 2; i < spans.size(); ++i) {
    if (text.substr(spans[i].begin, spans[i].end - spans[i].begin) !=
        text.substr(spans[1].begin, spans[1].end - spans[1].begin)) {
      return false;
    }
  }
  return true;
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
  [[nodiscard]] core::Error error(const std::string& what) const {
    return core::invalid_input(std::string(origin) + ": /screening" + pointer + ": " + what);
  }
};

core::Status check_object(const json& value, const Where& where,
                          std::initializer_list<std::string_view> known) {
  if (!value.is_object()) return where.error("must be an object");
  for (const auto& [key, unused] : value.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return (where / key).error("is not a known field");
    }
  }
  return {};
}

core::Result<std::string> text_field(const json& object, const Where& where, const std::string& key,
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
core::Result<Enum> named_field(const json& object, const Where& where, const std::string& key,
                               const char* const (&names)[N], std::optional<Enum> fallback) {
  if (!object.contains(key) && fallback) return *fallback;
  auto text = text_field(object, where, key, true);
  if (!text) return text.error();
  auto value = value_named<Enum>(names, *text);
  if (!value) return (where / key).error("'" + *text + "' is not valid; use " + choices(names));
  return *value;
}

core::Result<ScreeningRegex> compile(const std::string& pattern, const Where& where) {
  auto regex = ScreeningRegex::compile(pattern);
  if (!regex) return where.error(regex.error().message);
  // It would report every line, which is a mistake, not a rule.
  if (!regex->find("", 0).empty()) return where.error("matches empty text");
  return regex;
}

// Rule ids appear in messages and results; restricted modules take "module:NAME".
bool valid_rule_id(const std::string& id) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !id.empty() && alnum(id[0]) && std::all_of(id.begin(), id.end(), [&](char c) {
    return alnum(c) || c == '.' || c == '_' || c == '-';
  });
}

core::Result<ScreeningRule> parse_rule(const json& object, const Where& where) {
  if (auto ok = check_object(object, where,
                             {"id", "pattern", "severity", "message", "kind", "same_groups"});
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
  if (auto same = object.find("same_groups"); same != object.end()) {
    if (!same->is_boolean()) return (where / "same_groups").error("must be true or false");
    rule.same_groups = same->get<bool>();
    if (rule.same_groups && rule.pattern.group_count() < 2) {
      return (where / "same_groups").error("needs a pattern with two groups or more");
    }
  }
  auto severity = named_field<Severity>(object, where, "severity", kSeverityNames, std::nullopt);
  if (!severity) return severity.error();
  rule.severity = *severity;
  auto message = text_field(object, where, "message", false);
  if (!message) return message.error();
  rule.message = message->empty() ? "matches /" + rule.pattern_text + "/" : *message;
  return rule;
}

core::Result<ScreeningRule> parse_restricted_module(const json& object, const Where& where) {
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
core::Status parse_list(const json& screening, const Where& where, const std::string& key,
                        Parse parse, std::set<std::string>& ids,
                        std::vector<ScreeningRule>& rules) {
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

core::Result<Screening> parse_screening(const json& screening, std::string_view origin) {
  Screening result;
  if (screening.is_null()) return result;
  Where where{origin, ""};
  if (auto ok = check_object(
          screening, where, {"mode", "threshold", "refuse", "show", "rules", "restricted_modules"});
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
  if (screening.value("refuse", json()) == "never") {
    result.refuse.reset();
  } else {
    auto refuse =
        named_field<Severity>(screening, where, "refuse", kSeverityNames, Severity::kCritical);
    if (!refuse) return refuse.error();
    result.refuse = *refuse;
  }
  auto show = named_field<Severity>(screening, where, "show", kSeverityNames, Severity::kCritical);
  if (!show) return show.error();
  result.show = *show;
  std::set<std::string> ids;
  for (auto status : {parse_list(screening, where, "rules", parse_rule, ids, result.rules),
                      parse_list(screening, where, "restricted_modules", parse_restricted_module,
                                 ids, result.rules)}) {
    if (!status) return status.error();
  }
  return result;
}

std::set<std::string> imported_module_names(const LanguageSyntax& syntax, const std::string& code) {
  std::set<std::string> names;
  for (auto& [line, modules] : imported_modules(syntax, code, Lines(code))) {
    names.insert(modules.begin(), modules.end());
  }
  return names;
}

ScreeningVerdict screen(const Screening& screening, const LanguageSyntax& syntax,
                        const std::string& code) {
  ScreeningVerdict verdict;
  verdict.mode = screening.mode;
  verdict.threshold = screening.threshold;
  verdict.show = screening.show;
  if (screening.mode == ScreeningMode::kOff || screening.rules.empty()) return verdict;
  verdict.refused_from = screening.refuse;
  if (screening.mode == ScreeningMode::kEnforce) {
    verdict.refused_from =
        std::min(screening.threshold, screening.refuse.value_or(Severity::kCritical));
  }
  std::string text = without_comments(code, syntax);
  // The whole text at once, each rule in one pass: a match may span lines (it is counted on the
  // line it starts on), and there are no windows whose edges a match could straddle.
  Lines lines(text);
  std::optional<std::map<int, std::set<std::string>>> modules;  // found when a rule first asks
  struct Hit {
    int line;
    std::size_t rule;
    std::string match;
  };
  std::vector<Hit> hits;
  std::size_t total = 0;
  for (std::size_t index = 0; index < screening.rules.size(); ++index) {
    const ScreeningRule& rule = screening.rules[index];
    std::size_t kept = 0;
    auto record = [&](int line, std::string match) {
      ++total;
      if (verdict.refused_from && rule.severity >= *verdict.refused_from) verdict.blocked = true;
      if (kept++ < kMaxFindings) hits.push_back({line, index, excerpt(std::move(match))});
    };
    if (rule.kind == ScreeningRule::Kind::kModule) {
      if (!modules) modules = imported_modules(syntax, text, lines);
      for (const auto& [line, names] : *modules) {
        if (auto match = first_module(rule, names)) record(line, *match);
      }
      continue;
    }
    // One finding per rule and line: after a match, the search goes on at the next line.
    for (std::size_t from = 0; from != std::string_view::npos;) {
      auto spans = rule.pattern.find(text, from, rule.same_groups ? rule.pattern.group_count() : 0);
      if (spans.empty()) break;
      if (rule.same_groups && !groups_agree(text, spans)) {
        from = spans[0].begin + 1;
        continue;
      }
      int line = lines.line_of(spans[0].begin);
      std::size_t length = std::min(spans[0].end - spans[0].begin, kMaxExcerpt + 4);
      record(line, text.substr(spans[0].begin, length));
      from = lines.start_after(line);
    }
  }
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    return a.line != b.line ? a.line < b.line : a.rule < b.rule;
  });
  for (auto& hit : hits) {
    if (verdict.findings.size() == kMaxFindings) break;
    const ScreeningRule& rule = screening.rules[hit.rule];
    verdict.findings.push_back(
        {rule.id, rule.kind, rule.severity, rule.message, hit.line, std::move(hit.match)});
  }
  verdict.findings_omitted = static_cast<int>(total - verdict.findings.size());
  return verdict;
}

std::string describe(const ScreeningFinding& finding) {
  return "line " + std::to_string(finding.line) + ": " + finding.message + " [rule " +
         finding.rule_id + ", " + to_string(finding.severity) + "]: " + finding.match;
}

std::vector<const ScreeningFinding*> findings_to_show(const ScreeningVerdict& verdict) {
  std::vector<const ScreeningFinding*> shown;
  for (const auto& finding : verdict.findings) {
    if (verdict.blocked || finding.severity >= verdict.show) shown.push_back(&finding);
  }
  return shown;
}

std::string blocking_summary(const ScreeningVerdict& verdict) {
  std::vector<const ScreeningFinding*> blocking;
  for (const auto& finding : verdict.findings) {
    if (verdict.refused_from && finding.severity >= *verdict.refused_from) {
      blocking.push_back(&finding);
    }
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
  json result = {
      {"mode", to_string(verdict.mode)},
      {"threshold", to_string(verdict.threshold)},
      {"refused_from", verdict.refused_from ? to_string(*verdict.refused_from) : "never"},
      {"blocked", verdict.blocked},
      {"findings", std::move(findings)}};
  if (verdict.findings_omitted > 0) result["findings_omitted"] = verdict.findings_omitted;
  return result;
}

}  // namespace paddock::language
