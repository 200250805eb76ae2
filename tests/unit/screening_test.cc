#include "language/screening.h"

#include <algorithm>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "language/language_run.h"
#include "language/policy.h"
#include "language/policy_store.h"

namespace paddock::screening_test {
namespace {

using nlohmann::json;

// A language's syntax as its built-in policy gives it; a language paddock has no policy for
// (lua) gets the generic one.
const language::LanguageSyntax& syntax(const std::string& language) {
  static const auto* store = new language::PolicyStore(*language::PolicyStore::load({}));
  auto policy = store->find(language);
  return policy.ok() ? (*policy)->source_syntax : language::generic_syntax();
}

language::Screening parsed(const json& screening) {
  auto result = language::parse_screening(screening, "toy.json");
  EXPECT_TRUE(result.ok()) << result.error().message;
  return result.ok() ? *result : language::Screening{};
}

std::string error_of(const json& screening) {
  auto result = language::parse_screening(screening, "toy.json");
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.error().message;
}

json rule(const std::string& id, const std::string& pattern, const std::string& severity) {
  return {{"id", id}, {"pattern", pattern}, {"severity", severity}, {"message", id + " found"}};
}

// (rule id, line) of each finding, in order.
std::vector<std::pair<std::string, int>> hits(const language::ScreeningVerdict& verdict) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& finding : verdict.findings) out.emplace_back(finding.rule_id, finding.line);
  return out;
}

using Hits = std::vector<std::pair<std::string, int>>;

TEST(ScreeningParse, FullSectionParses) {
  language::Screening screening =
      parsed({{"mode", "enforce"},
              {"threshold", "medium"},
              {"rules", {rule("shell", "os\\.system", "high")}},
              {"restricted_modules", {{{"name", "ctypes"}, {"severity", "low"}}}}});
  EXPECT_EQ(screening.mode, language::ScreeningMode::kEnforce);
  EXPECT_EQ(screening.threshold, language::Severity::kMedium);
  ASSERT_EQ(screening.rules.size(), 2u);
  EXPECT_EQ(screening.rules[0].id, "shell");
  EXPECT_EQ(screening.rules[0].kind, language::ScreeningRule::Kind::kPattern);
  EXPECT_EQ(screening.rules[0].message, "shell found");
  EXPECT_EQ(screening.rules[1].id, "module:ctypes");
  EXPECT_EQ(screening.rules[1].kind, language::ScreeningRule::Kind::kModule);
  EXPECT_EQ(screening.rules[1].severity, language::Severity::kLow);
  EXPECT_EQ(screening.rules[1].message, "imports ctypes");
}

TEST(ScreeningParse, DefaultsAreWarnAtHighAndNothingIsOff) {
  language::Screening rules_only = parsed({{"rules", {rule("x", "x", "low")}}});
  EXPECT_EQ(rules_only.mode, language::ScreeningMode::kWarn);
  EXPECT_EQ(rules_only.threshold, language::Severity::kHigh);
  EXPECT_EQ(parsed(nullptr).mode, language::ScreeningMode::kOff);
  EXPECT_TRUE(parsed(nullptr).rules.empty());
}

