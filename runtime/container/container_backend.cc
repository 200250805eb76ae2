#include "runtime/container/container_backend.h"

#include "runtime/sandbox_validation.h"

namespace paddock::container {

namespace {

// An allowlist this backend cannot enforce is refused, never dropped: the program would
// otherwise run with whatever network the engine gives, or none, without a word.
Status refuse_allowlist(const ContainerBackend& backend, const SandboxShape& shape,
                        const RunPlan& plan) {
  if (!shape.allowed_hosts.empty()) {
    return Error{ENOTSUP, "the " + std::string(backend.name()) +
                              " backend cannot enforce an egress allowlist (--allow-host) yet; "
                              "use the native backend for it"};
  }
  // Likewise an installer limited to its package index: it must not get the engine's whole
  // network instead. Giving it that is the operator's choice, made by name.
  if (plan.networked_steps > 0 && !plan.installer_allowed_hosts.empty() &&
      shape.network == NetworkMode::kNone) {
    return Error{ENOTSUP, "the " + std::string(backend.name()) +
                              " backend cannot limit a library installer to its package index "
                              "(the policy's network.install_allow); use the native backend, or "
                              "give installers the open network by name (paddock mcp "
                              "--install-network user, or network.install \"user\" in a policy "
                              "override)"};
  }
  return {};
}

}  // namespace

Status ContainerBackend::check(const SandboxShape& shape, const RunPlan& plan) const {
  if (auto valid = validate_sandbox(shape, plan); !valid) return valid;
  return refuse_allowlist(*this, shape, plan);
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
  if (auto valid = validate_sandbox(shape, base, true); !valid) return valid.error();
  if (auto refused = refuse_allowlist(*this, shape, base); !refused) return refused.error();
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
