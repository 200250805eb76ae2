// create_session: a sandbox that stays, for files and libraries across execute_code calls.

#include "app/code_runner.h"
#include "app/kept_sessions.h"
#include "app/live_session.h"
#include "core/text.h"
#include "language/language_run.h"
#include "mcp/content.h"
#include "mcp/interpreter_content.h"
#include "mcp/progress_observer.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "state/state_names.h"
#include "state/workspace_archive.h"

namespace paddock::mcp {
namespace {

class CreateSession final : public Tool {
 public:
  explicit CreateSession(std::string default_language)
      : default_language_(std::move(default_language)) {}
  std::string name() const override { return "create_session"; }
  json definition() const override {
    return {
        {"name", name()},
        {"title", "Create a session"},
        {"description",
         "A sandbox that stays: execute_code calls with its session_id keep its /work files "
         "and libraries, across server restarts too. python and r sessions (native backend) "
         "are live: each call is a notebook cell, variables persist, the last expression is "
         "shown. Closes after ttl_seconds idle or close_session."},
        {"inputSchema",
         {{"type", "object"},
          {"properties",
           {{"language", language_property(default_language_)},
            {"libraries", libraries_property("Packages to install now.")},
            {"live",
             {{"type", "boolean"},
              {"default", true},
              {"description", "false: a new process per call."}}},
            {"mounts",
             {{"type", "array"},
              {"maxItems", 8},
              {"description", "Shares to mount in place (native backend); rw if the share allows."},
              {"items",
               {{"type", "object"},
                {"properties",
                 {{"share", {{"type", "string"}}},
                  {"path", {{"type", "string"}, {"description", "Under /work or /mnt."}}},
                  {"rw", {{"type", "boolean"}, {"default", false}}}}},
                {"required", {"share"}},
                {"additionalProperties", false}}}}},
            {"ttl_seconds",
             {{"type", "number"},
              {"exclusiveMinimum", 0},
              {"description", "Idle seconds before closing (default 1800)."}}},
            {"name",
             {{"type", "string"},
              {"maxLength", 64},
              {"description", "Unique; usable as session_id."}}},
            {"from_snapshot",
             {{"type", "object"},
              {"description", "Start from it."},
              {"properties",
               {{"session_id", session_id_property()}, {"snapshot", {{"type", "string"}}}}},
              {"required", {"session_id", "snapshot"}},
              {"additionalProperties", false}}},
            {"from_archive",
             {{"type", "string"}, {"description", "Start from SHARE/x.tar.zst."}}}}},
          {"additionalProperties", false}}},
        {"outputSchema", output_schema()},
        {"annotations", annotations("Create a session", false, false)}};
  }

  static json output_schema() {
    json schema = {{"type", "object"},
                   {"properties", interpreter_schema_properties()},
                   {"required", {"session_id", "live"}}};
    schema["properties"]["session_id"] = {{"type", "string"}};
    return schema;
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    return create(arguments, context, name());
  }

