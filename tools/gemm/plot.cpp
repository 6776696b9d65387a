#include "plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "tilegemm/error.hpp"

extern char** environ;

namespace tilegemm {
namespace tools {

namespace fs = std::filesystem;

std::string current_executable(const char* argv0) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && !self.empty()) return self.string();
  return argv0 ? argv0 : "";
}

std::string find_plot_script(const std::string& exe_path, const char* env_value) {
  std::error_code ec;
  if (env_value && *env_value) {
    if (!fs::is_regular_file(env_value, ec))
      throw Error(ErrorCode::InvalidArgument, std::string("--plot: TILEGEMM_PLOT_SCRIPT names '") + env_value +
                                                  "', which is not a file");
    return env_value;
  }
  const fs::path script = (fs::path(exe_path).parent_path() / ".." / "bench" / "plot_gflops.py").lexically_normal();
  if (!fs::is_regular_file(script, ec))
    throw Error(ErrorCode::InvalidArgument, "--plot: the plotting script is not at '" + script.string() +
                                                "' (set TILEGEMM_PLOT_SCRIPT to bench/plot_gflops.py)");
  return script.string();
}

namespace {

// The last non-blank line, without its line break.
std::string last_line(const std::string& text) {
  const size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  const size_t nl = text.rfind('\n', end);
  const size_t start = nl == std::string::npos ? 0 : nl + 1;
  return text.substr(start, end + 1 - start);
}

}  // namespace

std::string run_plot_script(const std::string& script, const std::string& csv, const std::string& out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw Error(ErrorCode::Internal, std::string("--plot: cannot create a pipe: ") + std::strerror(errno));
  // The script's stdout and stderr both go to the pipe (the dup2'd copies are not close-on-exec).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  // -u: unbuffered, so stdout and stderr arrive in the order printed and the last line is the last said.
  std::string python = "python3", unbuffered = "-u";
  std::vector<char*> argv = {python.data(), unbuffered.data(), const_cast<char*>(script.c_str()),
                             const_cast<char*>(csv.c_str()), const_cast<char*>(out.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "python3", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw Error(ErrorCode::Internal, std::string("--plot: cannot run python3: ") + std::strerror(rc));
  }
  std::string output;
  char buf[4096];
  for (;;) {
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got > 0) output.append(buf, static_cast<size_t>(got));
    else if (got == 0 || errno != EINTR) break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return output;
  const std::string line = last_line(output);
  if (WIFEXITED(status) && WEXITSTATUS(status) == kPlotExitNoMatplotlib && !line.empty())
    throw Error(ErrorCode::Internal, line);
  const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                            : "signal " + std::to_string(WTERMSIG(status));
  throw Error(ErrorCode::Internal, "--plot: " + script + " failed (" + how + ")" + (line.empty() ? "" : ": " + line));
}

}  // namespace tools
}  // namespace tilegemm
