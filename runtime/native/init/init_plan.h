#pragma once

// The ChildPlan as bytes, so that the sandbox's init can be a program of its own (paddock-init)
// instead of a fork of paddock: the child execs paddock-init right after clone, paddock meanwhile
// encodes the plan into a memfd the child was given and seals it, and paddock-init, once told to
// go, decodes the plan into storage of its own.
// Nothing else of paddock's memory (an MCP server's other sessions, its secrets) reaches the
// sandbox.

#include <fcntl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/native/init/child.h"

namespace paddock {

// What paddock-init requires of the plan's memfd: nothing can change it any more.
constexpr unsigned kPlanSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

// Bytes in a format private to one build of paddock and its paddock-init: both sides are built
// together, and the first field is a version that must match.
std::string encode_child_plan(const ChildPlan& plan);

// A decoded plan and everything its pointers point into.
struct DecodedPlan {
  ChildPlan plan;
  MountPlan mounts;
  std::vector<std::string> bind_storage, layer_storage, env_storage, path_storage;
  std::vector<const char*> bind_sources, layer_sources, search_path;
  std::string hostname, cwd, workdir;
  std::vector<std::uint8_t> network_fence;
  std::vector<RlimitSetting> rlimits;
  std::vector<std::string> rlimit_names;
  std::vector<std::vector<std::string>> step_storage;
  std::vector<std::vector<char*>> step_argvs;
  std::vector<char* const*> steps;
  std::vector<char*> envp;
  std::vector<std::string> late_paths, late_contents;
  std::vector<LateFile> late_files;
  std::vector<sock_filter> seccomp, init_seccomp;
  // `seccomp` with its refusals handed to the relay (init/seccomp_notify.h); empty when the
  // plan has its own init filter or the program cannot be rewritten.
  std::vector<sock_filter> notify_seccomp;
};

// nullptr when the bytes are not a plan of this build (truncated, another version).
std::unique_ptr<DecodedPlan> decode_child_plan(std::string_view bytes);

}  // namespace paddock