TEST(ScreeningParse, ErrorsNameTheFileAndThePointer) {
  json bad_regex = {
      {"rules", {rule("a", "a", "low"), rule("b", "b", "low"), rule("c", "(", "low")}}};
  EXPECT_EQ(error_of(bad_regex).rfind("toy.json: /screening/rules/2/pattern: invalid regex (", 0),
            0u)
      << error_of(bad_regex);
  EXPECT_EQ(error_of({{"rules", {rule("a", "a", "severe")}}}),
            "toy.json: /screening/rules/0/severity: 'severe' is not valid; use low, medium, high "
            "or critical");
  EXPECT_EQ(error_of({{"mode", "block"}}),
            "toy.json: /screening/mode: 'block' is not valid; use off, warn or enforce");
  EXPECT_EQ(error_of({{"threshold", 3}}), "toy.json: /screening/threshold: must be a string");
  EXPECT_EQ(error_of({{"modes", "warn"}}), "toy.json: /screening/modes: is not a known field");
  EXPECT_EQ(error_of(json::array()), "toy.json: /screening: must be an object");
  EXPECT_EQ(error_of({{"rules", {{{"id", "a"}, {"severity", "low"}}}}}),
            "toy.json: /screening/rules/0/pattern: is missing");
  EXPECT_EQ(error_of({{"rules", {rule("a", "x|", "low")}}}),
            "toy.json: /screening/rules/0/pattern: matches empty text");
  EXPECT_EQ(error_of({{"rules", {rule("a", "a", "low"), rule("a", "b", "low")}}}),
            "toy.json: /screening/rules/1: 'a' is there twice");
  EXPECT_EQ(error_of({{"rules", {rule("no spaces", "a", "low")}}}),
            "toy.json: /screening/rules/0/id: 'no spaces' must be letters, digits, '.', '_' and "
            "'-'");
  json bad_kind = {{"rules", {rule("a", "a", "low")}}};
  bad_kind["rules"][0]["kind"] = "word";
  EXPECT_EQ(error_of(bad_kind),
            "toy.json: /screening/rules/0/kind: 'word' is not valid; use pattern or module");
  EXPECT_EQ(error_of({{"restricted_modules", {{{"severity", "low"}}}}}),
            "toy.json: /screening/restricted_modules/0/name: is missing");
  EXPECT_EQ(error_of({{"restricted_modules", {{{"name", "os"}}}}}),
            "toy.json: /screening/restricted_modules/0/severity: is missing");
  EXPECT_EQ(error_of({{"restricted_modules", "os"}}),
            "toy.json: /screening/restricted_modules: must be a list of objects");
}

TEST(ScreeningParse, PolicyLoadingChecksTheScreening) {
  json document = {{"name", "toy"},
                   {"source_file", "main.toy"},
                   {"run", {"toy", "{file}"}},
                   {"screening", {{"rules", {rule("a", "a", "low"), rule("b", "[b", "low")}}}}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message.rfind("toy.json: /screening/rules/1/pattern: invalid regex", 0),
            0u)
      << policy.error().message;
  document["screening"]["rules"][1]["pattern"] = "b";
  policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->screening_rules.rules.size(), 2u);
}

TEST(Screening, EveryMatchingRuleIsReportedWithItsLine) {
  language::Screening screening =
      parsed({{"rules",
               {rule("shell", R"(\bos\.system\s*\()", "high"),
                rule("fork", R"(\bos\.fork\()", "medium"), rule("never", "zzz", "low")}}});
  language::ScreeningVerdict verdict =
      language::screen(screening, syntax("python"),
                       "import os\nos.system('id')\nos.fork()\nos.system('x'); os.fork()");
  EXPECT_EQ(hits(verdict), (Hits{{"shell", 2}, {"fork", 3}, {"shell", 4}, {"fork", 4}}));
  EXPECT_EQ(verdict.findings[0].match, "os.system(");
  EXPECT_EQ(verdict.findings[0].message, "shell found");
  EXPECT_EQ(verdict.findings[0].severity, language::Severity::kHigh);
  EXPECT_FALSE(verdict.blocked);  // warn
}

TEST(Screening, CommentsAreLeftOutAndStringsKept) {
  language::Screening screening = parsed({{"rules", {rule("hit", "danger", "high")}}});
  auto lines = [&](const std::string& language, const std::string& code) {
    std::vector<int> out;
    for (const auto& finding : language::screen(screening, syntax(language), code).findings) {
      out.push_back(finding.line);
    }
    return out;
  };
  using Lines = std::vector<int>;
  EXPECT_EQ(lines("python", "# danger\nx = 1  # danger\nprint('# not a comment', danger)"),
            Lines{3});
  EXPECT_EQ(lines("python", "s = '''\n# danger\n'''\n"), Lines{2});  // inside a string
  EXPECT_EQ(lines("javascript",
                  "// danger\nconst u = 'http://x'; danger()\n/* danger\ndanger */ "
                  "danger"),
            (Lines{2, 4}));
  EXPECT_EQ(lines("c", "#include <danger.h>\n// danger"), Lines{1});  // '#' is no comment in C
  EXPECT_EQ(lines("bash", "echo $# danger\necho a#danger\n# danger\necho hi # danger"),
            (Lines{1, 2}));
  EXPECT_EQ(lines("go", "s := `// danger`\n// danger"), Lines{1});
  EXPECT_EQ(lines("ruby", "puts \"#{danger}\" # danger"), Lines{1});
  // Unknown languages keep everything: a guessed comment syntax could hide code.
  EXPECT_EQ(lines("lua", "-- danger\n# danger"), (Lines{1, 2}));
}

