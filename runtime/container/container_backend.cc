#include "runtime/container/container_backend.h"

#include "runtime/sandbox_validation.h"

namespace paddock::container {

runtime::BackendSupport container_support(std::string_view backend) {
  return {.backend = backend,
          .binds = false,
          .egress_proxy = false,
          .trust_bundle = false,
          .memory_high = false};
}

core::Status ContainerBackend::check(const runtime::SandboxShape& shape,
                                     const runtime::RunPlan& plan) const {
  return runtime::validate_sandbox(shape, plan, false, support());
}

core::Result<runtime::RunResult> ContainerBackend::run(const runtime::SandboxShape& shape,
                                                       const runtime::RunPlan& plan,
                                                       runtime::RunObserver& observer) {
  if (auto refused = check(shape, plan); !refused) return refused.error();
  auto session = start(shape, plan);
  if (!session) return session.error();
  return run_to_the_end(**session, shape, plan, observer);
}

core::Result<std::unique_ptr<runtime::Session>> ContainerBackend::open_session(
    const runtime::SandboxShape& shape, const runtime::RunPlan& base) {
  if (auto valid = runtime::validate_sandbox(shape, base, true, support()); !valid)
    return valid.error();
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
  return std::unique_ptr<runtime::Session>(std::move(*session));
}

core::Result<runtime::ResolvedImage> ContainerBackend::resolve_image(
    const std::string& image, const std::optional<std::string>& /*store_root*/) const {
  runtime::ResolvedImage resolved;
  resolved.reference = image;
  return resolved;
}

}  // namespace paddock::container
