// Library names reach a networked installer as arguments, so each language takes registry names
// and version specifiers only (policies/*.json library_names), and the installer starts from an
// environment of its own: nothing of the program's or the caller's.

#include <map>

#include <gtest/gtest.h>

#include "language/language_run.h"
#include "language/policy_store.h"

namespace paddock::library_names_test {
namespace {

using nlohmann::json;

language::LanguagePolicy builtin(const std::string& name) {
  auto store = language::PolicyStore::load({});
  EXPECT_TRUE(store.ok());
  auto policy = store->find(name);
  EXPECT_TRUE(policy.ok()) << name;
  return **policy;
}

std::string refusal(const std::string& language, const std::string& library) {
  auto spec = language::language_spec(builtin(language), "", {}, {library});
  EXPECT_FALSE(spec.ok()) << language << " took " << library;
  return spec.ok() ? "" : spec.error().message;
}

void expect_accepted(const std::string& language, const std::vector<std::string>& libraries) {
  for (const auto& library : libraries) {
    auto spec = language::language_spec(builtin(language), "", {}, {library});
    EXPECT_TRUE(spec.ok()) << language << " refused " << library << ": "
                           << (spec.ok() ? "" : spec.error().message);
  }
}

// What no installer may be given, in any language: options, paths, URLs, VCS specs, archives,
// aliases, and names that would split into several arguments or lines.
const std::vector<std::string> kHostile = {
    "./",
    ".",
    "..",
    "../x",
    "/work",
    "/tmp/evil.tar.gz",
    "~/x",
    "-e",
    "-e.",
    "--index-url=http://evil.example/",
    "--registry=http://evil.example/",
    "--config-file=/work/x",
    "-r/work/requirements.txt",
    "https://evil.example/pkg.tgz",
    "http://evil.example/x",
    "file:/work/x",
    "file:../x",
    "git+https://github.com/user/repo",
    "git://github.com/user/repo.git",
    "git@github.com:user/repo.git",
    "github:user/repo",
    "user/repo",
    "npm:left-pad",
    "alias@npm:left-pad",
    "name@https://evil.example/x.tgz",
    "name@file:../x",
    "name @ https://evil.example/x.whl",
    "name@git+https://evil.example/x",
    "a b",
    "a\nb",
    "a\tb",
    "numpy\n--index-url=http://evil.example/",
    "a;b",
    "$(id)",
    "`id`",
    "",
    std::string(201, 'a'),
};

// Names each installer would take for a local archive (relative to its working directory).
const std::map<std::string, std::vector<std::string>> kArchives = {
    {"python", {"evil.tar.gz", "evil.whl", "evil.zip", "evil.tgz", "evil.tar.bz2"}},
    {"javascript", {"evil.tgz", "evil.tar", "evil.tar.gz", "evil.tgz@1.0.0"}},
    {"r", {"evil.tar.gz", "evil.zip"}},
    {"ruby", {"evil.gem"}},
    {"go", {}},
};

TEST(LibraryNames, EveryInstallingLanguageRefusesPathsUrlsAndOptions) {
  for (const auto& [language, archives] : kArchives) {
    std::vector<std::string> hostile = kHostile;
    hostile.insert(hostile.end(), archives.begin(), archives.end());
    for (const auto& library : hostile) {
      std::string message = refusal(language, library);
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_NE(message.find("refused: " + language + " takes "), std::string::npos) << message;
    }
  }
}

TEST(LibraryNames, RegistryNamesAndVersionsAreTaken) {
  expect_accepted("python", {"numpy", "pandas>=2.0", "requests[socks]==2.31", "zope.interface",
                             "scikit-learn~=1.4", "pkg>=1,<2", "Django!=4.0.1", "a"});
  expect_accepted("javascript", {"left-pad", "lodash@4.17.21", "@types/node", "@babel/core@^7.0.0",
                                 "socket.io", "express@latest", "react@>=18", "JSONStream"});
  expect_accepted("r", {"jsonlite", "data.table", "R6"});
  expect_accepted("ruby", {"rainbow", "rack:3.0.8", "activesupport", "nokogiri"});
  expect_accepted(
      "go", {"github.com/google/uuid", "golang.org/x/text@v0.14.0", "rsc.io/quote/v3@latest"});
}

TEST(LibraryNames, TheRefusalNamesTheEntryOnOneLine) {
  EXPECT_EQ(refusal("python", "./"),
            "library './' refused: python takes a PyPI name with optional extras and version "
            "specifiers, e.g. numpy, pandas>=2.0 or requests[socks]==2.31 (no paths, URLs or "
            "options)");
  EXPECT_TRUE(refusal("javascript", "x\ny").starts_with("library 'x\\x0ay' refused: "));
}

TEST(LibraryNames, ThePolicyPatternIsCheckedWhenItIsRead) {
  json document = json::parse(R"({"name": "toy", "source_file": "main.toy", "run": ["toy"],
                                  "install": ["toypkg", "{libraries}"]})");
  auto missing = language::parse_policy(document, "toy.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/library_names: is missing"), std::string::npos);
  document["library_names"] = {{"pattern", "([a-z"}, {"hint", "x"}};
  auto broken = language::parse_policy(document, "toy.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("/library_names/pattern: invalid regex"), std::string::npos)
      << broken.error().message;
  document["library_names"] = {{"pattern", "[a-z]*"}, {"hint", "x"}};
  EXPECT_FALSE(language::parse_policy(document, "toy.json").ok());  // it would take an empty name
  // RE2 has no lookahead (a policy written for std::regex): the error says where exclusions go.
  document["library_names"] = {{"pattern", "(?!.*\\.whl$)[a-z.]+"}, {"hint", "x"}};
  auto lookahead = language::parse_policy(document, "toy.json");
  ASSERT_FALSE(lookahead.ok());
  EXPECT_NE(lookahead.error().message.find("put the names it would exclude in "
                                           "library_names/refuse"),
            std::string::npos)
      << lookahead.error().message;
  document["library_names"] = {{"pattern", "[a-z]+"}, {"refuse", "(x"}, {"hint", "x"}};
  auto refuse = language::parse_policy(document, "toy.json");
  ASSERT_FALSE(refuse.ok());
  EXPECT_NE(refuse.error().message.find("/library_names/refuse: invalid regex"), std::string::npos)
      << refuse.error().message;
}

// `refuse` takes names away from what `pattern` matches, whole: an archive's name is refused, a
// name that only contains the suffix is not.
TEST(LibraryNames, TheRefusePatternExcludesWholeNamesOnly) {
  json document = json::parse(R"({"name": "toy", "source_file": "main.toy", "run": ["toy"],
                                  "install": ["toypkg", "{libraries}"],
                                  "library_names": {"pattern": "[a-z.]+", "refuse": ".*\\.whl",
                                                    "hint": "a toy name"}})");
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_FALSE(language::language_spec(*policy, "", {}, {"evil.whl"}).ok());
  EXPECT_TRUE(language::language_spec(*policy, "", {}, {"wheel.whlx"}).ok());
  EXPECT_TRUE(language::language_spec(*policy, "", {}, {"numpy"}).ok());
}

