// ControlPath: expansion, the checks before trusting a socket there, and connecting to it.
#include "transport/mux_path.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pdx {

namespace {

std::string hex_sha1(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(text.data(), text.size(), digest, &len, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

std::string local_hostname(bool short_name) {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::string out = name;
  if (short_name) out = out.substr(0, out.find('.'));
  return out;
}

}  // namespace

Result<std::string> expand_control_path(const ControlTarget& t) {
  std::string_view text = t.path;
  std::string out;
  if (text.starts_with("~/")) {
    out = t.home;
    text.remove_prefix(1);
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (++i == text.size()) return Error{"ControlPath '" + t.path + "' ends in '%'"};
    std::string port = std::to_string(t.port);
    switch (text[i]) {
      case 'h':
        out += t.hostname;
        break;
      case 'p':
        out += port;
        break;
      case 'r':
        out += t.user;
        break;
      case 'n':
        out += t.alias;
        break;
      case 'u':
        out += t.local_user;
        break;
      case 'd':
        out += t.home;
        break;
      case 'i':
        out += std::to_string(::getuid());
        break;
      case 'l':
        out += local_hostname(false);
        break;
      case 'L':
        out += local_hostname(true);
        break;
      case 'C':
        out += hex_sha1(local_hostname(false) + t.hostname + port + t.user);
        break;
      case '%':
        out.push_back('%');
        break;
      default:
        return Error{"ControlPath token '%" + std::string(1, text[i]) +
                     "' is not one pdx expands (%h %p %r %n %u %d %i %l %L %C %%)"};
    }
  }
  if (out.size() >= sizeof(sockaddr_un::sun_path))
    return Error{"ControlPath '" + out + "' is too long for a Unix socket"};
  return out;
}

Result<void> check_control_path(const std::string& path) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return Error{"ControlPath directory " + dir + ": " + std::strerror(errno)};
  if (S_ISLNK(st.st_mode)) return Error{"ControlPath directory " + dir + " is a symlink"};
  if (!S_ISDIR(st.st_mode)) return Error{"ControlPath directory " + dir + " is not a directory"};
  if (st.st_uid != ::getuid())
    return Error{"ControlPath directory " + dir + " is not owned by you"};
  if ((st.st_mode & 077) != 0)
    return Error{"ControlPath directory " + dir + " may be entered by others (chmod 700 " + dir +
                 ")"};
  if (::lstat(path.c_str(), &st) == 0 && (!S_ISSOCK(st.st_mode) || st.st_uid != ::getuid()))
    return Error{"ControlPath " + path + " is not a socket of yours"};
  return {};
}

std::optional<unsigned> peer_uid(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return std::nullopt;
  return cred.uid;
}

Fd connect_control(const std::string& path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return {};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), std::min(path.size(), sizeof addr.sun_path - 1));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno == ECONNREFUSED) ::unlink(path.c_str());  // its holder is gone
    return {};
  }
  if (peer_uid(fd.get()) != ::getuid()) return {};
  return fd;
}

}  // namespace pdx
