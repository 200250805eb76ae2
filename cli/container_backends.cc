#include "cli/container_backends.h"

#include "rootfs/image_pull.h"
#include "runtime/engine/engine_backend.h"
#include "runtime/kube/kube_backend.h"
#include "runtime/native/native_backend.h"

namespace paddock {
namespace {

// The native backend's pulls, into paddock's store at `root`: only this executable links the
// registry client.
Status pull_into_store(const std::string& root, const rootfs::RegistryConfig& config,
                       const std::string& image, const PullProgress& progress) {
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
  registry.add("native", [](const BackendSettings& settings) -> Result<std::unique_ptr<Backend>> {
    NativeSettings native = settings.native;
    native.puller = [root = native.store_root, config = settings.registry](
                        const std::string& image, const PullProgress& progress) {
      return pull_into_store(root, config, image, progress);
    };
    return std::unique_ptr<Backend>(std::make_unique<NativeBackend>(std::move(native)));
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

}  // namespace paddock
