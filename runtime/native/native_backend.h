#pragma once

// The native backend: paddock isolates the run itself with namespaces, a pivot_root'ed tmpfs
// root, rlimits, dropped capabilities and seccomp. No daemon, no setuid helper of its own.

#include "net/egress/proxy.h"
#include "runtime/backend.h"
#include "runtime/image_root.h"
#include "runtime/session.h"

namespace paddock::native {

// Fetches an image into paddock's store (rootfs/image_pull.h); only paddock-full links it.
using ImagePuller =
    std::function<core::Status(const std::string& image, const runtime::PullProgress& progress)>;

// What the native backend is given by the one that creates it (cli/), resolved there.
struct NativeSettings {
  std::string store_root;  // paddock's image store (rootfs/image_store.h); empty: none
  // How image roots are made (PADDOCK_IMAGE_ROOT, parsed); an invalid setting is reported when
  // an image is first resolved, as before any image run.
  core::Result<runtime::ImageRoot> image_root = runtime::ImageRoot::kAuto;
  ImagePuller puller;  // empty: images must be in the store already
  // Brokered secrets (docs/secrets.md): every sandbox with an egress proxy gets placeholders of
  // its own, and its proxy the terminator; paddock-full's composition root makes it.
  net::egress::SecretBroker broker;
};

class NativeBackend final : public runtime::Backend {
 public:
  explicit NativeBackend(NativeSettings settings = {}) : settings_(std::move(settings)) {}
  [[nodiscard]] std::string_view name() const override { return "native"; }
  [[nodiscard]] runtime::BackendAbilities abilities() const override {
    return {.warm = true,
            .live = true,
            .mounts = true,
            .paddock_images = true,
            .kept_sessions = true,
            .asks_about_hosts = true};
  }
  [[nodiscard]] core::Result<bool> has_image(const std::string& image) const override;
  [[nodiscard]] core::Status pull_image(const std::string& image,
                                        const runtime::PullProgress& progress) const override;
  [[nodiscard]] core::Result<runtime::RunResult> run(const runtime::SandboxShape& shape,
                                                     const runtime::RunPlan& plan,
                                                     runtime::RunObserver& observer) override;
  [[nodiscard]] core::Status check(const runtime::SandboxShape& shape,
                                   const runtime::RunPlan& plan) const override;
  [[nodiscard]] core::Result<std::unique_ptr<runtime::Session>> open_session(
      const runtime::SandboxShape& shape, const runtime::RunPlan& base) override;
  // From the store: `store_root` (a command's --root) when given, else the settings'.
  [[nodiscard]] core::Result<runtime::ResolvedImage> resolve_image(
      const std::string& image, const std::optional<std::string>& store_root) const override;

 private:
  NativeSettings settings_;
};

}  // namespace paddock::native
