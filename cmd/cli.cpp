#include "cmd/cli.h"

#include <cstdio>
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

}  // namespace pdx
