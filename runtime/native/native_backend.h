#pragma once

// The native backend: paddock isolates the run itself with namespaces, a pivot_root'ed tmpfs
// root, rlimits, dropped capabilities and seccomp. No daemon, no setuid helper of its own.

#include "runtime/backend.h"
#include "runtime/session.h"

namespace paddock {

// Fetches an image into paddock's store (rootfs/image_pull.h); only paddock-full links it.
using ImagePuller = std::function<Status(const std::string& image, const PullProgress& progress)>;

class NativeBackend final : public Backend {
 public:
  explicit NativeBackend(ImagePuller puller = {}) : puller_(std::move(puller)) {}
  [[nodiscard]] std::string_view name() const override { return "native"; }
  [[nodiscard]] BackendAbilities abilities() const override {
    return {.warm = true, .live = true, .mounts = true, .paddock_images = true};
  }
  [[nodiscard]] Result<bool> has_image(const std::string& image) const override;
  [[nodiscard]] Status pull_image(const std::string& image,
                                  const PullProgress& progress) const override;
  [[nodiscard]] Result<RunResult> run(const SandboxShape& shape, const RunPlan& plan,
                                      RunObserver& observer) override;
  [[nodiscard]] Status check(const SandboxShape& shape, const RunPlan& plan) const override;
  [[nodiscard]] Result<std::unique_ptr<Session>> open_session(const SandboxShape& shape,
                                                              const RunPlan& base) override;

 private:
  ImagePuller puller_;
};

}  // namespace paddock
