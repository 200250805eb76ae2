#include "runtime/container/container_backend.h"

#include "runtime/sandbox_validation.h"

namespace paddock::container {

BackendSupport container_support(std::string_view backend) {
  return {.backend = backend,
          .binds = false,
          .egress_proxy = false,
          .trust_bundle = false,
          .memory_high = false};
}

Status ContainerBackend::check(const SandboxShape& shape, const RunPlan& plan) const {
  return validate_sandbox(shape, plan, false, support());
}

Result<RunResult> ContainerBackend::run(const SandboxShape& shape, const RunPlan& plan,
                                        RunObserver& observer) {
  if (auto refused = check(shape, plan); !refused) return refused.error();
  auto session = start(shape, plan);
  if (!session) return session.error();
  return run_to_the_end(**session, shape, plan, observer);
}

Result<std::unique_ptr<Session>> ContainerBackend::open_session(const SandboxShape& shape,
                                                                const RunPlan& base) {
  if (auto valid = validate_sandbox(shape, base, true, support()); !valid) return valid.error();
  auto session = start(shape, base);
  if (!session) return session.error();
  // The session's own files (a policy's support files: the plot-capture hooks), as a native
  // session's init writes them at its start and a one-off run before its steps.
  for (const auto& file : shape.support_files) {
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

}  // namespace paddock::container
