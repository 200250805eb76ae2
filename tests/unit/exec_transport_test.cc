// What an engine or Kubernetes exec delivers: each stream capped, and the observer (progress
// notifications) told no more than the result keeps.

#include "runtime/container/exec_transport.h"

#include <gtest/gtest.h>

namespace paddock::engine::exec_transport_test {
namespace {

class Counting : public runtime::RunObserver {
 public:
  void on_output(runtime::StreamId stream, std::string_view chunk) override {
    (stream == runtime::StreamId::kStdout ? out : err) += chunk.size();
  }
  std::size_t out = 0, err = 0;
};

TEST(OutputSink, TheResultKeepsNoMoreThanTheCapAndTheObserverSeesEverything) {
  Counting observer;
  container::ExecCommand command;
  command.output_bytes = 64 * 1024;
  command.observer = &observer;
  container::ExecOutcome outcome;
  container::OutputSink sink(outcome, command);
  const std::string chunk(40 * 1024, 'x');
  for (int i = 0; i < 100; ++i) {  // 4 MB on each stream, as a program printing for its timeout
    sink.take(false, chunk);
    sink.take(true, chunk);
  }
  EXPECT_EQ(outcome.out.data.size(), 64u * 1024);
  EXPECT_EQ(outcome.out.total_bytes, 100u * chunk.size());
  EXPECT_TRUE(outcome.out.truncated);
  EXPECT_EQ(observer.out, 100u * chunk.size());
  EXPECT_EQ(observer.err, 100u * chunk.size());
}

}  // namespace
}  // namespace paddock::engine::exec_transport_test
