#include "distribute/remote_agent.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "agent/version_mark.h"
#include "base/fd.h"
#include "base/quote.h"
#include "distribute/agent_package.h"
#include "hash/sha256.h"

namespace pdx {

namespace {

constexpr const char* kSelf = "/proc/self/exe";

// A pdx-agent or pdx-static that holds it was built from this build's sources.
const std::string_view kMark = agent_version_mark();

// Sets c (~/.cache/pdx), d (the agent's directory in it) and f (the agent).
std::string cache_paths(const AgentLocation& agent) {
  // A hex digest: nothing to quote.
  return "c=\"$HOME/.cache/pdx\" d=\"$HOME/.cache/pdx/" + agent.sha256 +
         "\" f=\"$HOME/.cache/pdx/" + agent.sha256 + "/pdx\"\n";
}

// Find's test for a directory of the chain or the agent that group or others may write.
constexpr const char* kWritableByOthers = "-perm -020 -o -perm -002";

// The cached agents a host keeps: the one just installed and the most recently used others.
constexpr int kKeptAgents = 4;

// Run in ~/.cache/pdx after an upload, with $k = kKeptAgents and $c the agent installed. In every
// version's directory (64 hex digits, no symlink), $c's too, removes the regular files .pdx.*
// that upload_command's temporaries are named by and that were last written more than a day ago
// (find -mtime +0, POSIX): an upload whose shell was killed on the host (the OOM killer, a job's
// epilogue ending the account's processes) or cut short by a crash leaves its temporary (pdx
// killed or its link closed does not: the shell sees its input end short and removes its
// temporary itself, as the check of its size fails). Their age, not the PID in their
// name, says they are dead: a live upload's cat writes its temporary as the bytes come, and a
// home shared by hosts (NFS) holds the temporaries of other hosts' shells, whose PIDs mean
// nothing here (and are reused); a day is far beyond any clock skew between them (an upload
// stalled that long, its link hung, then fails its size check, cleanly). Then removes
// the other versions' directories (those holding a file pdx, no symlink) but the $k - 1 most
// recently used (by the mtime of the `used` that agent_command truncates, else of the
// directory) and any whose pdx a process of this user runs (the same file as a /proc/PID/exe,
// by the shell's test: no process, no argument list; a test that errs (a shell without -ef)
// keeps it; without /proc that rule is void). Nothing else is touched.
constexpr const char* kPruneScript = R"(cd "$HOME/.cache/pdx" || exit 0
set --
for n in *; do
  case $n in *[!0-9a-f]*) continue ;; esac
  [ ${#n} -eq 64 ] && [ -d "$n" ] && [ ! -h "$n" ] || continue
  find "$n/." ! -name . -prune -type f -name '.pdx.*' -mtime +0 -exec rm -f {} +
  [ "$n" != "$c" ] && [ -f "$n/pdx" ] && [ ! -h "$n/pdx" ] || continue
  if [ -f "$n/used" ]; then set -- "$@" "$n/used"; else set -- "$@" "$n"; fi
done
[ $# -ge $k ] || exit 0
ls -dt -- "$@" | { i=1; while read -r u; do
  i=$((i + 1)) n=${u%/used}
  [ $i -le $k ] && continue
  for e in /proc/[0-9]*/exe; do [ "$e" -ef "$n/pdx" ]; [ $? -ne 1 ] && continue 2; done
  rm -rf -- "$n"
done; }
)";

// The SHA-256 and size of the file at `path`, and whether it holds kMark; an Error is strerror's.
struct HashedFile {
  std::string sha256;
  std::uint64_t size = 0;
  bool marked = false;  // holds kMark
};

Result<HashedFile> hash_file(const std::string& path) {
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in) return Error{std::strerror(errno)};
  HashedFile file;
  Sha256 hash;
  // window: the chunk just read after the end of the one before, for a mark across the seam.
  std::string buffer(1 << 20, '\0'), window;
  for (;;) {
    ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::strerror(errno)};
    if (n == 0) break;
    hash.update(buffer.data(), static_cast<std::size_t>(n));
    file.size += static_cast<std::uint64_t>(n);
    if (file.marked) continue;
    window.erase(0, window.size() - std::min(window.size(), kMark.size() - 1));
    window.append(buffer.data(), static_cast<std::size_t>(n));
    file.marked = window.find(kMark) != std::string::npos;
  }
  file.sha256 = hash.hex_digest();
  return file;
}

std::string real_directory(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  std::string dir = real ? real.get() : path;
  return dir.substr(0, dir.rfind('/') + 1);  // with its slash ("" for a bare name)
}

// The sh lines that check the agent's copy before it runs, with c, d, f (cache_paths), z and y
// (its size and SHA-256) and u (the status it fails them with) set: builtins but for one find,
// and a sha256sum after the copy changed (50 ms for 10 MB). The find prints each of $c $d $f that
// passes (their owner and symlinks the shell's tests), then $f again when `ok` (written after its
// last hash) is newer than any change to it (its ctime: a write, a chmod, a rename). Its output is
// matched whole, so that a find that failed runs nothing unchecked or unhashed: one without
// -cnewer, or whose `ok` went meanwhile (-cnewer's missing file fails it before it prints), is run
// again without it, and the copy hashed. No '%' in it: push substitutes %h and %n in its commands.
std::string agent_checks() {
  return "[ -e \"$f\" ] || [ -h \"$f\" ] || exit " + std::to_string(kAgentMissing) + "\n" +
         R"(for p in "$c" "$d" "$f"; do [ -O "$p" ] && [ ! -h "$p" ] || exit $u; done
[ -f "$f" ] || exit $u
set -- "$c" "$d" "$f" -prune ! \( )" +
         kWritableByOthers + R"( -o -type f \( ! -size "$z"c -o ! -perm -500 \) \) -print
r= n="$c
$d
$f"
[ ! -f "$d/ok" ] || r=$(find "$@" -type f ! -cnewer "$d/ok" -print 2>/dev/null)
[ -n "$r" ] || r=$(find "$@" 2>/dev/null)
case $r in
"$n
$f") ;;
"$n") ! command -v sha256sum > /dev/null || { h=$(sha256sum < "$f") &&
  case $h in "$y"[!0-9a-f]*) true 2>/dev/null > "$d/ok" ;; *) false ;; esac; } || exit $u ;;
