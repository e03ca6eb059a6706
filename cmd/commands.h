#pragma once
// One entry point per subcommand, each in cmd/<name>.cpp. argv[0] is the program name, argv[1..]
// the subcommand's own arguments (the subcommand word itself removed). Each returns the exit
// status; usage errors are thrown as UsageError and mapped to exit 2 by main().

namespace pdx {

int cmd_run(int argc, char** argv);     // pdx [-w HOSTS] 'command'   (cmd/run.cpp)
int cmd_hosts(int argc, char** argv);   // pdx hosts -w EXPR           (cmd/hosts.cpp)
int cmd_pack(int argc, char** argv);    // pdx pack SRC... -o OUT      (cmd/pack.cpp)
int cmd_unpack(int argc, char** argv);  // pdx unpack IN... -C DIR     (cmd/unpack.cpp)
int cmd_join(int argc, char** argv);    // pdx join PARTS... -o FILE   (cmd/join.cpp)
int cmd_split(int argc, char** argv);   // pdx split FILE --size SIZE  (cmd/split.cpp)
int cmd_push(int argc, char** argv);    // pdx push SRC... DEST        (cmd/push.cpp)
int cmd_sync(int argc, char** argv);    // pdx sync SRC... DEST        (cmd/sync.cpp)
int cmd_control_holder(int argc, char** argv);  // hidden (cmd/control_holder.cpp)
int cmd_agent(int argc, char** argv);   // pdx agent --list|--receive  (cmd/agent.cpp)
int cmd_pull(int argc, char** argv);    // pdx pull REMOTE... LOCAL    (cmd/pull.cpp)
int cmd_verify(int argc, char** argv);  // pdx verify REMOTE_DIR       (cmd/verify.cpp)

// pdx preflight [-E NCCL_SOCKET_IFNAME=IF] ...: is every host ready for the job (cmd/preflight.cpp)
int cmd_preflight(int argc, char** argv);

// pdx started under another name (a link): main() picks these by argv[0], which they keep; a
// usage error under these names exits 1, as the tools' own do.
int cmd_pdsh(int argc, char** argv);    // pdsh [-S] -w HOSTS ARGS...  (cmd/pdsh.cpp)
int cmd_dshbak(int argc, char** argv);  // dshbak [-c] < pdsh output   (cmd/dshbak.cpp)
int cmd_pdcp(int argc, char** argv);    // pdcp|rpdcp -w HOSTS SRC... DEST (cmd/pdcp.cpp)

}  // namespace pdx
