#include "runtime/native/init/init_plan.h"

#include <cstring>

#include "runtime/native/init/seccomp_notify.h"

namespace paddock {
namespace {

// Bumped whenever the layout below changes; paddock and paddock-init are built together, so a
// mismatch means a stale paddock-init beside a new paddock.
// 2: the plan is read after go, from a memfd paddock sealed (PADDOCK_INIT_CHANNEL_FD).
constexpr std::uint32_t kPlanVersion = 3;

class Writer {
 public:
  void number(std::uint64_t value) { bytes_.append(reinterpret_cast<const char*>(&value), 8); }
  void text(std::string_view value) {
    number(value.size());
    bytes_.append(value);
  }
  void texts(const std::vector<const char*>& values) {
    number(values.size());
    for (const char* value : values) text(value);
  }
  void argv(char* const* values) {
    std::size_t count = 0;
    while (values[count] != nullptr) ++count;
    number(count);
    for (std::size_t i = 0; i < count; ++i) text(values[i]);
  }
  void filter(const sock_fprog& program) {
    text(std::string_view(reinterpret_cast<const char*>(program.filter),
                          program.len * sizeof(sock_filter)));
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t number() {
    std::uint64_t value = 0;
    if (bytes_.size() < 8) {
      failed_ = true;
      return 0;
    }
    std::memcpy(&value, bytes_.data(), 8);
    bytes_.remove_prefix(8);
    return value;
  }
  std::string text() {
    std::uint64_t size = number();
    if (size > bytes_.size()) {
      failed_ = true;
      return {};
    }
    std::string value(bytes_.substr(0, size));
    bytes_.remove_prefix(size);
    return value;
  }
  std::vector<std::string> texts() {
    std::vector<std::string> values;
    for (std::uint64_t count = number(); count > 0 && !failed_; --count) values.push_back(text());
    return values;
  }
  std::vector<sock_filter> filter() {
    std::string raw = text();
    std::vector<sock_filter> program(raw.size() / sizeof(sock_filter));
    if (raw.size() % sizeof(sock_filter) != 0) failed_ = true;
    // An empty filter's data() is null, which memcpy must not get even for no bytes.
    if (!program.empty()) {
      std::memcpy(program.data(), raw.data(), program.size() * sizeof(sock_filter));
    }
    return program;
  }
  [[nodiscard]] bool ok() const { return !failed_ && bytes_.empty(); }
  // Past the end already: the counts that follow are not to be believed or looped over.
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  std::string_view bytes_;
  bool failed_ = false;
};

std::vector<const char*> pointers(const std::vector<std::string>& storage) {
  std::vector<const char*> result;
  for (const auto& value : storage) result.push_back(value.c_str());
  return result;
}

std::vector<char*> null_terminated(std::vector<std::string>& storage) {
  std::vector<char*> result;
  for (auto& value : storage) result.push_back(value.data());
  result.push_back(nullptr);
  return result;
}

sock_fprog as_fprog(std::vector<sock_filter>& program) {
  return sock_fprog{static_cast<unsigned short>(program.size()), program.data()};
}

}  // namespace

std::string encode_child_plan(const ChildPlan& plan) {
  Writer out;
  out.number(kPlanVersion);
  out.number(static_cast<std::uint64_t>(plan.fds.channel));
  out.number(plan.mounts->steps.size());
  for (const MountStep& step : plan.mounts->steps) {
    out.number(static_cast<std::uint64_t>(step.kind));
    out.text(step.target);
    out.text(step.source);
    out.text(step.content);
    out.text(step.options);
    out.number(step.mode);
    out.number(static_cast<std::uint64_t>(step.protect));
    out.number(static_cast<std::uint64_t>(step.bind_slot));
    out.number(static_cast<std::uint64_t>(step.layer_slot));
    out.number(step.optional ? 1 : 0);
  }
  out.texts(*plan.bind_sources);
  out.texts(*plan.layer_sources);
  out.number(plan.uid);
  out.number(plan.gid);
  out.number(plan.setgroups_allowed ? 1 : 0);
  out.number(plan.private_loopback ? 1 : 0);
  out.number(plan.preview_factory ? 1 : 0);
  out.number(plan.late_network ? 1 : 0);
  out.number(plan.proxy_port);
  out.text(plan.hostname);
  static const std::vector<std::uint8_t> no_fence;
  const auto& fence = plan.network_fence != nullptr ? *plan.network_fence : no_fence;
  out.text(std::string_view(reinterpret_cast<const char*>(fence.data()), fence.size()));
  out.number(plan.rlimits->size());
  for (const RlimitSetting& setting : *plan.rlimits) {
    out.number(static_cast<std::uint64_t>(setting.resource));
    out.number(setting.value);
    out.number(setting.hard);
    out.text(setting.name != nullptr ? setting.name : "");
  }
  out.text(plan.cwd);
  out.text(plan.workdir);
  out.number(plan.steps->size());
  for (char* const* step : *plan.steps) out.argv(step);
  out.number(plan.pause_before_step);
  static const std::vector<LateFile> no_files;
  const auto& late = plan.late_files != nullptr ? *plan.late_files : no_files;
  out.number(late.size());
  for (const LateFile& file : late) {
    out.text(file.path);
    out.text(std::string_view(file.content, file.size));
    out.number(file.mode);
  }
  out.number(plan.late_files_step);
  out.number(plan.session ? 1 : 0);
  out.argv(plan.envp);
  out.texts(*plan.search_path);
  out.filter(plan.seccomp);
  out.filter(plan.init_seccomp);
  out.number(static_cast<std::uint64_t>(plan.fds.stdin_fd));
  out.number(static_cast<std::uint64_t>(plan.fds.stdout_fd));
  out.number(static_cast<std::uint64_t>(plan.fds.stderr_fd));
  return out.take();
}

std::unique_ptr<DecodedPlan> decode_child_plan(std::string_view bytes) {
  Reader in(bytes);
  if (in.number() != kPlanVersion) return nullptr;
  auto decoded = std::make_unique<DecodedPlan>();
  DecodedPlan& d = *decoded;
  d.plan.fds.channel = static_cast<int>(in.number());
  for (std::uint64_t count = in.number(); count > 0 && count < (1u << 20) && !in.failed();
       --count) {
    MountStep step;
    step.kind = static_cast<MountStep::Kind>(in.number());
    step.target = in.text();
    step.source = in.text();
    step.content = in.text();
    step.options = in.text();
    step.mode = static_cast<mode_t>(in.number());
    step.protect = static_cast<MountStep::Protect>(in.number());
    step.bind_slot = static_cast<int>(in.number());
    step.layer_slot = static_cast<int>(in.number());
    step.optional = in.number() != 0;
    d.mounts.steps.push_back(std::move(step));
  }
  d.bind_storage = in.texts();
  d.layer_storage = in.texts();
  ChildPlan& plan = d.plan;
  plan.uid = static_cast<uid_t>(in.number());
  plan.gid = static_cast<gid_t>(in.number());
  plan.setgroups_allowed = in.number() != 0;
  plan.private_loopback = in.number() != 0;
  plan.preview_factory = in.number() != 0;
  plan.late_network = in.number() != 0;
  plan.proxy_port = static_cast<std::uint16_t>(in.number());
  d.hostname = in.text();
  std::string fence = in.text();
  d.network_fence.assign(fence.begin(), fence.end());
  for (std::uint64_t count = in.number(); count > 0 && count < 64 && !in.failed(); --count) {
    RlimitSetting setting{};
    setting.resource = static_cast<int>(in.number());
    setting.value = in.number();
    setting.hard = in.number();
    d.rlimit_names.push_back(in.text());
    d.rlimits.push_back(setting);
  }
  d.cwd = in.text();
  d.workdir = in.text();
  for (std::uint64_t count = in.number(); count > 0 && count < 64 && !in.failed(); --count) {
    d.step_storage.push_back(in.texts());
  }
  plan.pause_before_step = in.number();
  for (std::uint64_t count = in.number(); count > 0 && count < (1u << 20) && !in.failed();
       --count) {
    d.late_paths.push_back(in.text());
    d.late_contents.push_back(in.text());
    d.late_files.push_back(LateFile{nullptr, nullptr, 0, static_cast<unsigned>(in.number())});
  }
  plan.late_files_step = in.number();
  plan.session = in.number() != 0;
  d.env_storage = in.texts();
  d.path_storage = in.texts();
  d.seccomp = in.filter();
  d.init_seccomp = in.filter();
  plan.fds.stdin_fd = static_cast<int>(in.number());
  plan.fds.stdout_fd = static_cast<int>(in.number());
  plan.fds.stderr_fd = static_cast<int>(in.number());
  if (!in.ok()) return nullptr;

  // The pointers, now that no vector will grow any more.
  for (std::size_t i = 0; i < d.rlimits.size(); ++i) d.rlimits[i].name = d.rlimit_names[i].c_str();
  for (std::size_t i = 0; i < d.late_files.size(); ++i) {
    d.late_files[i].path = d.late_paths[i].c_str();
    d.late_files[i].content = d.late_contents[i].data();
    d.late_files[i].size = d.late_contents[i].size();
  }
  for (auto& argv : d.step_storage) d.step_argvs.push_back(null_terminated(argv));
  for (auto& argv : d.step_argvs) d.steps.push_back(argv.data());
  d.envp = null_terminated(d.env_storage);
  d.bind_sources = pointers(d.bind_storage);
  d.layer_sources = pointers(d.layer_storage);
  d.search_path = pointers(d.path_storage);
  plan.mounts = &d.mounts;
  plan.bind_sources = &d.bind_sources;
  plan.layer_sources = &d.layer_sources;
  plan.hostname = d.hostname.c_str();
  plan.network_fence = &d.network_fence;
  plan.rlimits = &d.rlimits;
  plan.cwd = d.cwd.c_str();
  plan.workdir = d.workdir.c_str();
  plan.steps = &d.steps;
  plan.late_files = &d.late_files;
  plan.envp = d.envp.data();
  plan.search_path = &d.search_path;
  plan.seccomp = as_fprog(d.seccomp);
  plan.init_seccomp = as_fprog(d.init_seccomp);
  // Only where init runs under the program's own filter: every step inherits init's, so one
  // listener sees every refusal. Under an init filter of its own, each step stacks the errno
  // form on top, whose errno outranks any notification: those refusals stay uncounted.
  if (d.init_seccomp.empty() && !d.seccomp.empty()) {
    d.notify_seccomp.resize(d.seccomp.size());
    if (seccomp::to_notify_program(d.seccomp.data(), d.seccomp.size(), d.notify_seccomp.data())) {
      plan.notify_seccomp = as_fprog(d.notify_seccomp);
    } else {
      d.notify_seccomp.clear();
    }
  }
  return decoded;
}

}  // namespace paddock
