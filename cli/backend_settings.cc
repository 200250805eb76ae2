#include "cli/backend_settings.h"

#include "cli/host_paths.h"
#include "runtime/image_root.h"

namespace paddock::cli {

BackendSettings backend_settings(const config::Environment& env) {
  BackendSettings settings;
  settings.native.store_root = default_store_root(env);
  settings.native.image_root = parse_image_root(env("PADDOCK_IMAGE_ROOT"));
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

}  // namespace paddock::cli
