#include "cmd/cli.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/error.h"

namespace pdx {

std::optional<int> parse_cli(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << "pdx " PDX_VERSION "\n";
    return kExitOk;
  } catch (const CLI::Success&) {
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::string name = app.get_name();
    std::fprintf(stderr, "pdx: error: %s\nTry '%s --help'.\n", e.what(), name.c_str());
    return kExitUsage;
  }
}

void fail(ErrorKind kind, const std::string& message) {
  if (kind == ErrorKind::bad_input) throw UsageError(message);
  throw FatalError(message);
}

void print_compat_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path dir = (exe.parent_path() / ".." / "lib" / "pdx" / "bin").lexically_normal();
  if (ec || !fs::exists(dir / "pdsh", ec))
    throw FatalError("no pdsh link next to this pdx (looked in " + dir.string() +
                     "); links are made by cmake --install");
  std::cout << dir.string() << "\n";
  throw CLI::Success();
}

}  // namespace pdx
