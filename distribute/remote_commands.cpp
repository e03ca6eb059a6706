#include "distribute/remote_commands.h"

#include "archive/tar_member.h"
#include "base/quote.h"

namespace pdx {

namespace {

// A path that cannot be read as an option: "-x" as "./-x".
std::string not_an_option(const std::string& path) {
  return path.starts_with("-") ? "./" + path : path;
}

// "-C DIR ./NAME" for one REMOTE.
Result<std::string> tar_member_args(const std::string& remote) {
  auto [dir, name] = TRY(tar_member(remote));
  // GNU tar takes a relative -C from the directory of the -C before it: start each from the
  // shell's own.
  std::string from = dir.starts_with("/") ? shell_quote(dir) : "\"$PWD\"/" + shell_quote(dir);
  return "-C " + from + " " + shell_quote("./" + name);
}

}  // namespace

Result<std::string> pull_command(const std::vector<std::string>& remotes, std::string_view suffix,
                                 Directories directories) {
  std::string command;
  if (directories == Directories::refused)
    for (const auto& remote : remotes) {
      command += "if [ -d " + shell_quote(not_an_option(remote)) +
                 " ]; then printf 'use -r to copy directories: %s\\n' " + shell_quote(remote) +
                 " >&2; exit 1; fi\n";
    }
  command += "tar -cf -";
  if (!suffix.empty()) {
    // Members are "./NAME...": the first component after "./" gets the suffix. In sed's
    // replacement only '\\', '&' and the delimiter are special.
    std::string replacement;
    for (char c : suffix) {
      if (c == '\\' || c == '&' || c == '|') replacement += '\\';
      replacement += c;
    }
    command += " " + shell_quote("--transform=s|^\\./[^/][^/]*|&" + replacement + "|S");
  }
  for (const auto& remote : remotes) command += " " + TRY(tar_member_args(remote));
  return command;
}

std::string verify_command(const std::string& remote_dir, bool hash) {
  std::string status = std::to_string(kNoDirectoryStatus);
  std::string command =
      "cd " + shell_quote(not_an_option(remote_dir)) + " 2>/dev/null || exit " + status +
      "\nfind . \\( -type f -printf 's %s %P\\0' \\) -o \\( -type l -printf 'l %P\\0%l\\0' \\) "
      "|| exit\n";
  if (hash) {
    // About four batches per core (at most 4096 files each), hashed at once; each batch writes
    // a file of its own, read out when all are done, so that no two batches' records
    // interleave on stdout.
    command +=
        "p=$(nproc 2>/dev/null || echo 1)\n"
        "b=$(( $(find . -type f -printf x | wc -c) / (4 * p) + 1 ))\n"
        "[ \"$b\" -le 4096 ] || b=4096\n"
        "t=$(mktemp -d) || exit\n"
        "trap 'rm -rf \"$t\"' EXIT\n"
        "find . -type f -print0 | xargs -0 -r -n \"$b\" -P \"$p\" "
        "sh -c 'f=$(mktemp \"$0/h.XXXXXX\") && exec sha256sum -z -- \"$@\" > \"$f\"' \"$t\"\n"
        "s=$?\n"
        "find \"$t\" -type f -exec cat {} + || exit\n"
        "exit $s\n";
  }
  return command;
}

std::string posix_list_command(const std::string& dest, const std::vector<std::string>& tops) {
  std::string bare = dest;
  while (bare.size() > 1 && bare.ends_with('/')) bare.pop_back();
  std::string command =
      "find / -maxdepth 0 -printf '' 2> /dev/null || exit " + std::to_string(kNoListing) +
      "\nunset CDPATH\nD=" + shell_quote(not_an_option(dest)) +
      "\nB=" + shell_quote(not_an_option(bare)) +
      "\n"
      "t=$(find \"$D\" -maxdepth 0 -printf %y 2> /dev/null) || t=\n"
      "if [ -z \"$t\" ]; then\n"
      "  find \"$B\" -maxdepth 0 -printf '%y %m %s %T@ \\0' 2> /dev/null || printf 'n 0 0 0 \\0'\n"
      "  exit 0\n"
      "fi\n"
      "find \"$D\" -maxdepth 0 -printf '%y %m %s %T@ \\0' || exit 1\n"
      "[ \"$t\" = d ] || exit 0\n"
      "cd -- \"$D\" || exit 1\n";
  for (const auto& top : tops)
    command +=
        (top == "." ? std::string("find . -mindepth 1") : "find " + shell_quote("./" + top)) +
        " -printf '%y %m %s %T@ %p\\0' 2> /dev/null\n";
  return command + "exit 0\n";
}

namespace {

// Where the temporary directory goes ($P), and $A set when the one file is written as DEST.
std::string landing_place(const PosixLanding& landing) {
  if (landing.kind != PosixLanding::Kind::into_or_as) return "mkdir -p -- \"$D\" || exit 1\nP=$D\n";
  return "if [ -d \"$D\" ]; then P=$D; else\n"
         "  P=$(dirname -- \"$D\") && mkdir -p -- \"$P\" || exit 1\n"
         "  A=1\n"
         "fi\n";
}

// x DIR PREFIX FLAG...: the host's tar reads its stdin into DIR; 0 when it did, else 1 with the
// first line it said that tells why (not its closing words, nor GNU tar's notes that it skips
// pax's hdrcharset) in $m, a file named PREFIX... named as DEST/...; a short write ("Wrote only
// N of M bytes", whose reason GNU tar leaves out) is asked of the disk by one block more.
// fail WHY: WHY as pdx's error line on stderr, and exit 1 (the temporary directory goes).
constexpr const char* kUntar =
    "x() {\n"
    "  c=$1 u=$2\n"
    "  shift 2\n"
    "  r=$( { tar -x \"$@\" -o -f - -C \"$c\" 2>&1 > /dev/null; echo \"$?\"; } | awk '\n"
    "    NR > 1 && m == \"\" && p !~ /hdrcharset|Exiting with failure status|"
    "Error is not recoverable|Child returned status/ { m = p }\n"
    "    { p = $0 } END { print p \" \" m }')\n"
    "  [ \"${r%% *}\" = 0 ] && return\n"
    "  m=${r#* }; m=${m#tar: }\n"
    "  [ -z \"$u\" ] || case $m in \"$u\"*) m=${D%/}/${m#\"$u\"} ;; esac\n"
    "  case $m in *': Wrote only '*)\n"
    "    w=$(dd if=/dev/zero of=\"$t/w\" bs=4096 count=1 2>&1 > /dev/null | sed -n '1s/.*: //p')\n"
    "    [ -z \"$w\" ] || m=\"${m%%: Wrote only *}: $w\" ;;\n"
    "  esac\n"
    "  m=${m:-tar failed (exit ${r%% *})}\n"
    "  return 1\n"
    "}\n"
    "fail() { printf 'pdx: error: %s\\n' \"$1\" >&2; exit 1; }\n";

constexpr const char* kCutShort = "fail 'the stream from pdx was cut short; nothing was placed'";

// The host's tar, reading the stream into $t (plain, or through the decompressor's flag). A
// stream of files must end with its marker; an archive, be landing.size bytes, counted by tee on
// its way to tar (through the FIFO $t/i; tar's leftovers drained, so that tee sees the end) and
// by wc. One cut short is refused before anything is placed, whatever tar made of it; when tar
// failed first (tee stopped by the FIFO's closing, not at the stream's end), tar's reason.
std::string unpack_stream(const PosixLanding& landing) {
  if (landing.kind != PosixLanding::Kind::extract)
    return std::string(kUntar) + "x \"$t\" d/ -p || fail \"$m\"\n[ -f \"$t\"/" +
           shell_quote(kPosixStreamEnd) + " ] || " + kCutShort +
           "\n"
           "[ ! -s \"$t/skip\" ] || (cd \"$t/d\" && xargs -0 rm -f -- < ../skip)\n";
  std::string flag;
  const std::string& tool = landing.decompressor;
  if (tool == "gzip") flag = " -z";
  if (tool == "bzip2") flag = " -j";
  if (tool == "xz") flag = " -J";
  if (tool == "zstd") flag = " --zstd";
  std::string check;
  if (!tool.empty())
    check = "command -v " + shell_quote(tool) + " > /dev/null 2>&1 || { echo " +
            shell_quote("pdx: error: " + tool + " not found, needed to unpack the archive") +
            " >&2; exit 1; }\n";
  // An asynchronous list's stdin is /dev/null: tee reads the stream through 3.
  return check + kUntar +
         "mkdir -- \"$t/d\" && mkfifo -- \"$t/i\" || exit 1\n"
         "exec 3<&0\n"
         "{ tee -- \"$t/i\" 2> /dev/null; echo \"$?\" > \"$t/s\"; } <&3 | wc -c > \"$t/n\" &\n"
         "exec 3<&-\n"
         "{ x \"$t/d\" ''" +
         flag +
         " && cat > /dev/null; } < \"$t/i\"\n"
         "s=$?\n"
         "wait\n"
         "read -r n < \"$t/n\"; read -r e < \"$t/s\"\n"
         "if [ \"$n\" != " +
         std::to_string(landing.size) + " ] && { [ \"$s\" = 0 ] || [ \"$e\" = 0 ]; }; then " +
         kCutShort +
         "; fi\n"
         "[ \"$s\" = 0 ] || fail \"$m\"\n";
}

// r PATH REASON: a failure record. p FROM TO: FROM into place as TO (a directory into an
// existing one entry by entry, else by one mv; a symlink at TO is replaced by a file, never
// entered); mv's message read back by the shell itself. b DIR TO: DIR's files moved into
// TO by a few mv processes, not one per file (a batch only when no name in it is a directory
// or a symlink in TO, and what fails stays). m DIR TO: DIR's entries into the directory TO: b's
// first, then what is left one by one, each with its reason if it fails.
constexpr const char* kPlace =
    "F=\n"
    "r() { printf 'f\\0%s\\0%s\\0' \"$1\" \"$2\"; F=1; }\n"
    "p() {\n"
    "  if [ -d \"$1\" ] && [ ! -L \"$1\" ]; then\n"
    "    if [ -L \"$2\" ]; then r \"$2\" 'a symlink on the way is not followed'; return; fi\n"
    "    if [ -d \"$2\" ]; then m \"$1\" \"$2\"; return; fi\n"
    "    if [ -e \"$2\" ]; then r \"$2\" 'Not a directory'; return; fi\n"
    "  elif [ -L \"$2\" ]; then rm -f -- \"$2\"\n"
    "  elif [ -d \"$2\" ]; then r \"$2\" 'Is a directory'; return\n"
    "  fi\n"
    "  mv -f -- \"$1\" \"$2\" 2> \"$t/e\" && return\n"
    "  IFS= read -r e < \"$t/e\"; r \"$2\" \"${e##*: }\"\n"
    "}\n"
    "b() {\n"
    "  find \"$1\" -mindepth 1 -maxdepth 1 -type f -exec sh -c '\n"
    "    d=$1; shift\n"
    "    for f; do [ -d \"$d/${f##*/}\" ] || [ -L \"$d/${f##*/}\" ] && exit 0; done\n"
    "    mv -f -- \"$@\" \"$d\" 2> /dev/null; exit 0' sh \"$2\" {} +\n"
    "}\n"
    "m() {\n"
    "  b \"$1\" \"$2\"\n"
    "  for e in \"$1\"/* \"$1\"/.[!.]* \"$1\"/..?*; do\n"
    "    if [ -e \"$e\" ] || [ -L \"$e\" ]; then p \"$e\" \"$2/${e##*/}\"; fi\n"
    "  done\n"
    "}\n";

// Once all is placed, each directory's mode and mtime ("modes": MODE, STAMP and NAME, NUL-ended,
// deepest first; STAMP a file in $t with the directory's mtime), a new one's or one that was
// there, each only where no symlink is on the way to it.
constexpr const char* kModes =
    "[ ! -s \"$t/modes\" ] || xargs -0 -n 3 sh -c '\n"
    "  q=$5\n"
    "  while [ -d \"$1/$q\" ] && [ ! -L \"$1/$q\" ]; do\n"
    "    case $q in\n"
    "      */*) q=${q%/*} ;;\n"
    "      *) chmod -- \"$3\" \"$1/$5\"; exec touch -r \"$2/$4\" -- \"$1/$5\" ;;\n"
    "    esac\n"
    "  done' sh \"$D\" \"$t\" < \"$t/modes\"\n";

}  // namespace

// An extracted set's record (GNU find only, else R empty): fp DIR prints a fingerprint of the
// tree under DIR (our temporary directories left out), R is the record's path for DEST.
constexpr const char* kRecordPath =
    "R=\n"
    "if find / -maxdepth 0 -printf '' 2> /dev/null; then\n"
    "  H=cksum; command -v sha256sum > /dev/null 2>&1 && H=sha256sum\n"
    "  fp() {\n"
    "    (cd -- \"$1\" && find . -mindepth 1 -path './.push.pdx-*' -prune -o \\\n"
    "      -printf '%y %m %s %T@ %C@ %i %p\\0' | LC_ALL=C sort -z | $H) | cut -d' ' -f1\n"
    "  }\n"
    "  k=$(cd -- \"$D\" 2> /dev/null && pwd -P | $H | cut -d' ' -f1) &&\n"
    "    R=${HOME:-/nonexistent}/.cache/pdx/extracted/posix-$k\n"
    "fi\n";

std::string posix_push_command(const std::string& dest, const PosixLanding& landing) {
  std::string command = "D=" + shell_quote(dest) + "\n" + landing_place(landing);
  command +=
      "case $P in -*) P=./$P ;; esac\n"
      // Named by host and process: DEST may be on a filesystem other hosts share, and only this
      // host can tell that a process of its own is gone.
      "h=$(uname -n)\n"
      "for o in \"$P\"/.push.pdx-\"$h\"-*; do\n"
      "  [ -d \"$o\" ] && [ -O \"$o\" ] && ! kill -0 \"${o##*-}\" 2>/dev/null && rm -rf -- \"$o\"\n"
      "done\n"
      "t=$P/.push.pdx-$h-$$\n"
      "rm -rf -- \"$t\" && mkdir -- \"$t\" || exit 1\n"
      "trap 'rm -rf -- \"$t\"' EXIT\n"
      "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 141' PIPE; trap 'exit 143' TERM\n";
  bool record = landing.kind == PosixLanding::Kind::extract && !landing.set.empty();
  if (record) command += std::string(kRecordPath) + "[ -z \"$R\" ] || rm -f -- \"$R\"\n";
  command += unpack_stream(landing);
  command += "cat > /dev/null\n";  // what tar left of its input (the end's padding)
  // The files' sizes, one a line: GNU find's -printf, else (BusyBox, BSD) wc -c of each.
  command +=
      "if find / -maxdepth 0 -printf '' 2> /dev/null; then\n"
      "  sizes() { find \"$t/d\" -type f -printf '%s\\n'; }\n"
      "else\n"
      "  sizes() { find \"$t/d\" -type f -exec sh -c 'for f; do wc -c < \"$f\"; done' sh {} +; }\n"
      "fi\n"
      "c=$(sizes | awk '{ n++; b += $1 } END { printf \"%.0f %.0f\", n, b }')\n";
  command += kPlace;
  if (landing.kind == PosixLanding::Kind::into_or_as)
    command += "if [ -n \"$A\" ]; then p \"$t/d/\"" + shell_quote(landing.name) +
               " \"$D\"; else m \"$t/d\" \"$D\"; fi\n";
  else
    command += "m \"$t/d\" \"$D\"\n";
  command += kModes;
  if (record)
    command +=
        "[ -n \"$F\" ] || [ -z \"$R\" ] || {\n"
        "  f=$(fp \"$D\") && mkdir -p -- \"${R%/*}\" && printf '%s %s\\n' " +
        shell_quote(landing.set) +
        " \"$f\" > \"$R.$$\" &&\n"
        "    mv -f -- \"$R.$$\" \"$R\" || rm -f -- \"$R.$$\"\n"
        "} 2> /dev/null\n";
  command += "printf 'c %s\\0' \"$c\"\n";
  return command;
}

std::string posix_extracted_command(const std::string& dest, const std::string& set) {
  return "unset CDPATH\nD=" + shell_quote(dest) + "\n" + kRecordPath +
         "[ -n \"$R\" ] && [ -f \"$R\" ] && read -r s f < \"$R\" && [ \"$s\" = " +
         shell_quote(set) + " ] &&\n  [ \"$f\" = \"$(fp \"$D\")\" ] && echo extracted\nexit 0\n";
}

}  // namespace pdx