  // create_session's work, also fork_session's (`tool` names the caller).
  ToolResult create(const json& arguments, ToolContext& context, const std::string& tool) const {
    app::ServerState& state = context.state;
    std::string session_name = arguments.value("name", "");
    std::function<Status(int)> fill;
    std::string language = arguments.value("language", "");
    if (auto kept = kept_arguments(state, arguments, session_name, fill, language); !kept) {
      return tool_error(kept.error().message);
    }
    if (language.empty()) language = default_language_;
    auto policy = state.policies().find(language);
    if (!policy) return tool_error(policy.error().message);
    // The shares' binds go into the builder with the rest: the shape is never patched after.
    std::vector<BindMount> binds;
    auto mounts = add_mounts(state, **policy, arguments, binds);
    if (!mounts) return tool_error(mounts.error().message);
    auto spec = app::session_spec(state, **policy, context.progress, binds);
    if (!spec) return tool_error(spec.error().message);
    bool kept = state.state_dir() != nullptr;
    std::uint64_t full_size = spec->shape.limits.work_bytes;
    if (kept) {
      auto room = app::kept_session_room(state, full_size, 0);
      if (!room) return tool_error(room.error().message);
      spec->shape.limits.work_bytes = *room;
    }
    auto libraries = arguments.value("libraries", std::vector<std::string>{});
    bool live = arguments.value("live", true);
    // A plain live session takes a sandbox whose kernel is ready, when one waits; the pool keeps
    // one waiting for the language's next from now on.
    std::unique_ptr<app::ReadyKernel> ready;
    if (live && libraries.empty() && binds.empty() && !fill &&
        spec->shape.limits.work_bytes == full_size && !(*policy)->kernel.name.empty()) {
      ready = state.kernels().take((*policy)->name, spec->shape, std::nullopt, spec->plan);
    }
    if (auto room = state.sessions().reserve(); !room) {
      state.kernels().retire(std::move(ready));
      return tool_error(room.error().message);
    }
    // Warm sandboxes and ready kernels give way: with the sessions they stay within
    // --max-sessions.
    state.warm().fit();
    state.kernels().fit();
    std::unique_ptr<LiveKernel> kernel = ready ? std::move(ready->kernel) : nullptr;
    auto opened = ready ? Result<std::unique_ptr<Session>>(std::move(ready->session))
                        : state.backend().open_session(spec->shape, spec->plan);
    Limits limits = limits_of(spec->shape.limits, spec->plan);
    record_mounts(state, **policy, limits, *mounts, opened ? "done" : "error");
    if (!opened) {
      state.sessions().unreserve();
      return tool_error("could not create the session: " +
                        without_host_paths(state.shares(), opened.error().message));
    }
    auto entry =
        state.sessions().add(std::move(*opened), **policy,
                             arguments.value("ttl_seconds", state.options().session_idle_seconds));
    // In use while it is set up: neither frozen nor expired under its install or kernel start.
    app::SessionLease setting_up(entry);
    entry->limits = limits;
    entry->mounts = std::move(*mounts);
    if (kept) {
      auto workspace =
          app::make_kept_workspace(state, entry->id, session_name, (*policy)->name, fill);
      if (!workspace) {
        state.sessions().close(entry->id);
        return tool_error("could not create the session: " + workspace.error().message);
      }
      std::lock_guard lock(entry->run_mutex);
      entry->kept = std::move(*workspace);
      app::attach_state_disk_room(state, *entry);
      entry->name = session_name;
      if (fill) {
        if (auto restored = app::restore_session_files(*entry); !restored) {
          (void)state.state_dir()->remove(*entry->kept);
          entry->kept.reset();
          state.sessions().close(entry->id);
          return tool_error("could not create the session: " + restored.error().message);
        }
      }
    }
    std::string text = "session " + entry->id + " (" + (*policy)->name + ")";
    if (!session_name.empty()) text += " named " + session_name;
    if (!libraries.empty()) {
      ProgressObserver observer(context);
      auto installed = app::install_in_session(*entry, state, libraries, observer, tool);
      if (auto why = app::install_failure(installed)) {
        state.sessions().close(entry->id);
        std::lock_guard lock(entry->run_mutex);
        if (entry->kept) (void)state.state_dir()->remove(*entry->kept);
        entry->kept.reset();
        return tool_error("installing libraries failed, so the session was closed: " + *why);
      }
      text += " with " + counted(libraries.size(), "library", "libraries") + " installed";
    }
    // After the install: the interpreter starts with the libraries there.
    {
      std::lock_guard lock(entry->run_mutex);
      if (kernel) {
        app::adopt_interpreter(*entry, std::move(kernel));
      } else {
        app::start_interpreter(*entry, live, state.secrets());
      }
    }
    std::string not_kept = app::keep_session_files(*entry);
    if (not_kept.empty() && entry->kept) {
      std::lock_guard lock(entry->run_mutex);
      auto marked = entry->kept->mark_created(app::state_disk_room(state));
      state.state_dir()->note_changed();
      if (!marked) {
        not_kept =
            "the session's start could not be kept for diff_session: " + marked.error().message;
      }
    }
    ToolResult result;
    for (const auto& mount : entry->mounts) {
      text += "; share " + mount.share + " mounted at " + mount.path +
              (mount.writable ? " (read-write)" : " (read-only)");
    }
    result.content.push_back(text_block(text + "; " + app::interpreter_line(*entry)));
    if (!not_kept.empty()) result.content.push_back(text_block(not_kept));
    result.structured = interpreter_json(*entry);
    result.structured["session_id"] = entry->id;
    result.structured["kept"] = entry->kept != nullptr;
    if (!session_name.empty()) result.structured["name"] = session_name;
    return result;
  }

