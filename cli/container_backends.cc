#include "cli/container_backends.h"

#include "rootfs/image_pull.h"
#include "runtime/engine/engine_backend.h"
#include "runtime/kube/kube_backend.h"
#include "runtime/native/native_backend.h"

namespace paddock {
namespace {

// The native backend's pulls, into paddock's store: only this executable links the registry
// client.
Status pull_into_store(const std::string& image, const PullProgress& progress) {
  auto reference = rootfs::parse_image_reference(image);
  if (!reference) return reference.error();
  auto store = rootfs::ImageStore::open();
  if (!store) return store.error();
  rootfs::PullOptions options;
  options.on_progress = progress;
  auto pulled = rootfs::pull_image(*store, *reference, options);
  if (!pulled) return pulled.error();
  return {};
}

}  // namespace

BackendRegistry all_backends() {
  BackendRegistry registry;
  registry.add("native", [](const BackendSettings&) -> Result<std::unique_ptr<Backend>> {
    return std::unique_ptr<Backend>(std::make_unique<NativeBackend>(pull_into_store));
  });
  for (const char* name : {"docker", "podman"}) {
    registry.add(name,
                 [name](const BackendSettings&) { return engine::EngineBackend::connect(name); });
  }
  registry.add("kubernetes", [](const BackendSettings& settings) {
    return kube::KubeBackend::connect(
        settings.kube_namespace,
        kube::PodOptions{.start_seconds = settings.pod_start_seconds,
                         .pull_images = settings.pull_images,
                         .seccomp_profile = settings.kube_seccomp_profile});
  });
  return registry;
}

}  // namespace paddock
