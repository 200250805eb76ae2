// The backends' place in the floors (issue 37): the native backend and the container backends
// sit below language/, but nothing above runtime/ may use them except cli/, the composition root
// that decides which backends exist. Checked twice: by what is included, and by what links, read
// from the CMakeLists (a target's folder is the folder of its sources).

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/harness.h"

namespace paddock::backend_layering_test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kBackendFolders = {"runtime/native/", "runtime/container/",
                                                  "runtime/engine/", "runtime/kube/"};

bool in_backend(const std::string& path) {
  for (const auto& folder : kBackendFolders) {
    if (path.rfind(folder, 0) == 0) return true;
  }
  return false;
}

// Folders that may use a backend: the backends themselves and the composition root.
bool may_use_backends(const std::string& path) {
  return in_backend(path) || path.rfind("cli/", 0) == 0;
}

// A header-only rule the settings table checks a flag by (--kube-seccomp-profile), so that a bad
// value stops the start in one line with the rule the backend applies: no backend code is
// linked.
// The same for the kubernetes backend's typed settings (header-only), whose defaults the table
// shows (--pod-start-timeout's).
bool is_setting_rule(const std::string& file, const std::string& include) {
  return file.rfind("config/", 0) == 0 && (include == "runtime/kube/localhost_profile.h" ||
                                           include == "runtime/kube/kube_settings.h");
}

bool skipped(const std::string& path) {
  return path.rfind("tests/", 0) == 0 || path.rfind("build", 0) == 0 || path.rfind(".", 0) == 0 ||
         path.rfind("python/", 0) == 0 || path.rfind("scripts/", 0) == 0;
}

std::vector<std::string> source_files(const fs::path& root) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    std::string path = fs::relative(it->path(), root).string();
    if (it->is_directory() && skipped(path + "/")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(path);
  }
  return files;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(BackendLayering, OnlyTheCompositionRootIncludesABackend) {
  static const std::regex kInclude(R"re((^|\n)\s*#\s*include\s+"([^"]+)")re");
  fs::path root = testing::source_dir();
  std::string found;
  for (const auto& file : source_files(root)) {
    auto extension = fs::path(file).extension().string();
    if (extension != ".cc" && extension != ".h" && extension != ".in") continue;
    if (may_use_backends(file)) continue;
    std::string text = read_all(root / file);
    for (std::sregex_iterator it(text.begin(), text.end(), kInclude), end; it != end; ++it) {
      std::string include = (*it)[2].str();
      if (in_backend(include) && !is_setting_rule(file, include))
        found += file + " includes \"" + include + "\"\n";
    }
  }
  EXPECT_TRUE(found.empty()) << "only cli/ (and the tests) may include a backend:\n" << found;
}

// The targets of every CMakeLists.txt: their folder and what they link directly.
struct Target {
  std::string folder;
  std::set<std::string> links;
};

std::string without_comments(const std::string& text) {
  return std::regex_replace(text, std::regex("#[^\n]*"), "");
}

// The arguments of each `name(...)` command in `text`.
std::vector<std::vector<std::string>> commands(const std::string& text, const std::string& name) {
  std::vector<std::vector<std::string>> found;
  std::regex start("(^|[^A-Za-z0-9_])" + name + R"re(\s*\()re");
  for (std::sregex_iterator it(text.begin(), text.end(), start), end; it != end; ++it) {
    std::size_t i = static_cast<std::size_t>(it->position(0) + it->length(0));
    int depth = 1;
    std::size_t begin = i;
    while (i < text.size() && depth > 0) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')') --depth;
      ++i;
    }
    std::istringstream words(text.substr(begin, i - 1 - begin));
    std::vector<std::string> arguments;
    for (std::string word; words >> word;) arguments.push_back(word);
    if (!arguments.empty()) found.push_back(arguments);
  }
  return found;
}

std::map<std::string, Target> targets_of(const fs::path& root) {
  std::map<std::string, Target> targets;
  std::map<std::string, std::string> aliases;
  std::vector<std::pair<std::string, std::vector<std::string>>> link_lines;
  for (const auto& file : source_files(root)) {
    if (fs::path(file).filename() != "CMakeLists.txt") continue;
    std::string folder = fs::path(file).parent_path().string();
    std::string text = without_comments(read_all(root / file));
    for (const char* kind : {"add_library", "add_executable"}) {
      for (const auto& arguments : commands(text, kind)) {
        if (arguments.size() >= 3 && arguments[1] == "ALIAS") {
          aliases[arguments[0]] = arguments[2];
          continue;
        }
        // The folder of its first source in the tree (generated ones live in the build).
        std::string where = folder;
        for (const auto& argument : arguments) {
          if (argument.find('$') != std::string::npos) continue;
          if (argument.ends_with(".cc") || argument.ends_with(".c")) {
            where = (fs::path(folder) / argument).parent_path().lexically_normal().string();
            break;
          }
        }
        targets[arguments[0]].folder = where;
      }
    }
    for (const auto& arguments : commands(text, "target_link_libraries")) {
      link_lines.emplace_back(arguments[0], arguments);
    }
  }
  for (const auto& [name, arguments] : link_lines) {
    auto& target = targets[aliases.count(name) ? aliases[name] : name];
    for (std::size_t i = 1; i < arguments.size(); ++i) {
      std::string link = aliases.count(arguments[i]) ? aliases[arguments[i]] : arguments[i];
      target.links.insert(link);
    }
  }
  return targets;
}

std::set<std::string> closure(const std::map<std::string, Target>& targets,
                              const std::string& name) {
  std::set<std::string> seen;
  std::vector<std::string> pending = {name};
  while (!pending.empty()) {
    std::string next = pending.back();
    pending.pop_back();
    auto found = targets.find(next);
    if (found == targets.end()) continue;
    for (const auto& link : found->second.links) {
      if (targets.count(link) != 0 && seen.insert(link).second) pending.push_back(link);
    }
  }
  return seen;
}

TEST(BackendLayering, OnlyTheCompositionRootLinksABackend) {
  auto targets = targets_of(testing::source_dir());
  ASSERT_TRUE(targets.count("paddock_runtime") != 0 && targets.count("paddock_native") != 0);
  std::string found;
  for (const auto& [name, target] : targets) {
    if (target.folder.empty() || skipped(target.folder + "/")) continue;
    if (may_use_backends(target.folder + "/")) continue;
    for (const auto& link : closure(targets, name)) {
      if (in_backend(targets.at(link).folder + "/")) {
        found += name + " (" + target.folder + ") links " + link + " (" + targets.at(link).folder +
                 ")\n";
      }
    }
  }
  EXPECT_TRUE(found.empty()) << "only cli/ (and the tests) may link a backend:\n" << found;
}

TEST(BackendLayering, TheLinkCheckSeesTheCompositionRootLinkTheNativeBackend) {
  auto targets = targets_of(testing::source_dir());
  EXPECT_EQ(targets["paddock_native"].folder, "runtime/native");
  EXPECT_EQ(targets["paddock_init"].folder, "runtime/native/init");
  EXPECT_EQ(closure(targets, "paddock_cli").count("paddock_native"), 1u);
  EXPECT_EQ(closure(targets, "paddock_runtime").count("paddock_native"), 0u);
  EXPECT_EQ(closure(targets, "paddock-init").count("paddock_runtime"), 0u);
}

}  // namespace
}  // namespace paddock::backend_layering_test