TEST(Screening, WithoutCommentsKeepsPositionsAndLines) {
  std::string code = "int a; /* one\ntwo */ int b; // three\n\"//kept\"";
  std::string blanked = language::without_comments(code, syntax("c"));
  EXPECT_EQ(blanked.size(), code.size());
  EXPECT_EQ(blanked, "int a;       \n       int b;         \n\"//kept\"");
  EXPECT_EQ(language::without_comments(code, syntax("lua")), code);
}

TEST(Screening, ModeAndThresholdDecideWhatBlocks) {
  json section = {{"mode", "enforce"},
                  {"threshold", "high"},
                  {"rules", {rule("low-one", "alpha", "low"), rule("high-one", "beta", "high")}}};
  EXPECT_FALSE(language::screen(parsed(section), syntax("python"), "alpha").blocked);
  EXPECT_TRUE(language::screen(parsed(section), syntax("python"), "alpha\nbeta").blocked);
  section["threshold"] = "critical";
  EXPECT_FALSE(language::screen(parsed(section), syntax("python"), "beta").blocked);
  section["threshold"] = "low";
  language::ScreeningVerdict low = language::screen(parsed(section), syntax("python"), "x\nalpha");
  EXPECT_TRUE(low.blocked);
  EXPECT_EQ(language::blocking_summary(low), "rule low-one, line 2");
  section["mode"] = "warn";
  language::ScreeningVerdict warned =
      language::screen(parsed(section), syntax("python"), "alpha beta");
  EXPECT_FALSE(warned.blocked);
  EXPECT_EQ(warned.findings.size(), 2u);  // reported all the same
  section["mode"] = "off";
  EXPECT_TRUE(language::screen(parsed(section), syntax("python"), "alpha beta").findings.empty());
}

TEST(Screening, WarnModeStillRefusesWhatReachesRefuseAndShowsOnlyWhatMatters) {
  json section = {{"mode", "warn"},
                  {"rules", {rule("high-one", "beta", "high"), rule("bomb", "gamma", "critical")}}};
  language::ScreeningVerdict harmless = language::screen(parsed(section), syntax("python"), "beta");
  EXPECT_FALSE(harmless.blocked);
  EXPECT_EQ(harmless.findings.size(), 1u);
  EXPECT_TRUE(
      language::findings_to_show(harmless).empty());  // high is below the default show, critical
  language::ScreeningVerdict bomb =
      language::screen(parsed(section), syntax("python"), "beta\ngamma");
  EXPECT_TRUE(bomb.blocked);  // critical is refused by default, in warn mode too
  EXPECT_EQ(language::blocking_summary(bomb), "rule bomb, line 2");
  EXPECT_EQ(language::findings_to_show(bomb).size(), 2u);  // refused code names every finding
  section["refuse"] = "never";
  language::ScreeningVerdict allowed = language::screen(parsed(section), syntax("python"), "gamma");
  EXPECT_FALSE(allowed.blocked);
  EXPECT_EQ(language::findings_to_show(allowed).size(), 1u);  // critical is shown
  section["show"] = "high";
  EXPECT_EQ(language::findings_to_show(language::screen(parsed(section), syntax("python"), "beta"))
                .size(),
            1u);
  section["refuse"] = "bogus";
  auto bad = language::parse_screening(section, "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/refuse"), std::string::npos) << bad.error().message;
}

