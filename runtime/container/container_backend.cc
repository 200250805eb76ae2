#include "runtime/container/container_backend.h"

namespace paddock::engine {

Result<RunResult> ContainerBackend::run(const SandboxSpec& spec, RunObserver& observer) {
  auto session = start(spec);
  if (!session) return session.error();
  return run_to_the_end(**session, spec, observer);
}

Result<std::unique_ptr<Session>> ContainerBackend::open_session(const SandboxSpec& spec) {
  auto session = start(spec);
  if (!session) return session.error();
  return std::unique_ptr<Session>(std::move(*session));
}

Result<ResolvedImage> ContainerBackend::resolve_image(
    const std::string& image, const std::optional<std::string>& /*store_root*/) const {
  ResolvedImage resolved;
  resolved.reference = image;
  return resolved;
}

}  // namespace paddock::engine
