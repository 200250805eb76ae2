#include "runtime/native/process_memory.h"

#include <charconv>

#include "core/files.h"

namespace paddock::native {

std::optional<std::uint64_t> pss_in_smaps_rollup(std::string_view rollup) {
  constexpr std::string_view kField = "\nPss:";
  std::size_t at = rollup.find(kField);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = rollup.substr(at + kField.size());
  std::size_t digits = rest.find_first_not_of(' ');
  if (digits == std::string_view::npos) return std::nullopt;
  rest.remove_prefix(digits);
  std::uint64_t kib = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), kib);
  if (error != std::errc{} || !std::string_view(end, rest.data() + rest.size()).starts_with(" kB"))
    return std::nullopt;
  return kib * 1024;
}

std::uint64_t proportional_set_size(const std::vector<pid_t>& pids, const std::string& proc) {
  std::uint64_t total = 0;
  for (pid_t pid : pids) {
    auto rollup =
        core::read_text_file(proc + "/" + std::to_string(pid) + "/smaps_rollup", "memory map");
    if (!rollup) continue;
    total += pss_in_smaps_rollup(*rollup).value_or(0);
  }
  return total;
}

}  // namespace paddock::native