*) exit $u ;;
esac
[ -x "$f" ] || exit )" +
         std::to_string(kAgentNoExec) + "\n";
}

}  // namespace

Result<AgentLocation> locate_agent(std::string installed) {
  if (!installed.empty()) return AgentLocation{std::move(installed), "", "", 0, "", nullptr};
  return deployable_agent(kSelf, local_agent_cache());
}

namespace {

// `agent` with its gzip kept in `cache` (none without one).
AgentLocation packed(AgentLocation agent, const std::string& cache, std::string_view keep) {
  if (!cache.empty())
    agent.gzipped = gzipped_copy(agent.binary, agent.sha256, cache, keep).value_or("");
  return agent;
}

// The binary at `path`, hashed, where it holds this build's mark; nullopt where it does not
// (another build's) or cannot be read.
std::optional<AgentLocation> marked(const std::string& path) {
  auto file = hash_file(path);
  if (!file || !file->marked) return std::nullopt;
  return AgentLocation{"", path, file->sha256, file->size, "", nullptr};
}

// The binary at `path` as it is sent: its copy without symbols kept in `cache` where one can be
// made, else itself; nullopt where neither holds this build's mark.
std::optional<AgentLocation> marked_copy(const std::string& path, const std::string& cache) {
  if (!cache.empty())
    if (auto stripped = stripped_copy(path, cache))
      if (auto copy = marked(*stripped)) return copy;
  return marked(path);
}

// The first of DIR/NAME (the build directory) and DIR/../lib/pdx/NAME (cmake --install, the
// .deb) that can be executed and that `take` takes.
std::optional<AgentLocation> beside(
    const std::string& dir, const std::string& name,
    const std::function<std::optional<AgentLocation>(const std::string&)>& take) {
  for (const std::string& candidate : {dir + name, dir + "../lib/pdx/" + name})
    if (::access(candidate.c_str(), X_OK) == 0)
      if (auto taken = take(candidate)) return taken;
  return std::nullopt;
}

}  // namespace