  // Fills a new workspace from an archive in a share, under the image layers' rules
  // (state/workspace_archive.h), within the session's quotas.
  static Status archive_fill(app::ServerState& state, const std::string& host_path,
                             std::function<Status(int)>& fill) {
    auto where = state.shares().locate(host_path);
    if (!where) return where.error();
    auto archive = app::open_share_for_reading(*where);
    if (!archive) return archive.error();
    auto held = std::make_shared<UniqueFd>(std::move(*archive));
    state::ArchiveLimits limits;
    limits.max_bytes = state.options().session_disk.value_or(SandboxLimits{}.work_bytes);
    limits.max_entries = state.options().session_files;
    std::string shown = where->shown();
    fill = [held, limits, shown](int target) -> Status {
      auto imported = state::import_tree(held->get(), target, limits);
      if (!imported) return imported.error().context("importing " + shown);
      return {};
    };
    return {};
  }

  // What create_session's name and from_snapshot ask of the state directory, checked before any
  // sandbox is made: `fill` then writes the snapshot's files into the new workspace, and
  // `language` is the snapshot's session's when none was given.
  static Status kept_arguments(app::ServerState& state, const json& arguments,
                               const std::string& session_name, std::function<Status(int)>& fill,
                               std::string& language) {
    bool asks = !session_name.empty() || arguments.contains("from_snapshot") ||
                arguments.contains("from_archive");
    if (!asks) return {};
    if (state.state_dir() == nullptr) {
      return invalid_input(
          "this server keeps no sessions on disk (--state-dir none, or a backend that cannot), "
          "so sessions have no names or snapshots");
    }
    if (!session_name.empty()) {
      if (auto valid = state::check_state_name(session_name, "name"); !valid) return valid;
      if (state.sessions().find(session_name) || state.state_dir()->resolve(session_name)) {
        return invalid_input("a session named '" + session_name +
                             "' exists already: choose another name, or use that session");
      }
    }
    if (arguments.contains("from_archive")) {
      if (arguments.contains("from_snapshot")) {
        return invalid_input("give from_snapshot or from_archive, not both");
      }
      return archive_fill(state, arguments["from_archive"].get<std::string>(), fill);
    }
    if (!arguments.contains("from_snapshot")) return {};
    std::string source = arguments["from_snapshot"]["session_id"].get<std::string>();
    std::string snapshot = arguments["from_snapshot"]["snapshot"].get<std::string>();
    if (auto valid = state::check_state_name(snapshot, "snapshot"); !valid) return valid;
    std::string source_language;
    auto shared =
        app::with_workspace(state, source, [&](state::SavedWorkspace& workspace) -> Status {
          source_language = workspace.info().language;
          auto files = workspace.files(snapshot);
          if (!files) return files.error();
          // Linked now, while the source is held: a later change of it makes new files.
          auto held = std::make_shared<UniqueFd>(std::move(*files));
          std::uint64_t room = app::state_disk_room(state);
          fill = [held, room](int target) -> Status {
            auto linked = state::link_tree(held->get(), target, room);
            if (linked) return {};
            if (linked.error().code != ENOSPC) return linked.error();
            return Error{ENOSPC, "the state directory has no room for a copy of the snapshot: " +
                                     linked.error().message};
          };
          return {};
        });
    if (!shared) return shared;
    if (language.empty()) language = source_language;
    if (language != source_language) {
      return invalid_input("snapshot '" + snapshot + "' is of a " + source_language +
                           " session; a " + language + " session cannot start from it");
    }
    return {};
  }

