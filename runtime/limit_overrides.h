#pragma once

// Limits as a layer: each field set or not. Defaults, then a language policy, then command-line
// flags are applied in that order, each overriding only what it sets.

#include <cstdint>
#include <optional>

#include "runtime/sandbox_parts.h"

namespace paddock::runtime {

struct LimitOverrides {
  std::optional<double> wall_seconds;
  std::optional<double> cpu_seconds;
  std::optional<double> cpus;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint32_t> pids;
  std::optional<std::uint64_t> output_bytes;
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint64_t> tmp_bytes;
  std::optional<std::uint64_t> work_bytes;
  std::optional<std::uint64_t> work_files;

  // Takes every field `over` sets.
  void merge(const LimitOverrides& over) {
    auto take = [](auto& target, const auto& value) {
      if (value) target = value;
    };
    take(wall_seconds, over.wall_seconds);
    take(cpu_seconds, over.cpu_seconds);
    take(cpus, over.cpus);
    take(memory_bytes, over.memory_bytes);
    take(pids, over.pids);
    take(output_bytes, over.output_bytes);
    take(file_size_bytes, over.file_size_bytes);
    take(tmp_bytes, over.tmp_bytes);
    take(work_bytes, over.work_bytes);
    take(work_files, over.work_files);
  }

  void apply_to(Limits& limits) const {
    auto set = [](auto& target, const auto& value) {
      if (value) target = *value;
    };
    set(limits.wall_seconds, wall_seconds);
    if (cpu_seconds) limits.cpu_seconds = cpu_seconds;
    if (cpus) limits.cpus = cpus;
    set(limits.memory_bytes, memory_bytes);
    set(limits.pids, pids);
    set(limits.output_bytes, output_bytes);
    set(limits.file_size_bytes, file_size_bytes);
    set(limits.tmp_bytes, tmp_bytes);
    set(limits.work_bytes, work_bytes);
    set(limits.work_files, work_files);
  }
};

}  // namespace paddock::runtime