TEST(Screening, ModulesAreFoundThroughEachLanguagesImports) {
  struct Case {
    const char* language;
    const char* code;
    const char* module;  // restricted; must be found
  };
  const Case kCases[] = {
      {"python", "import sys, ctypes as c", "ctypes"},
      {"python", "x = 1; import ctypes.util", "ctypes"},
      {"python", "from ctypes import CDLL", "ctypes"},
      {"python", "m = __import__('ctypes')", "ctypes"},
      {"python", "importlib.import_module(\"ctypes\")", "ctypes"},
      {"javascript", "const cp = require('child_process');", "child_process"},
      {"javascript", "const cp = require(\"node:child_process\");", "child_process"},
      {"javascript", "import { exec } from 'child_process';", "child_process"},
      {"javascript", "import * as cp from \"node:child_process\"", "child_process"},
      {"javascript", "const cp = await import('child_process')", "child_process"},
      {"javascript", "const fs = require('fs/promises')", "fs"},
      {"ruby", "require 'open3'", "open3"},
      {"ruby", "require('fiddle/import')", "fiddle"},
      {"r", "library(processx)", "processx"},
      {"r", "require(\"processx\")", "processx"},
      {"r", "processx::run('id')", "processx"},
      {"go", "import \"os/exec\"", "os/exec"},
      {"go", "import (\n\t\"fmt\"\n\tx \"os/exec\"\n)", "os/exec"},
      {"go", "import \"golang.org/x/sys/unix\"", "golang.org/x/sys/unix"},
      {"java", "import java.lang.foreign.*;", "java.lang.foreign"},
      {"java", "import java.net.Socket;", "java.net"},
      {"java", "var s = new java.net.Socket(\"h\", 1);", "java.net"},
      {"c", "#include <sys/ptrace.h>", "sys/ptrace.h"},
      {"cpp", "  #  include \"sys/ptrace.h\"", "sys/ptrace.h"},
      {"bash", "cat /etc/hosts | nc -l 80", "nc"},
      {"bash", "x=$(/usr/bin/nc -h)", "nc"},
      {"bash", "if true; then nc x 1; fi", "nc"},
      {"bash", "sudo env FOO=1 nc -h", "nc"},
      {"lua", "local socket = require('socket')", "socket"},  // the generic fallback
  };
  for (const auto& test : kCases) {
    language::Screening screening =
        parsed({{"restricted_modules",
                 {{{"name", test.module}, {"severity", "high"}, {"message", "m"}}}}});
    language::ScreeningVerdict verdict =
        language::screen(screening, syntax(test.language), test.code);
    ASSERT_EQ(verdict.findings.size(), 1u) << test.language << ": " << test.code;
    EXPECT_EQ(verdict.findings[0].rule_id, std::string("module:") + test.module);
    EXPECT_EQ(verdict.findings[0].kind, language::ScreeningRule::Kind::kModule);
  }
}

TEST(Screening, OnlyImportsCountAsModules) {
  language::Screening screening =
      parsed({{"restricted_modules", {{{"name", "ctypes"}, {"severity", "high"}}}}});
  for (const char* code : {"import ctypesx", "print('import ctypes')", "# import ctypes",
                           "ctypes = 1", "from mylib import ctypes"}) {
    EXPECT_TRUE(language::screen(screening, syntax("python"), code).findings.empty()) << code;
  }
  language::Screening nc =
      parsed({{"restricted_modules", {{{"name", "nc"}, {"severity", "high"}}}}});
  EXPECT_TRUE(language::screen(nc, syntax("bash"), "echo nc; ls ncdu").findings.empty());
}

TEST(Screening, ModuleRulesMatchTheWholeImportedName) {
  json module_rule = rule("net", "java\\.net(\\..*)?", "high");
  module_rule["kind"] = "module";
  language::Screening screening = parsed({{"rules", {module_rule}}});
  EXPECT_EQ(hits(language::screen(screening, syntax("java"),
                                  "import java.net.URL;\nimport java.nets.X;")),
            (Hits{{"net", 1}}));
}

