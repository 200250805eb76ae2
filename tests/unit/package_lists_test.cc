// The two lists of Debian packages: scripts/setup's (what running paddock needs, which every user
// installs; with packaging/language-packages) and scripts/test-packages (what only the tests,
// benchmarks, VM test and engines need, which scripts/test installs on top). A test-only package in
// setup's list costs every new user its download and install (issue 55: qemu, docker.io, clang and
// the rest made the first command take 19 minutes), so no name is in both, and the known test-only
// ones stay in the test list.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/harness.h"

namespace paddock::testing::package_lists_test {
namespace {

std::string read_source(const std::string& path) {
  std::ifstream in(source_dir() + "/" + path);
  EXPECT_TRUE(in) << "cannot read " << source_dir() << "/" << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The words of `text` with each line's comment ('#' to its end) left out.
std::set<std::string> words_without_comments(const std::string& text) {
  std::set<std::string> words;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream line_words(line.substr(0, line.find('#')));
    for (std::string word; line_words >> word;) words.insert(word);
  }
  return words;
}

// scripts/setup's packages: its arrays (every `packages=(` and `packages+=(` in it, as in
// build_packages=(...) and run_packages+=(npm)), and the languages' list it reads
// (packaging/language-packages, which paddock-languages depends on).
std::set<std::string> setup_packages() {
  std::string script = read_source("scripts/setup");
  EXPECT_NE(script.find("packaging/language-packages"), std::string::npos)
      << "scripts/setup no longer reads packaging/language-packages";
  std::set<std::string> packages =
      words_without_comments(read_source("packaging/language-packages"));
  for (const std::string& opening : std::vector<std::string>{"packages=(", "packages+=("}) {
    for (size_t at = script.find(opening); at != std::string::npos;
         at = script.find(opening, at + 1)) {
      // The array ends at the first ')' outside a comment: package names hold none.
      std::string rest = script.substr(at + opening.size());
      std::string body;
      std::istringstream lines(rest);
      bool closed = false;
      for (std::string line; !closed && std::getline(lines, line);) {
        line = line.substr(0, line.find('#'));
        if (size_t close = line.find(')'); close != std::string::npos) {
          line = line.substr(0, close);
          closed = true;
        }
        body += line + "\n";
      }
      EXPECT_TRUE(closed) << "scripts/setup: no ')' closes " << opening;
      for (const std::string& word : words_without_comments(body)) packages.insert(word);
    }
  }
  return packages;
}

std::set<std::string> test_packages() {
  return words_without_comments(read_source("scripts/test-packages"));
}

TEST(PackageLists, BothListsAreRead) {
  std::set<std::string> setup = setup_packages();
  EXPECT_TRUE(setup.contains("cmake")) << "scripts/setup's list was not found";
  EXPECT_TRUE(setup.contains("uidmap"));
  EXPECT_TRUE(setup.contains("npm")) << "the packages+=(npm) line was not read";
  EXPECT_TRUE(setup.contains("r-cran-irkernel")) << "packaging/language-packages was not read";
  EXPECT_TRUE(test_packages().contains("libgtest-dev"));
}

TEST(PackageLists, NoPackageIsInBoth) {
  std::set<std::string> setup = setup_packages();
  for (const std::string& package : test_packages()) {
    EXPECT_FALSE(setup.contains(package))
        << package << " is in scripts/test-packages and in scripts/setup: it belongs in one";
  }
}

// The test-only packages named when the lists were split (issue 55), with what needs them. One
// moved back to scripts/setup (out of the test list, or in both) fails here.
TEST(PackageLists, TheTestOnlyPackagesStayOutOfSetup) {
  struct TestOnly {
    const char* package;
    const char* needed_by;
  };
  const TestOnly kTestOnly[] = {
      {"libgtest-dev", "the C++ suites"},
      {"libgmock-dev", "the C++ suites"},
      {"clang", "scripts/hardening"},
      {"libclang-rt-14-dev", "scripts/hardening"},
      {"llvm", "scripts/hardening"},
      {"qemu-system-x86", "scripts/vm-test"},
      {"busybox-static", "scripts/vm-test"},
      {"docker.io", "the engines' tests"},
      {"podman", "the engines' tests"},
      {"runc", "the engines' tests"},
      {"docker-registry", "the registry tests"},
      {"skopeo", "the registry tests"},
      {"python3-jwt", "the registry tests' token server"},
      {"python3-cryptography", "the registry tests' token server"},
      {"mmdebstrap", "scripts/build-language-images and scripts/test-package"},
      {"bubblewrap", "scripts/bench"},
      {"python3-pytest", "the Python library's tests"},
  };
  std::set<std::string> setup = setup_packages();
  std::set<std::string> tests = test_packages();
  for (const TestOnly& entry : kTestOnly) {
    EXPECT_FALSE(setup.contains(entry.package))
        << entry.package << " is only for " << entry.needed_by
        << ": it belongs in scripts/test-packages, not scripts/setup";
    EXPECT_TRUE(tests.contains(entry.package))
        << entry.package << " (" << entry.needed_by << ") is missing from scripts/test-packages";
  }
}

}  // namespace
}  // namespace paddock::testing::package_lists_test