 private:
  // The shares `arguments` asks to mount, added to the spec's binds.
  static Result<std::vector<app::ShareMount>> add_mounts(const app::ServerState& state,
                                                         const LanguagePolicy& policy,
                                                         const json& arguments,
                                                         std::vector<BindMount>& binds) {
    std::vector<app::ShareMount> mounts;
    if (!arguments.contains("mounts") || arguments["mounts"].empty()) return mounts;
    std::string workdir = SandboxShape{}.workdir;
    std::vector<std::string> own_folders = language_own_folders(policy, workdir);
    for (const auto& asked : arguments["mounts"]) {
      app::ShareMount mount{asked["share"].get<std::string>(), asked.value("path", ""),
                            asked.value("rw", false)};
      auto bind = app::share_bind(state.shares(), mount, workdir, own_folders);
      if (!bind) return bind.error();
      for (const auto& other : binds) {
        if (other.sandbox_path == bind->sandbox_path) {
          return invalid_input("mounts: two mounts at " + bind->sandbox_path);
        }
      }
      binds.push_back(std::move(*bind));
      mounts.push_back(std::move(mount));
    }
    // After the shares are checked, so that a wrong name is what the model hears first.
    if (!state.backend().abilities().mounts) {
      return invalid_input("mounts work on the native backend only; on " +
                           std::string(state.backend().name()) +
                           " copy files in and out with upload_file and download_file instead");
    }
    return mounts;
  }

  // The model knows shares by name: a refusal about a mount's folder says its share instead.
  static std::string without_host_paths(const app::Shares& shares, std::string message) {
    for (const auto& share : shares.all()) {
      for (std::size_t at; (at = message.find(share.host_dir)) != std::string::npos;) {
        message.replace(at, share.host_dir.size(), "share '" + share.name + "'");
      }
    }
    return message;
  }

  // One audit line for the mounts of a session, whether it opened or not.
  static void record_mounts(const app::ServerState& state, const LanguagePolicy& policy,
                            const Limits& limits, const std::vector<app::ShareMount>& mounts,
                            const std::string& outcome) {
    if (mounts.empty()) return;
    app::AuditRecord record;
    record.tool = "create_session";
    record.language = policy.name;
    record.backend = state.backend().name();
    record.limits = limits;
    record.outcome = outcome;
    for (const auto& mount : mounts) {
      app::HostFileRecord file;
      file.action = "mount";
      file.host_path = state.shares().find(mount.share)->host_dir;
      file.session_path = mount.path;
      file.writable = mount.writable;
      record.host_files.push_back(std::move(file));
    }
    state.record(record);
  }

  std::string default_language_;
};

// A snapshot of a session and a new session from it, in one call.
class ForkSession final : public Tool {
 public:
  explicit ForkSession(std::string default_language) : create_(std::move(default_language)) {}
  std::string name() const override { return "fork_session"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Fork a session"},
            {"description",
             "A new session with a copy of a session's files and libraries (not variables)."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"name", {{"type", "string"}, {"maxLength", 64}}},
                {"live", {{"type", "boolean"}, {"default", true}}}}},
              {"required", {"session_id"}},
              {"additionalProperties", false}}},
            {"outputSchema", CreateSession::output_schema()},
            {"annotations", annotations("Fork a session", false, false)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string source = arguments["session_id"].get<std::string>();
    if (auto room = app::check_state_room(context.state); !room) {
      return tool_error("no fork made: " + room.error().message);
    }
    std::string snapshot;
    std::uint64_t room = app::state_disk_room(context.state);
    auto made = app::with_workspace(context.state, source, [&](state::SavedWorkspace& workspace) {
      // A name of its own: the first free "fork-N".
      auto taken = workspace.snapshots();
      for (int n = 1;; ++n) {
        snapshot = "fork-" + std::to_string(n);
        if (!taken || std::none_of(taken->begin(), taken->end(),
                                   [&](const auto& one) { return one.name == snapshot; })) {
          break;
        }
      }
      return workspace.snapshot(snapshot, room);
    });
    context.state.state_dir()->note_changed();
    if (!made) return tool_error(made.error().message);
    json create = {{"from_snapshot", {{"session_id", source}, {"snapshot", snapshot}}},
                   {"live", arguments.value("live", true)}};
    if (arguments.contains("name")) create["name"] = arguments["name"];
    ToolResult result = create_.create(create, context, name());
    if (!result.is_error) {
      result.content.push_back(
          text_block("forked from session " + source + " (its snapshot '" + snapshot + "')"));
    }
    return result;
  }

 private:
  CreateSession create_;
};

}  // namespace

std::unique_ptr<Tool> make_create_session(const std::string& default_language) {
  return std::make_unique<CreateSession>(default_language);
}

std::unique_ptr<Tool> make_fork_session(const std::string& default_language) {
  return std::make_unique<ForkSession>(default_language);
}

}  // namespace paddock::mcp