TEST(Screening, LongLinesAreSearchedWithoutExhaustingTheStack) {
  // libstdc++'s std::regex recurses once per character `.*` consumes: on a 300 kB line in one
  // piece this would crash paddock.
  language::Screening screening = parsed({{"rules", {rule("greedy", "danger.*!", "high")}}});
  std::string code = "danger" + std::string(300'000, 'x') + "!\nnext danger!";
  language::ScreeningVerdict verdict = language::screen(screening, syntax("python"), code);
  ASSERT_FALSE(verdict.findings.empty());
  EXPECT_EQ(hits(verdict).back(), (std::pair<std::string, int>{"greedy", 2}));
}

// The whole text is searched at once (RE2): a match that straddled one of the old 4 KiB windows
// by more than their 512-byte overlap used to be missed.
TEST(Screening, AMatchAcrossAnOldWindowEdgeIsFound) {
  language::Screening screening = *language::parse_screening(
      json::parse(R"({"rules": [{"id": "py-shell", "pattern": "\\bos\\s*\\.\\s*system\\s*\\(",
                                 "severity": "high"}]})"),
      "toy.json");
  std::string code =
      "x = 1; " + std::string(4000, 'y') + " ; os" + std::string(1000, ' ') + ".system('id')\n";
  language::ScreeningVerdict verdict = language::screen(screening, syntax("python"), code);
  EXPECT_EQ(hits(verdict), (Hits{{"py-shell", 1}}));
}

// 20 MB of code is screened whole, and what is at its very end is found (its speed is in
// scripts/bench-screening).
TEST(Screening, TwentyMegabytesAreScreenedWhole) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok());
  const language::LanguagePolicy& python = **store->find("python");
  std::string code;
  code.reserve(21u << 20);
  while (code.size() < (20u << 20)) code += "total = sum(x * x for x in range(10))  # fine\n";
  int last = static_cast<int>(std::count(code.begin(), code.end(), '\n')) + 1;
  code += "import subprocess; subprocess.run(['id'])\n";
  language::ScreeningVerdict verdict =
      language::screen(python.screening_rules, python.source_syntax, code);
  EXPECT_EQ(hits(verdict), (Hits{{"module:subprocess", last}}));
}

// RE2 has no backreferences: a rule asks for its groups to agree instead.
TEST(Screening, SameGroupsStandsForABackreference) {
  language::Screening screening =
      parsed({{"rules",
               {{{"id", "bomb"},
                 {"pattern", R"(([\w:]+)\s*\(\)\s*\{\s*([\w:]+)\s*\|\s*([\w:]+)\s*&)"},
                 {"same_groups", true},
                 {"severity", "critical"}}}}});
  EXPECT_EQ(hits(language::screen(screening, syntax("bash"),
                                  "f() { a | b & }\nbomb(){ bomb|bomb& };bomb\n")),
            (Hits{{"bomb", 2}}));
  EXPECT_NE(error_of({{"rules", {rule("back", "(a)\\1", "high")}}}).find("invalid regex"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          {{"rules",
            {{{"id", "one"}, {"pattern", "(a)b"}, {"same_groups", true}, {"severity", "high"}}}}})
          .find("/rules/0/same_groups: needs a pattern with two groups"),
      std::string::npos);
}

TEST(Screening, FindingsAreCappedButStillBlock) {
  language::Screening screening = parsed(
      {{"mode", "enforce"}, {"rules", {rule("low", "a", "low"), rule("high", "b", "high")}}});
  std::string code;
  for (int i = 0; i < 150; ++i) code += "a\n";
  code += "b\n";
  language::ScreeningVerdict verdict = language::screen(screening, syntax("python"), code);
  EXPECT_TRUE(verdict.blocked);
  EXPECT_EQ(verdict.findings.size(), 100u);
  EXPECT_EQ(verdict.findings_omitted, 51);
  EXPECT_EQ(language::to_json(verdict)["findings_omitted"], 51);
}

TEST(Screening, MatchesAreShortAndPrintable) {
  language::Screening screening = parsed({{"rules", {rule("esc", "danger.{0,300}", "high")}}});
  EXPECT_EQ(language::screen(screening, syntax("python"), "danger\x1b[2J").findings.at(0).match,
            "danger?[2J");
  std::string long_match =
      language::screen(screening, syntax("python"), "danger" + std::string(300, 'x'))
          .findings.at(0)
          .match;
  EXPECT_EQ(long_match, "danger" + std::string(74, 'x') + "...");
}

