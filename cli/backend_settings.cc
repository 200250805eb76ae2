#include "cli/backend_settings.h"

#include "cli/host_paths.h"
#include "runtime/image_root.h"

namespace paddock::cli {

BackendSettings backend_settings(const config::Environment& env) {
  BackendSettings settings;
  settings.native.store_root = default_store_root(env);
  settings.native.image_root = runtime::parse_image_root(env("PADDOCK_IMAGE_ROOT"));
  settings.registry = registry_config(env);

  engine::EngineSettings& engine = settings.engine;
  engine.docker_host = env("DOCKER_HOST");
  auto tls = env("DOCKER_TLS_VERIFY");
  engine.docker_tls_verify = tls && *tls != "0";
  engine.docker_cert_path = env("DOCKER_CERT_PATH");
  engine.home = env("HOME");
  engine.container_host = env("CONTAINER_HOST");
  engine.runtime_dir = env("XDG_RUNTIME_DIR");
  engine.network = env("PADDOCK_ENGINE_NETWORK");

  kube::KubeSettings& kube = settings.kube;
  kube.namespace_name = env("PADDOCK_KUBE_NAMESPACE");
  if (auto profile = env("PADDOCK_KUBE_SECCOMP_PROFILE")) {
    kube.pods.seccomp_profile = profile;
    kube.seccomp_profile_source = "PADDOCK_KUBE_SECCOMP_PROFILE";
  }
  kube.location.kubeconfig = env("KUBECONFIG");
  kube.location.home = env("HOME");
  kube.location.service_host = env("KUBERNETES_SERVICE_HOST");
  kube.location.service_port = env("KUBERNETES_SERVICE_PORT");
  return settings;
}

kube::KubeSettings kube_choices(const app::ServerOptions& options) {
  kube::KubeSettings chosen;
  chosen.namespace_name = options.kube_namespace;
  if (options.pod_start_seconds) chosen.pods.start_seconds = *options.pod_start_seconds;
  chosen.pods.seccomp_profile = options.kube_seccomp_profile;
  chosen.seccomp_profile_source = "--kube-seccomp-profile";
  return chosen;
}

BackendSettings backend_settings(const config::Environment& env, const kube::KubeSettings& chosen,
                                 bool pull_images) {
  BackendSettings settings = backend_settings(env);
  kube::ClusterLocation location = std::move(settings.kube.location);
  settings.kube = chosen;
  settings.kube.location = std::move(location);
  settings.kube.pods.pull_images = pull_images;
  return settings;
}

}  // namespace paddock::cli
