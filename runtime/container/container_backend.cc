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
  // The session's own files (a policy's support files: the plot-capture hooks), as a native
  // session's init writes them at its start and a one-off run before its steps.
  for (const auto& file : spec.files) {
    if (auto written = (*session)->write_file(file.path, file.content); !written) {
      (*session)->close();
      return written.error().context("writing " + file.path + " into the session");
    }
  }
  return std::unique_ptr<Session>(std::move(*session));
}

Result<ResolvedImage> ContainerBackend::resolve_image(
    const std::string& image, const std::optional<std::string>& /*store_root*/) const {
  ResolvedImage resolved;
  resolved.reference = image;
  return resolved;
}

}  // namespace paddock::engine
