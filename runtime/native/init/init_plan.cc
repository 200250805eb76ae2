#include "runtime/native/init/init_plan.h"

#include <cstring>
#include <type_traits>

#include "runtime/native/init/seccomp_notify.h"

namespace paddock::init {
namespace {

// Bumped whenever the layout below changes; paddock and paddock-init are built together, so a
// mismatch means a stale paddock-init beside a new paddock.
// 2: the plan is read after go, from a memfd paddock sealed (PADDOCK_INIT_CHANNEL_FD).
// 4: the fields in ChildPlan's own order (visit_child_plan), written by their types.
constexpr std::uint32_t kPlanVersion = 4;

template <class T>
concept Number = std::is_arithmetic_v<T> || std::is_enum_v<T>;

// Each field by its type: numbers as 8 bytes, texts with their size first, lists with their
// count first. A missing list (a null pointer) is written as an empty one.
class Writer {
 public:
  template <Number T>
  void operator()(const T& value) {
    number(static_cast<std::uint64_t>(value));
  }
  void operator()(const char* value) { text(value != nullptr ? value : ""); }
  void operator()(char* const* argv) {
    std::size_t count = 0;
    while (argv != nullptr && argv[count] != nullptr) ++count;
    number(count);
    for (std::size_t i = 0; i < count; ++i) text(argv[i]);
  }
  template <class T>
  void operator()(const std::vector<T>* entries) {
    number(entries != nullptr ? entries->size() : 0);
    if (entries == nullptr) return;
    for (const T& entry : *entries) (*this)(entry);
  }
  void operator()(const std::vector<std::uint8_t>* bytes) {
    text(bytes != nullptr
             ? std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size())
             : std::string_view());
  }
  void operator()(const sock_fprog& program) {
    text(std::string_view(reinterpret_cast<const char*>(program.filter),
                          program.len * sizeof(sock_filter)));
  }
  void operator()(const MountPlan* mounts) {
    (*this)(mounts != nullptr ? &mounts->steps : nullptr);
  }
  void operator()(const MountStep& step) {
    (*this)(step.kind);
    for (const std::string* value : {&step.target, &step.source, &step.content, &step.options}) {
      text(*value);
    }
    (*this)(step.mode);
    (*this)(step.protect);
    (*this)(step.bind_slot);
    (*this)(step.layer_slot);
    (*this)(step.optional);
  }
  void operator()(const runtime::RlimitSetting& setting) {
    (*this)(setting.resource);
    (*this)(setting.value);
    (*this)(setting.hard);
    (*this)(setting.name);
  }
  void operator()(const LateFile& file) {
    (*this)(file.path);
    text(std::string_view(file.content, file.size));
    (*this)(file.mode);
  }
  void operator()(const ChildFds& fds) {
    for (int fd : {fds.channel, fds.stdin_fd, fds.stdout_fd, fds.stderr_fd}) (*this)(fd);
  }
  void number(std::uint64_t value) { bytes_.append(reinterpret_cast<const char*>(&value), 8); }
  void text(std::string_view value) {
    number(value.size());
    bytes_.append(value);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

// The same fields back, each into storage of the plan's own (`storage`). A count is refused
// when the bytes left could not hold that many entries (each takes 8 bytes at least), so garbage
// never makes it loop or reserve; past the end, every later field is left alone.
class Reader {
 public:
  Reader(std::string_view bytes, PlanStorage& storage) : bytes_(bytes), storage_(storage) {}

  template <Number T>
  void operator()(T& field) {
    field = static_cast<T>(number());
  }
  void operator()(const char*& field) { field = keep(text()).c_str(); }
  void operator()(char* const*& argv) {
    auto& strings = keep(std::vector<std::string>());
    for (std::uint64_t left = count(); left > 0 && !failed_; --left) strings.push_back(text());
    // The pointers once no string moves any more.
    auto& pointers = keep(std::vector<char*>());
    for (auto& value : strings) pointers.push_back(value.data());
    pointers.push_back(nullptr);
    argv = pointers.data();
  }
  template <class T>
  void operator()(const std::vector<T>*& field) {
    auto& entries = keep(std::vector<T>());
    read_entries(entries);
    field = &entries;
  }
  void operator()(const std::vector<std::uint8_t>*& field) {
    std::string raw = text();
    field = &keep(std::vector<std::uint8_t>(raw.begin(), raw.end()));
  }
  void operator()(sock_fprog& field);
  void operator()(const MountPlan*& field) {
    auto& mounts = keep(MountPlan{});
    read_entries(mounts.steps);
    field = &mounts;
  }
  void operator()(MountStep& step);
  void operator()(runtime::RlimitSetting& setting) {
    (*this)(setting.resource);
    (*this)(setting.value);
    (*this)(setting.hard);
    (*this)(setting.name);
  }
  void operator()(LateFile& file) {
    (*this)(file.path);
    const std::string& content = keep(text());
    file.content = content.data();
    file.size = content.size();
    (*this)(file.mode);
  }
  void operator()(ChildFds& fds) {
    for (int* fd : {&fds.channel, &fds.stdin_fd, &fds.stdout_fd, &fds.stderr_fd}) (*this)(*fd);
  }

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
  [[nodiscard]] bool ok() const { return !failed_ && bytes_.empty(); }
  // Past the end already: the counts that follow are not to be believed or looped over.
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  std::uint64_t count() {
    std::uint64_t value = number();
    if (value > bytes_.size() / 8) {
      failed_ = true;
      return 0;
    }
    return value;
  }
  template <class T>
  void read_entries(std::vector<T>& entries) {
    for (std::uint64_t left = count(); left > 0 && !failed_; --left) {
      (*this)(entries.emplace_back());
    }
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
  template <class T>
  T& keep(T value) {
    return std::get<std::deque<T>>(storage_).emplace_back(std::move(value));
  }

  std::string_view bytes_;
  PlanStorage& storage_;
  bool failed_ = false;
};

void Reader::operator()(sock_fprog& field) {
  std::string raw = text();
  std::size_t entries = raw.size() / sizeof(sock_filter);
  // sock_fprog counts in 16 bits.
  if (raw.size() % sizeof(sock_filter) != 0 || entries > 0xffff) failed_ = true;
  auto& program = keep(std::vector<sock_filter>(failed_ ? 0 : entries));
  // An empty filter's data() is null, which memcpy must not get even for no bytes.
  if (!program.empty()) std::memcpy(program.data(), raw.data(), raw.size());
  field = sock_fprog{static_cast<unsigned short>(program.size()), program.data()};
}

void Reader::operator()(MountStep& step) {
  (*this)(step.kind);
  for (std::string* value : {&step.target, &step.source, &step.content, &step.options}) {
    *value = text();
  }
  (*this)(step.mode);
  (*this)(step.protect);
  (*this)(step.bind_slot);
  (*this)(step.layer_slot);
  (*this)(step.optional);
}

}  // namespace

std::string encode_child_plan(const ChildPlan& plan) {
  Writer out;
  out.number(kPlanVersion);
  visit_child_plan(plan, out);
  return out.take();
}

std::unique_ptr<DecodedPlan> decode_child_plan(std::string_view bytes) {
  auto decoded = std::make_unique<DecodedPlan>();
  Reader in(bytes, decoded->storage);
  if (in.number() != kPlanVersion) return nullptr;
  visit_child_plan(decoded->plan, [&in](auto& field) {
    if (!in.failed()) in(field);
  });
  if (!in.ok()) return nullptr;
  ChildPlan& plan = decoded->plan;
  // Only where init runs under the program's own filter: every step inherits init's, so one
  // listener sees every refusal. Under an init filter of its own, each step stacks the errno
  // form on top, whose errno outranks any notification: those refusals stay uncounted.
  std::vector<sock_filter>& notify = decoded->notify_seccomp;
  if (plan.init_seccomp.len == 0 && plan.seccomp.len != 0) {
    notify.resize(plan.seccomp.len);
    if (seccomp::to_notify_program(plan.seccomp.filter, plan.seccomp.len, notify.data())) {
      plan.notify_seccomp = sock_fprog{static_cast<unsigned short>(notify.size()), notify.data()};
    } else {
      notify.clear();
    }
  }
  return decoded;
}

}  // namespace paddock::init
