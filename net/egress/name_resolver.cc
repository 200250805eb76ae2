#include "net/egress/name_resolver.h"

#include "net/egress/name_resolver_testing.h"

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <system_error>
#include <thread>
#include <utility>

namespace paddock::net::egress {
namespace {

// What a test program set (name_resolver_testing.h); empty in paddock itself.
struct FixedNames {
  std::mutex mutex;
  std::map<std::string, std::string> addresses;
};

FixedNames& fixed_names() {
  static FixedNames names;
  return names;
}

struct Job {
  std::weak_ptr<LookupQueue> queue;  // a proxy that stopped drops its answers
  std::uint64_t id = 0;
  std::string name;
  std::uint16_t port = 0;
};

NameLookup resolve(const Job& job, int flags = 0) {
  NameLookup lookup;
  lookup.id = job.id;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | flags;
  addrinfo* found = nullptr;
  std::string port = std::to_string(job.port);
  lookup.error = getaddrinfo(job.name.c_str(), port.c_str(), &hints, &found);
  if (lookup.error != 0) return lookup;
  for (addrinfo* entry = found; entry != nullptr; entry = entry->ai_next) {
    if (entry->ai_addrlen > sizeof(sockaddr_storage)) continue;
    ResolvedAddress address;
    std::memcpy(&address.address, entry->ai_addr, entry->ai_addrlen);
    address.length = entry->ai_addrlen;
    lookup.addresses.push_back(address);
  }
  freeaddrinfo(found);
  return lookup;
}

// The workers and their queue. Made once and never destroyed: a worker may sit in getaddrinfo
// when the process exits, and a std::thread destroyed while it runs would abort the exit.
class Workers {
 public:
  static Workers& get() {
    static Workers* workers = new Workers;
    return *workers;
  }

  bool submit(Job job) {
    std::lock_guard lock(mutex_);
    // One more worker while all are busy and there is room for one; a worker that cannot be
    // started (no process budget) is tried again on the next lookup.
    if (idle_ == 0 && threads_.size() < kResolverThreads) {
      try {
        threads_.emplace_back([this] { work(); });
        ++idle_;
      } catch (const std::system_error&) {
      }
    }
    if (threads_.empty()) return false;
    jobs_.push_back(std::move(job));
    ready_.notify_one();
    return true;
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return !jobs_.empty(); });
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      --idle_;
      lock.unlock();
      if (!job.queue.expired()) {
        NameLookup lookup = resolve(job);
        if (auto queue = job.queue.lock()) queue->answer(std::move(lookup));
      }
      lock.lock();
      ++idle_;
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
};

}  // namespace

core::Result<std::shared_ptr<LookupQueue>> LookupQueue::create() {
  std::shared_ptr<LookupQueue> queue(new LookupQueue);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return core::system_error("making the egress proxy's lookup pipe");
  }
  queue->ready_read_.reset(pipe_fds[0]);
  queue->ready_write_.reset(pipe_fds[1]);
  return queue;
}

void answer_names_for_tests(std::map<std::string, std::string> name_to_address) {
  std::lock_guard lock(fixed_names().mutex);
  fixed_names().addresses = std::move(name_to_address);
}

bool LookupQueue::ask(std::uint64_t id, const std::string& name, std::uint16_t port) {
  Job job{weak_from_this(), id, name, port};
  {
    std::lock_guard lock(fixed_names().mutex);
    const auto& fixed = fixed_names().addresses;
    if (auto found = fixed.find(name); found != fixed.end()) job.name = found->second;
  }
  // A literal address needs no DNS and never blocks: answered at once, without a worker.
  if (NameLookup literal = resolve(job, AI_NUMERICHOST); literal.error == 0) {
    answer(std::move(literal));
    return true;
  }
  return Workers::get().submit(std::move(job));
}

void LookupQueue::answer(NameLookup lookup) {
  std::lock_guard lock(mutex_);
  answers_.push_back(std::move(lookup));
  // One byte wakes the loop; a full pipe already will.
  (void)!write(ready_write_.get(), "x", 1);
}

std::vector<NameLookup> LookupQueue::take_answers() {
  char drained[64];
  while (read(ready_read_.get(), drained, sizeof drained) > 0) {
  }
  std::lock_guard lock(mutex_);
  return std::exchange(answers_, {});
}

}  // namespace paddock::net::egress
