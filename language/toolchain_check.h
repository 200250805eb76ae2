#pragma once

// Whether a language can run here, and what it lacks: its policy's requirements (the files of
// the host's /usr it needs, each with the Debian package that brings it) looked up on the host.
// A look costs a stat per file, no sandbox: `paddock doctor`, the server's start and
// get_supported_languages all use it, so a model learns that a language is missing before it
// writes code for it, and a user reads the one apt-get line that adds it.

#include <string>
#include <vector>

#include "language/policy.h"

namespace paddock::language {

struct ToolchainCheck {
  bool checked = false;  // false: the language runs from an image, which brings its own
  // The packages that would bring what is missing, by what for; none: ready.
  std::vector<std::string> run;
  std::vector<std::string> install;
  std::vector<std::string> libraries;
  std::vector<std::string> kernel;

  [[nodiscard]] bool runs() const { return run.empty(); }
  [[nodiscard]] bool complete() const {
    return run.empty() && install.empty() && libraries.empty() && kernel.empty();
  }
};

// `root`: where the sandbox's root is read from ("" for the host's own /).
ToolchainCheck check_toolchain(const LanguagePolicy& policy, const std::string& root = "");

// One line for people: "ready", or what is missing and the apt-get line that adds all of it
// ("missing for live sessions: r-cran-irkernel (sudo apt-get install r-cran-irkernel)").
std::string describe(const ToolchainCheck& check, const LanguagePolicy& policy);

// Why the language cannot run, for a model (get_supported_languages, execute_code); empty when
// it can.
std::string unavailable_reason(const ToolchainCheck& check, const LanguagePolicy& policy);

}  // namespace paddock::language
