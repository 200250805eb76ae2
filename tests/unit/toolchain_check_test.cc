// A language's toolchain as this machine has it (language/toolchain_check.h), against a root of
// the test's own: what is missing, named by package, with the one apt-get line.

#include "language/toolchain_check.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/temp_folder.h"

namespace paddock::language::toolchain_check_test {
namespace {

using nlohmann::json;

LanguagePolicy toy_policy() {
  auto policy = parse_policy(json::parse(R"({
    "name": "toy", "source_file": "main.toy", "run": ["toy", "{file}"],
    "install": ["toy-get", "{libraries}"],
    "library_names": {"pattern": "[a-z]+", "hint": "a toy library's name"},
    "requires": {
      "run": [{"program": "/usr/bin/toy", "package": "toy"}],
      "install": [{"program": "/usr/bin/toy-get", "package": "toy-get"}],
      "libraries": [{"file": "/usr/lib/toy/lib1", "package": "toy-lib1"},
                    {"file": "/usr/lib/toy/lib2", "package": "toy-lib2"}]
    }
  })"),
                             "toy.json");
  EXPECT_TRUE(policy.ok()) << (policy.ok() ? "" : policy.error().message);
  return policy.ok() ? *policy : LanguagePolicy{};
}

void make_file(const std::string& path, mode_t mode) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "x";
  chmod(path.c_str(), mode);
}

TEST(ToolchainCheck, NamesWhatIsMissingByPackageWithOneInstallLine) {
  testing::TempFolder root("toolchain");
  LanguagePolicy policy = toy_policy();
  ToolchainCheck nothing = check_toolchain(policy, root.path());
  EXPECT_TRUE(nothing.checked);
  EXPECT_FALSE(nothing.runs());
  EXPECT_EQ(nothing.run, std::vector<std::string>{"toy"});
  EXPECT_EQ(describe(nothing, policy),
            "missing toy; missing for library installs: toy-get; missing preinstalled libraries: "
            "toy-lib1 toy-lib2 (sudo apt-get install toy toy-get toy-lib1 toy-lib2)");
  EXPECT_EQ(unavailable_reason(nothing, policy),
            "toy is not installed on this machine (toy): only the user can add it, with sudo "
            "apt-get install toy");

  // A program that is not executable is not there.
  make_file(root / "usr/bin/toy", 0644);
  EXPECT_FALSE(check_toolchain(policy, root.path()).runs());
  make_file(root / "usr/bin/toy", 0755);
  make_file(root / "usr/lib/toy/lib1", 0644);
  ToolchainCheck partly = check_toolchain(policy, root.path());
  EXPECT_TRUE(partly.runs());
  EXPECT_EQ(unavailable_reason(partly, policy), "");
  EXPECT_EQ(describe(partly, policy),
            "runs; missing for library installs: toy-get; missing preinstalled libraries: "
            "toy-lib2 (sudo apt-get install toy-get toy-lib2)");

  make_file(root / "usr/bin/toy-get", 0755);
  make_file(root / "usr/lib/toy/lib2", 0644);
  ToolchainCheck whole = check_toolchain(policy, root.path());
  EXPECT_TRUE(whole.complete());
  EXPECT_EQ(describe(whole, policy), "ready (library installs)");
}

TEST(ToolchainCheck, AnImageRootIsNotLookedFor) {
  LanguagePolicy policy = toy_policy();
  policy.rootfs = "image:example.org/toy:1";
  ToolchainCheck check = check_toolchain(policy, "/nonexistent");
  EXPECT_FALSE(check.checked);
  EXPECT_TRUE(check.runs());
  EXPECT_EQ(describe(check, policy), "runs from example.org/toy:1 (the image brings it)");
}

TEST(ToolchainCheck, APolicysRequirementMustBeAnAbsolutePathWithAPackage) {
  auto relative = parse_policy(json::parse(R"({"name": "toy", "source_file": "m", "run": ["toy"],
    "requires": {"run": [{"program": "bin/toy", "package": "toy"}]}})"),
                               "toy.json");
  EXPECT_FALSE(relative.ok());
  auto no_package = parse_policy(json::parse(R"({"name": "toy", "source_file": "m", "run": ["toy"],
    "requires": {"run": [{"program": "/usr/bin/toy"}]}})"),
                                 "toy.json");
  EXPECT_FALSE(no_package.ok());
}

}  // namespace
}  // namespace paddock::language::toolchain_check_test