// The installer's environment is the policy's install_env and the operator's, under env -i: not
// the program's (PYTHONPATH, HOME=/work), and its HOME is nowhere the program can write.
TEST(LibraryNames, TheInstallerStartsFromItsOwnEnvironment) {
  auto spec =
      language::language_spec(builtin("python"), "", {}, {"numpy"}, {"PIP_INDEX_URL=http://mine/"});
  ASSERT_TRUE(spec.ok());
  const std::vector<std::string>& installer = spec->plan.steps.at(0);
  ASSERT_GE(installer.size(), 3u);
  EXPECT_EQ(installer[0], "/usr/bin/env");
  EXPECT_EQ(installer[1], "-i");
  auto has = [&](const std::string& entry) {
    return std::find(installer.begin(), installer.end(), entry) != installer.end();
  };
  EXPECT_TRUE(has("HOME=/nonexistent"));
  EXPECT_TRUE(has("PIP_CONFIG_FILE=/dev/null"));
  EXPECT_TRUE(has("PIP_INDEX_URL=http://mine/"));
  EXPECT_TRUE(has("numpy"));
  for (const auto& arg : installer) {
    EXPECT_FALSE(arg.starts_with("PYTHONPATH=")) << arg;
    EXPECT_FALSE(arg.starts_with("HOME=/work")) << arg;
    EXPECT_FALSE(arg.starts_with("MPLBACKEND=")) << arg;  // the program's env, not the installer's
  }
  // The program keeps its own.
  EXPECT_NE(
      std::find(spec->plan.env.begin(), spec->plan.env.end(), "PYTHONPATH=/work/.paddock/python"),
      spec->plan.env.end());
}

}  // namespace
}  // namespace paddock::library_names_test
