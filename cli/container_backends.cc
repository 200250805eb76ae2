#include "cli/container_backends.h"

#include "rootfs/image_pull.h"
#include "runtime/engine/engine_backend.h"
#include "runtime/kube/kube_backend.h"
#include "runtime/native/native_backend.h"

namespace paddock::cli {
namespace {

// The native backend's pulls, into paddock's store at `root`: only this executable links the
// registry client.
core::Status pull_into_store(const std::string& root, const rootfs::RegistryConfig& config,
                             const std::string& image, const runtime::PullProgress& progress) {
  auto reference = rootfs::parse_image_reference(image);
  if (!reference) return reference.error();
  auto store = rootfs::ImageStore::open(root);
  if (!store) return store.error();
  rootfs::PullOptions options;
  options.registry_config = config;
  options.on_progress = progress;
  auto pulled = rootfs::pull_image(*store, *reference, options);
  if (!pulled) return pulled.error();
  return {};
}

}  // namespace

BackendRegistry all_backends() {
  BackendRegistry registry;
  registry.add(
      "native",
      [](const BackendSettings& settings) -> core::Result<std::unique_ptr<runtime::Backend>> {
        native::NativeSettings native = settings.native;
        native.puller = [root = native.store_root, config = settings.registry](
                            const std::string& image, const runtime::PullProgress& progress) {
          return pull_into_store(root, config, image, progress);
        };
        return std::unique_ptr<runtime::Backend>(
            std::make_unique<native::NativeBackend>(std::move(native)));
      });
  for (const char* name : {"docker", "podman"}) {
    registry.add(name, [name](const BackendSettings& settings) {
      return engine::EngineBackend::connect(name, settings.engine);
    });
  }
  registry.add("kubernetes", [](const BackendSettings& settings) {
    return kube::KubeBackend::connect(settings.kube);
  });
  return registry;
}

}  // namespace paddock::cli
