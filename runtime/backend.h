#pragma once

// The seam every way of running a sandbox plugs into: the native runtime now; Docker, Podman and
// Kubernetes. A backend runs one finished, const RunPlan in a sandbox of one finished, const
// SandboxShape, and turns it into one RunResult.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/image_root.h"
#include "runtime/run_plan.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_shape.h"

namespace paddock::runtime {

enum class StreamId { kStdout, kStderr };

// Lets a caller cancel a run from another thread (or a signal handler): cancel() makes an
// eventfd readable, which the backend's supervision loop polls next to the program's output.
class CancellationToken {
 public:
  CancellationToken();
  void cancel() const;  // async-signal-safe
  [[nodiscard]] bool cancelled() const;
  [[nodiscard]] int poll_fd() const { return fd_.get(); }

 private:
  core::UniqueFd fd_;
};

// Watches a run while it happens. Every hook is optional; they are called from the thread that
// called Backend::run.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The sandbox exists; host_pid is its init process as the host sees it.
  virtual void on_started(int /*host_pid*/) {}
  // A chunk of output as it arrives, up to the output cap: what the result keeps, no more (a
  // program printing for its whole timeout must not reach the caller past the cap this way).
  virtual void on_output(StreamId /*stream*/, std::string_view /*chunk*/) {}
  // Null when the run cannot be cancelled.
  [[nodiscard]] virtual const CancellationToken* cancellation() const { return nullptr; }
};

class Session;

// A pull's progress as lines for people: "pulling docker.io/library/python:3.12: 2/5 layers".
using PullProgress = std::function<void(const std::string& line)>;

// What a backend can do beyond run(), for callers to ask instead of checking its name.
struct BackendAbilities {
  bool warm = false;    // sandboxes opened ahead of their call (runtime/warm_run.h)
  bool live = false;    // sessions keep an interpreter between calls (Session::start_resident)
  bool mounts = false;  // host folders bound into a session's sandbox
  bool paddock_images = false;  // images live in paddock's own store ('paddock pull')
  // Sessions' work directories can be walked and refilled (Session::walk_work_directory,
  // make_symlink): kept on disk across restarts, snapshotted, forked.
  bool kept_sessions = false;
  // Its sandboxes' network goes through paddock's egress proxy, which can hold a connection
  // while the user is asked about it (--ask network).
  bool asks_about_hosts = false;
};

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Default: none of them.
  [[nodiscard]] virtual BackendAbilities abilities() const { return {}; }
  // Runs `plan` in a fresh sandbox of `shape` and waits for it. An Error means paddock itself
  // failed and nothing is left running; whatever the program did is in the RunResult.
  [[nodiscard]] virtual core::Result<RunResult> run(const SandboxShape& shape, const RunPlan& plan,
                                                    RunObserver& observer) = 0;
  // What run() would refuse of `shape` and `plan` before starting anything (their paths,
  // limits, files), for a caller that carries the plan out another way (a warm sandbox).
  // Default: nothing.
  [[nodiscard]] virtual core::Status check(const SandboxShape& /*shape*/,
                                           const RunPlan& /*plan*/) const {
    return {};
  }
  // A sandbox of `shape` that stays (session.h). `base` is what every command of it starts
  // from: its environment and start directory (the policy's and the passed-through values,
  // never the shape's, so that a warm sandbox holds none); its steps are not run.
  [[nodiscard]] virtual core::Result<std::unique_ptr<Session>> open_session(
      const SandboxShape& shape, const RunPlan& base);
  // Finds `image` (a reference) where this backend takes images from: the native backend in
  // paddock's image store (`store_root`, see image_root.h), a container engine by reference
  // alone. The spec builder puts the result in the shape; the backend never rewrites one.
  [[nodiscard]] virtual core::Result<ResolvedImage> resolve_image(
      const std::string& image, const std::optional<std::string>& store_root) const;
  // Whether `image` is where this backend takes images from (paddock's store, the engine's
  // images). A cluster pulls by itself, so the default says yes.
  [[nodiscard]] virtual core::Result<bool> has_image(const std::string& image) const;
  // Fetches `image` to that place, reporting progress as it goes.
  [[nodiscard]] virtual core::Status pull_image(const std::string& image,
                                                const PullProgress& progress) const;
};

}  // namespace paddock::runtime
