//===- ChildProcessTest.cpp - Watched children, with real processes -------===//

#include "llmptx/Runtime/ChildProcess.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

using namespace llmptx::runtime;

namespace {

ChildProcess spawnShell(const std::string &script, bool withInput = false) {
  auto child = ChildProcess::spawn({"/bin/sh", "-c", script}, 3, withInput);
  EXPECT_TRUE(child.ok()) << child.error();
  return child.take();
}

TEST(ChildProcessTest, MessagesArriveLineByLine) {
  ChildProcess child =
      spawnShell("echo first >&3; echo noise; printf 'second\\nthird' >&3");
  std::string line;
  ASSERT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::Line);
  EXPECT_EQ(line, "first");
  ASSERT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::Line);
  EXPECT_EQ(line, "second");
  ASSERT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::Line);
  EXPECT_EQ(line, "third"); // without a final newline
  EXPECT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::EndOfFile);
  ChildExit exit = child.wait();
  EXPECT_EQ(exit.kind, ChildExit::Kind::Exited);
  EXPECT_EQ(exit.code, 0);
  EXPECT_EQ(child.output(), "noise\n");
}

TEST(ChildProcessTest, WatchdogKillsAHang) {
  auto start = std::chrono::steady_clock::now();
  // The grandchild (sleep) is in the same process group and dies too.
  ChildProcess child = spawnShell("echo ready >&3; sleep 30; echo late >&3");
  std::string line;
  ASSERT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::Line);
  EXPECT_EQ(child.readLine(line, 0.3), ChildProcess::ReadStatus::Timeout);
  child.kill();
  ChildExit exit = child.wait(10);
  EXPECT_EQ(exit.kind, ChildExit::Kind::Killed);
  EXPECT_EQ(exit.describe(), "killed by the watchdog");
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      10.0);
}

TEST(ChildProcessTest, DeathBySignalIsReported) {
  ChildProcess child = spawnShell("kill -SEGV $$");
  std::string line;
  EXPECT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::EndOfFile);
  ChildExit exit = child.wait();
  EXPECT_EQ(exit.kind, ChildExit::Kind::Signaled);
  EXPECT_EQ(exit.code, SIGSEGV);
  EXPECT_NE(exit.describe().find("killed by signal 11"), std::string::npos);
}

TEST(ChildProcessTest, ExitCodesAndMissingPrograms) {
  ChildProcess failing = spawnShell("exit 7");
  EXPECT_EQ(failing.wait().code, 7);
  auto missing = ChildProcess::spawn({"/nonexistent/program"}, 3);
  ASSERT_TRUE(missing.ok());
  ChildExit exit = missing->wait();
  EXPECT_EQ(exit.code, 127);
  EXPECT_NE(missing->output().find("cannot execute"), std::string::npos);
}

TEST(ChildProcessTest, CommandsOnStdin) {
  ChildProcess child =
      spawnShell("while read line; do echo \"got $line\" >&3; done", true);
  std::string line;
  ASSERT_TRUE(child.writeLine("one"));
  ASSERT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::Line);
  EXPECT_EQ(line, "got one");
  ASSERT_TRUE(child.writeLine("two"));
  ASSERT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::Line);
  EXPECT_EQ(line, "got two");
  child.closeInput();
  EXPECT_EQ(child.readLine(line, 10), ChildProcess::ReadStatus::EndOfFile);
  EXPECT_EQ(child.wait().code, 0);
}

TEST(ChildProcessTest, WritingToADeadChildFailsQuietly) {
  ChildProcess child = spawnShell("exit 0", true);
  child.wait();
  // Without the SIGPIPE guard this would kill the test binary.
  bool written = true;
  for (int i = 0; i < 100 && written; ++i)
    written = child.writeLine(std::string(1000, 'x'));
  EXPECT_FALSE(written);
}

TEST(ChildProcessTest, WithoutAMessagePipeReadWaitsForOutputToClose) {
  auto child = ChildProcess::spawn({"/bin/sh", "-c", "echo done"}, 0);
  ASSERT_TRUE(child.ok());
  std::string line;
  EXPECT_EQ(child->readLine(line, 10), ChildProcess::ReadStatus::EndOfFile);
  EXPECT_EQ(child->wait().code, 0);
  EXPECT_EQ(child->output(), "done\n");
}

} // namespace
