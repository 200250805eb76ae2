#pragma once

// What a session may be able to do beyond running commands and moving files (runtime/session.h).
// A backend's session implements an ability or does not: Session hands out each one it has
// (Session::work_tree() and the rest), null where it has none, so a caller sees at the type
// whether an ability is there instead of calling a default that refuses or does nothing.

#include <cstdint>
#include <string>

#include "core/file_tree.h"
#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/warm_interpreter.h"

namespace paddock::runtime {

struct ExecRequest;

// A live session's resident process, as its starter holds it: the write end of its stdin, and
// the read end of its stdout and stderr together.
struct ResidentProcess {
  core::UniqueFd input;
  core::UniqueFd output;
};

// The work directory as a tree, for keeping a session on disk across restarts, snapshotting
// and forking it (the backend's `kept_sessions` ability).
class WorkTreeAccess {
 public:
  virtual ~WorkTreeAccess() = default;
  // A symlink `path` -> `target` (not checked: it is resolved inside the sandbox only), its
  // parents made as needed: a kept session's links, restored.
  [[nodiscard]] virtual core::Status make_symlink(const std::string& path,
                                                  const std::string& target) = 0;
  // A hard link `path` to the regular file `existing` of the work directory, its parents made as
  // needed: a kept session's hard links, restored as one file.
  [[nodiscard]] virtual core::Status make_hard_link(const std::string& path,
                                                    const std::string& existing) = 0;
  // Walks the whole work directory (core/file_tree.h) with no command running. Mounts inside it
  // (shares) are left out. Folders nested deeper than kWorkDirectoryDepth stop the walk (ELOOP).
  [[nodiscard]] virtual core::Status walk_work_directory(const core::TreeVisitor& visit) = 0;
  static constexpr std::uint32_t kWorkDirectoryDepth = 64;
};

// A live session's interpreter (runtime/live_kernel.h) lives in one resident process that,
// unlike a command, stays after it is started: every sweep spares it and its children (the
// kernel), and it is stopped while a command has a network. Sessions without this ability run
// each call as a new process.
class ResidentHost {
 public:
  virtual ~ResidentHost() = default;
  [[nodiscard]] virtual core::Result<ResidentProcess> start_resident(
      const ExecRequest& request) = 0;
  // Kills every process but the resident and its children (what a cell started). Waits for it.
  [[nodiscard]] virtual core::Status sweep() = 0;
  // Kills the resident and everything else in the sandbox; the files stay.
  virtual void kill_resident() = 0;
  // What a cell's result reports beside the cell, as a command's result does (the resident
  // runs no command of its own): the sandbox's isolation (its network and limits, which the
  // result's notes name), and its OOM kills and refused processes since the last command or cell.
  virtual void describe_cell(RunResult& result) = 0;
};

// A warm sandbox's interpreter (runtime/warm_interpreter.h), started in this unused sandbox.
class InterpreterParking {
 public:
  virtual ~InterpreterParking() = default;
  // Returns once the interpreter is ready (its preload done), or with why it could not start.
  // The next exec() (or exec_with_files()) of its program is carried out by it: the command's
  // streams and environment are handed to it, and its timer starts then.
  [[nodiscard]] virtual core::Status park(const WarmInterpreter& interpreter) = 0;
};

// An idle session costs no CPU (--idle-freeze): freeze() stops every process of the sandbox,
// killing none, so a live interpreter keeps its state; thaw() lets them run again. Memory stays
// as it is and counted as before. Nothing else may be asked of a frozen session until it is
// thawed (the session registry thaws before any use); closing it works frozen. Never while a
// command or file operation runs: EBUSY then.
class IdleFreezing {
 public:
  virtual ~IdleFreezing() = default;
  [[nodiscard]] virtual core::Status freeze() = 0;
  [[nodiscard]] virtual core::Status thaw() = 0;
  [[nodiscard]] virtual bool frozen() const = 0;
};

// A preview's way into the sandbox (net/preview/forwarder.h): the factory of sockets made in
// the sandbox's own network namespace, handed over once (the forwarder keeps it for every preview
// of the session). ENOTSUP where this sandbox has none.
class PreviewSockets {
 public:
  virtual ~PreviewSockets() = default;
  [[nodiscard]] virtual core::Result<core::UniqueFd> take_preview_factory() = 0;
  // Whether something in the sandbox listens on its own 127.0.0.1:`port`, now
  // (net/preview/listening.h): no connection made, and no thaw needed.
  [[nodiscard]] virtual core::Result<bool> listening(std::uint16_t port) = 0;
};

}  // namespace paddock::runtime
