# pdx's agent timed on the hosts, for the benchmarks: `timed_agent DIR PDX` writes DIR/timed-agent,
# a script that runs PDX's agent through /usr/bin/time (pass it as `--agent DIR/timed-agent`), and
# sets AGENT to its path. Each agent that ran leaves its user+sys seconds and peak RSS in
# DIR/agent-times/HOST.PID, HOST the address it was reached at (from SSH_CONNECTION; every host
# of the loopback and the netns clusters has its own), so that what a host ran is summed per host.
# Per agent, so it counts what /proc/stat does not see (sshd's children in another namespace).
timed_agent() {  # timed_agent DIR PDX
  AGENT=$1/timed-agent
  mkdir -m 1777 "$1/agent-times"  # as root every host is an account of its own
  # shellcheck disable=SC2016 # $SSH_CONNECTION and $$ are the host's, expanded there
  printf '#!/bin/sh\nhost=$(echo "$SSH_CONNECTION" | cut -d" " -f3)\nexec /usr/bin/time -f "%%U %%S %%M" -o "%s/agent-times/${host:-$(id -un)}.$$" "%s" "$@"\n' \
    "$1" "$2" > "$AGENT"
  chmod 0755 "$AGENT" "$1"  # the hosts' accounts run it
}

# agents_cpu: "SUM MAX_HOST RSS_MIB" of the timed agents that ran since the last call: their CPU
# seconds over all hosts, the most one host spent, the largest peak RSS of one agent; "- - -"
# when none ran. Then forgets them.
agents_cpu() {
  local times=${AGENT%/timed-agent}/agent-times f
  for f in "$times"/*; do  # the last line: time may say why the agent ended first
    if [[ -f $f ]]; then echo "${f##*/} $(tail -n 1 "$f")"; fi
  done |
    awk '{ sub(/\.[0-9]+$/, "", $1); cpu = $2 + $3; host[$1] += cpu; s += cpu
           if ($4 > rss) rss = $4; k++ }
         END { if (!k) { print "- - -"; exit }
               for (h in host) if (host[h] > most) most = host[h]
               printf "%.2f %.2f %d\n", s, most, rss / 1024 }'
  rm -f "$times"/*
}
