#include "archive/tar_member.h"

namespace pdx {

Result<TarMember> tar_member(std::string remote) {
  if (remote.empty()) return Error{"an empty remote path", ErrorKind::bad_input};
  bool contents = remote.ends_with("/");
  while (remote.size() > 1 && remote.ends_with("/")) remote.pop_back();
  std::size_t slash = remote.rfind('/');
  std::string dir = slash == std::string::npos ? "." : remote.substr(0, slash == 0 ? 1 : slash);
  std::string name = slash == std::string::npos ? remote : remote.substr(slash + 1);
  if (remote == "/") name = ".";
  if (name == "..")
    return Error{remote + ": ends in '..'; name the directory itself", ErrorKind::bad_input};
  if (contents && name != ".") {
    dir = remote;
    name = ".";
  }
  return TarMember{std::move(dir), std::move(name)};
}

}  // namespace pdx