Result<AgentLocation> deployable_agent(const std::string& self, const std::string& cache) {
  std::string dir = real_directory(self);
  std::optional<AgentLocation> built = beside(dir, "pdx-static", marked);  // the static build
  std::optional<AgentLocation> agent =
      beside(dir, "pdx-agent", [&](const std::string& path) { return marked_copy(path, cache); });
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(self.c_str(), nullptr), &std::free);
  std::string self_path = real ? real.get() : self;
  if (!agent && !cache.empty())
    if (auto stripped = stripped_copy(self_path, cache)) agent = marked(*stripped);
  if (!agent) {
    auto file = hash_file(self);
    if (!file && !built) return Error{"cannot read this pdx binary: " + file.error()};
    if (file) agent = AgentLocation{"", self, file->sha256, file->size, "", nullptr};
  }
  // The static build alone where this pdx is it, or the copy is not the smaller (no objcopy).
  if (built && (!agent || agent->sha256 == built->sha256 || agent->size >= built->size))
    return packed(std::move(*built), cache, "");
  std::string keep = built ? built->sha256 : "";
  AgentLocation location = packed(std::move(*agent), cache, keep);
  if (built)
    location.fallback = std::make_shared<AgentLocation>(packed(*built, cache, location.sha256));
  return location;
}

std::string agent_command(const AgentLocation& agent, const std::vector<std::string>& args) {
  std::string words = " agent";
  for (const auto& arg : args) words += " " + shell_quote(arg);
  if (!agent.installed.empty()) return "exec " + shell_quote(agent.installed) + words;
  // z, y: the size and SHA-256 of the copy run (hex digits and digits: nothing to quote); u: the
  // exit status when it fails its checks.
  std::string command = cache_paths(agent) + "z=" + std::to_string(agent.size) +
                        " y=" + agent.sha256 + " u=" + std::to_string(kAgentUntrusted) + "\n";
  if (const auto& built = agent.fallback)  // there once the host needed it
    command += "if [ -e \"$c/" + built->sha256 + "/pdx\" ] || [ -h \"$c/" + built->sha256 +
               "/pdx\" ]; then d=\"$c/" + built->sha256 + "\" f=\"$c/" + built->sha256 +
               "/pdx\" z=" + std::to_string(built->size) + " y=" + built->sha256 +
               " u=" + std::to_string(kStaticUntrusted) + "; fi\n";
  return command + agent_checks() +
         // `used` truncated by the shell (no process; a failure silent): its mtime is the last use.
         "[ -h \"$d/used\" ] || true 2>/dev/null > \"$d/used\"; exec \"$f\"" + words;
}

std::string upload_command(const AgentLocation& agent, bool gzipped) {
  // $s names the step under way, so that the one line pdx reports says which one failed. o: the
  // user's and no symlink; w: group and others' write permission taken away where they have it.
  std::string command = cache_paths(agent);
  if (gzipped) command += "command -v gzip > /dev/null || exit " + std::to_string(kNoGzip) + "\n";
  return command + "o() { [ -O \"$1\" ] && [ ! -h \"$1\" ]; }\n" +
         "w() { [ -z \"$(find \"$1\" -prune \\( " + kWritableByOthers +
         " \\) -print 2>/dev/null)\" ] || chmod go-w \"$1\"; }\n" +
         "s='making the directory' && { [ ! -h \"$c\" ] || rm -f \"$c\"; } && " +
         "{ [ -d \"$c\" ] || mkdir -p \"$c\"; } && " +
         "o \"$c\" && w \"$c\" && { [ ! -e \"$d\" ] && [ ! -h \"$d\" ] || o \"$d\" || rm -rf "
         "\"$d\"; } && " +
         "mkdir -p \"$d\" && o \"$d\" && w \"$d\" && t=\"$d/.pdx.$$\" && " +
         "rm -f \"$d/used\" \"$d/ok\" \"$t\" && { [ -h \"$f\" ] || [ ! -d \"$f\" ] || rm -rf "
         "\"$f\"; } && " +
         "s='writing it' && printf u && " + (gzipped ? "gzip -dc" : "cat") + " > \"$t\" && " +
         // The SHA-256 says the size too; without sha256sum, the size alone.
         "if command -v sha256sum > /dev/null; then s='its SHA-256' && h=$(sha256sum < \"$t\") "
         "&& " +
         "[ \"${h%% *}\" = " + agent.sha256 + " ]; else s='its size' && [ $(wc -c < \"$t\") -eq " +
         std::to_string(agent.size) +
         " ]; fi && s='making it executable' && chmod 0755 \"$t\" && " +
         "s='renaming it' && mv -f \"$t\" \"$f\" && { true 2>/dev/null > \"$d/ok\" || :; } || " +
         "{ rm -f \"$t\"; echo \"$s failed in $d\" >&2; exit 1; }; (k=" +
         std::to_string(kKeptAgents) + " c=" + shell_quote(agent.sha256) + "\n" + kPruneScript +
         ") > /dev/null 2>&1; exit 0";  // a failed prune fails nothing
}

}  // namespace pdx
