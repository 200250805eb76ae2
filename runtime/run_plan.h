#pragma once

// What one call brings to a sandbox: its steps, files, environment, stdin, timer, output cap
// and output collection. The sandbox itself is a SandboxShape (sandbox_shape.h). Secrets (the
// values passed through from the server's own environment) are only ever here, so that a
// sandbox waiting for a call holds none. Built once (language/spec_builder.h), never patched.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/egress/host_consent.h"
#include "runtime/sandbox_parts.h"

namespace paddock::runtime {

struct RunPlan {
  // Commands run one after another in the same sandbox, the program last (argv[0] is looked up
  // in PATH inside the sandbox): e.g. an installer, a compiler, the program. The first that
  // does not exit 0 ends the run, and the result says which step that was.
  std::vector<std::vector<std::string>> steps;
  // The first this many steps (a library installer) get the installer's network; it is taken
  // away again before the next step unless the shape's network is kUser.
  std::size_t networked_steps = 0;
  // The installer's allowlist (its package index): when set, the networked steps reach out only
  // through the sandbox's egress proxy with this list instead of user-mode networking; the
  // list is replaced by the shape's allowed_hosts (or nothing) before the next step. The
  // installer's own environment must carry net::egress::proxy_env().
  std::vector<std::string> installer_allowed_hosts;
  std::vector<SandboxFile> files;  // written into the work directory before the first step
  // The caller's own files: written right before the first step after the networked ones (the
  // installer), so that no installer ever sees them; with no installer, before the first step.
  std::vector<SandboxFile> files_after_install;
  std::vector<std::string> env;               // "K=V"; the host environment never leaks in
  std::string cwd;                            // start directory; empty means the work directory
  std::optional<std::string> stdin_path;      // host file given as stdin; none means /dev/null
  int stdin_fd = -1;                          // or an fd the caller owns (takes precedence)
  double wall_seconds = kDefaultWallSeconds;  // all the steps together; then the run is killed
  std::uint64_t output_bytes = 1ull << 20;    // captured per stream; the rest is dropped
  OutputCollection collect;                   // nothing by default
  // Who is asked about a destination the egress allowlist does not cover, while this run lasts
  // (SandboxShape::ask_network); null: refused.
  std::shared_ptr<net::egress::HostConsent> consent;

  // The program's command (the last step); empty when there are no steps.
  [[nodiscard]] const std::vector<std::string>& program() const;

  bool operator==(const RunPlan&) const = default;
};

// A plan's timer and output cap with a shape's limits: every limit of one run, as the audit log
// and the isolation report name them.
Limits limits_of(const SandboxLimits& sandbox, const RunPlan& plan);

}  // namespace paddock::runtime
