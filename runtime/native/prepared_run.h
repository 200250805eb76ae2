#pragma once

// Everything a run needs before clone, prepared in the parent: the child only reads it, so that
// after clone it never allocates (see child.h).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/native/id_map.h"
#include "runtime/native/init/child.h"
#include "runtime/native/init/mount_plan.h"
#include "runtime/native/seccomp/seccomp_filter.h"
#include "runtime/rlimit_plan.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::native {

struct Pipe {
  core::UniqueFd read_end;
  core::UniqueFd write_end;
};

// Everything the child reads, owned here for the whole run; the child gets raw pointers into it.
struct Prepared {
  init::MountPlan mounts;
  std::vector<runtime::RlimitSetting> rlimits;
  std::vector<std::vector<std::string>> step_storage;  // prelude commands, then argv
  std::vector<std::string> env_storage;
  std::vector<std::vector<char*>> step_argvs;  // the same, null-terminated char* arrays
  std::vector<char* const*> steps;             // what the child reads
  std::vector<char*> envp;
  std::string path_storage;
  std::vector<const char*> path_dirs;
  std::string cwd;
  std::shared_ptr<const seccomp::BpfProgram> seccomp;
  // ChildPlan::init_seccomp: null where init runs under `seccomp` itself.
  std::shared_ptr<const seccomp::BpfProgram> init_seccomp;
  core::UniqueFd stdin_fd;
  Pipe stdout_pipe;
  Pipe stderr_pipe;
  core::UniqueFd channel_parent;
  core::UniqueFd channel_child;
  std::vector<const char*> bind_sources;    // host paths, one per shape.binds entry
  std::vector<const char*> layer_sources;   // host paths of the image's layers, top first
  std::vector<std::uint8_t> network_fence;  // encoded routing rules, or empty
  std::vector<init::LateFile>
      late_files;  // plan.files_after_install, when an installer comes first
  // Whom the sandbox user is on the host when it has read-write binds (id_map.h).
  std::optional<HostOwner> bind_writer;
};

// Before clone: what the child inherits, stdin, the capture pipes and the channel.
core::Result<std::unique_ptr<Prepared>> prepare_streams(const runtime::RunPlan& plan);

// After clone, while the child becomes paddock-init: the plans, argv/envp arrays and the seccomp
// program its plan is made of. `session`: the sandbox is a session's, which may be given
// user-mode networking later. `brokered_env`: its brokered secrets' placeholders, over the plan's
// environment; `localhost_proxied`: one of them is for localhost (net::egress::proxy_env).
core::Status prepare_plan(Prepared& prepared, const runtime::SandboxShape& shape,
                          const runtime::RunPlan& plan, const init::SandboxIdentity& identity,
                          bool cgroup_mode, bool session,
                          const std::vector<std::string>& brokered_env = {},
                          bool localhost_proxied = false);

// A pipe for captured output, both ends above stdio, the read end non-blocking.
core::Result<Pipe> make_capture_pipe();

// This host's id mapping facts, probed once per process.
const IdMapHost& id_map_host();

}  // namespace paddock::native
