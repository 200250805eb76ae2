#include "language/toolchain_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/text.h"

namespace paddock::language {
namespace {

bool present(const Requirement& requirement, const std::string& root) {
  std::string path = root + requirement.path;
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return false;
  if (!requirement.program) return true;
  return S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::vector<std::string> missing_packages(const std::vector<Requirement>& requirements,
                                          const std::string& root) {
  std::vector<std::string> packages;
  for (const auto& requirement : requirements) {
    if (present(requirement, root)) continue;
    if (std::find(packages.begin(), packages.end(), requirement.package) == packages.end()) {
      packages.push_back(requirement.package);
    }
  }
  return packages;
}

std::string install_line(const std::vector<std::string>& packages) {
  return "sudo apt-get install " + core::join(packages, " ");
}

}  // namespace

ToolchainCheck check_toolchain(const LanguagePolicy& policy, const std::string& root) {
  ToolchainCheck check;
  if (policy.rootfs != "host") return check;
  check.checked = true;
  const Requirements& needs = policy.requires_files;
  check.run = missing_packages(needs.run, root);
  check.install = missing_packages(needs.install, root);
  check.libraries = missing_packages(needs.libraries, root);
  check.kernel = missing_packages(needs.kernel, root);
  return check;
}

std::string describe(const ToolchainCheck& check, const LanguagePolicy& policy) {
  if (!check.checked) return "runs from " + policy.rootfs.substr(6) + " (the image brings it)";
  if (check.complete()) {
    std::string what;
    if (!policy.install.empty()) what += "library installs";
    if (!policy.kernel.name.empty())
      what += std::string(what.empty() ? "" : ", ") + "live sessions";
    return "ready" + (what.empty() ? "" : " (" + what + ")");
  }
  std::vector<std::string> all;
  std::vector<std::string> parts;
  auto add = [&](const std::vector<std::string>& packages, const char* what) {
    if (packages.empty()) return;
    parts.push_back(what + core::join(packages, " "));
    for (const auto& package : packages) {
      if (std::find(all.begin(), all.end(), package) == all.end()) all.push_back(package);
    }
  };
  add(check.run, "missing ");
  add(check.install, "missing for library installs: ");
  add(check.libraries, "missing preinstalled libraries: ");
  add(check.kernel, "missing for live sessions: ");
  std::string line = check.runs() ? "runs; " : "";
  return line + core::join(parts, "; ") + " (" + install_line(all) + ")";
}

std::string unavailable_reason(const ToolchainCheck& check, const LanguagePolicy& policy) {
  if (check.runs()) return "";
  return policy.name + " is not installed on this machine (" + core::join(check.run, ", ") +
         "): only the user can add it, with " + install_line(check.run);
}

}  // namespace paddock::language
