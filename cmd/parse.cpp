#include "cmd/parse.h"

#include <cstdio>
#include <exception>
#include <iostream>

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

int report_errors(const std::function<int()>& run, int usage_status) {
  try {
    return run();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "pdx: error: %s\n", e.what());
    return usage_status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pdx: error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace pdx