TEST(Screening, ResultsSayWhatMatchedAndWhy) {
  language::Screening screening =
      parsed({{"mode", "enforce"}, {"rules", {rule("shell", "os\\.system", "high")}}});
  language::ScreeningVerdict verdict =
      language::screen(screening, syntax("python"), "\nos.system('id')");
  ASSERT_TRUE(verdict.blocked);
  EXPECT_EQ(language::describe(verdict.findings.at(0)),
            "line 2: shell found [rule shell, high]: os.system");
  EXPECT_EQ(language::blocking_summary(verdict), "rule shell, line 2");
  json json_verdict = language::to_json(verdict);
  EXPECT_EQ(json_verdict["mode"], "enforce");
  EXPECT_EQ(json_verdict["threshold"], "high");
  EXPECT_EQ(json_verdict["blocked"], true);
  EXPECT_EQ(json_verdict["findings"][0], json({{"rule", "shell"},
                                               {"kind", "pattern"},
                                               {"severity", "high"},
                                               {"line", 2},
                                               {"message", "shell found"},
                                               {"match", "os.system"}}));
  language::LanguagePolicy policy;
  policy.name = "python";
  json blocked = language::blocked_result(policy, verdict);
  EXPECT_EQ(blocked["outcome"], "blocked");
  EXPECT_EQ(blocked["exit_code"], 126);
  EXPECT_EQ(blocked["language"], "python");
  EXPECT_EQ(blocked["screening"], json_verdict);
  EXPECT_EQ(
      language::to_json(language::label_result(policy, runtime::RunResult{}, verdict))["screening"],
      json_verdict);
  EXPECT_FALSE(language::to_json(language::label_result(policy, runtime::RunResult{},
                                                        language::ScreeningVerdict{}))
                   .contains("screening"));
}

// The built-in policies: their screening parses, warns by default, stays quiet on a hello world
// and notices the obvious.
TEST(ScreeningBuiltIn, QuietOnHelloWorldAndNoticesTheObvious) {
  struct Case {
    const char* language;
    const char* hello;
    const char* suspicious;
  };
  const Case kCases[] = {
      {"python", "print(\"hello\")\n", "import os\nos.system('id')\n"},
      {"javascript", "console.log('hello');\n", "require('child_process').execSync('id');\n"},
      {"ruby", "puts \"hello\"\n", "puts `id`\n"},
      {"r", "cat(\"hello\\n\")\n", "system(\"id\")\n"},
      {"bash", "#!/bin/bash\necho hello # greet\n", ":(){ :|:& };:\n"},
      {"go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
       "package main\n\nimport \"os/exec\"\n\nfunc main() { exec.Command(\"id\").Run() }\n"},
      {"java",
       "public class Main {\n  public static void main(String[] args) {\n"
       "    System.out.println(\"hello\");\n  }\n}\n",
       "public class Main {\n  public static void main(String[] a) throws Exception {\n"
       "    Runtime.getRuntime().exec(\"id\");\n  }\n}\n"},
      {"c", "#include <stdio.h>\nint main(void) { printf(\"hello\\n\"); return 0; }\n",
       "#include <stdlib.h>\nint main(void) { return system(\"id\"); }\n"},
      {"cpp", "#include <iostream>\nint main() { std::cout << \"hello\\n\"; }\n",
       "#include <cstdlib>\nint main() { return std::system(\"id\"); }\n"},
  };
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(store->all().size(), std::size(kCases));  // a new language gets a case here
  for (const auto& test : kCases) {
    auto found = store->find(test.language);
    ASSERT_TRUE(found.ok()) << test.language;
    const language::Screening& screening = (*found)->screening_rules;
    EXPECT_EQ(screening.mode, language::ScreeningMode::kWarn) << test.language;
    EXPECT_FALSE(screening.rules.empty()) << test.language;
    language::ScreeningVerdict hello =
        language::screen(screening, syntax(test.language), test.hello);
    EXPECT_TRUE(hello.findings.empty())
        << test.language << ": "
        << (hello.findings.empty() ? "" : language::describe(hello.findings[0]));
    language::Screening enforced = screening;
    enforced.mode = language::ScreeningMode::kEnforce;
    EXPECT_TRUE(language::screen(enforced, syntax(test.language), test.suspicious).blocked)
        << test.language;
    EXPECT_EQ(screening.refuse, language::Severity::kCritical) << test.language;
    EXPECT_EQ(screening.show, language::Severity::kCritical) << test.language;
  }
}

}  // namespace
}  // namespace paddock::screening_test
