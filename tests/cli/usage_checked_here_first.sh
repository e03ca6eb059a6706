# What can be checked here is, before any host is reached, with a message that says what is
# wrong: an empty DEST, a LOCAL_DIR that is a file or cannot be written, -f 0, a --relay-bind
# that is no address, privileged --relay-ports, and sources that are only a FIFO or a device.
# The host is one that cannot be reached: a check made after connecting would exit 255.
source "$(dirname "$0")/../lib/common.sh"

away=(-w nohost.invalid -t 2)
echo data > "$SCRATCH/file"

for command in push sync; do
  run_pdx "${away[@]}" "$command" "$SCRATCH/file" ""
  expect_usage_error
  expect_contains "$err" "pdx: error: DEST is empty" "$command SRC \"\""
done

run_pdx "${away[@]}" pull /etc/hostname "$SCRATCH/file"
expect_usage_error
expect_eq "$err" "pdx: error: $SCRATCH/file: not a directory"
run_pdx "${away[@]}" pull /etc/hostname ""
expect_usage_error

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod 755 "$SCRATCH"
if [[ $EUID -eq 0 ]] && "${nobody[@]}" test -x "$PDX" -a -x "$SCRATCH"; then  # root writes anywhere
  mkdir -m 755 "$SCRATCH/closed"
  err=$("${nobody[@]}" "$PDX" "${away[@]}" pull /etc/hostname "$SCRATCH/closed/new/dir" 2>&1 < /dev/null)
  status=$?
  expect_status 1
  expect_contains "$err" "pdx: error: cannot create $SCRATCH/closed/new/dir: Permission denied"
fi

run_pdx "${away[@]}" -f 0 true
expect_usage_error
expect_contains "$err" "-f: must be at least 1"

run_pdx "${away[@]}" push --relay --relay-bind notanaddress "$SCRATCH/file" dest/
expect_usage_error
expect_contains "$err" "--relay-bind: 'notanaddress' is not an IPv4 or IPv6 address"
run_pdx "${away[@]}" push --relay --relay-ports 1-2 "$SCRATCH/file" dest/
expect_usage_error
expect_contains "$err" "--relay-ports: port 1 is privileged (below 1024)"
# pull's direct links take the same.
run_pdx "${away[@]}" pull --relay-bind notanaddress /etc/hostname "$SCRATCH/out"
expect_usage_error
expect_contains "$err" "--relay-bind: 'notanaddress' is not an IPv4 or IPv6 address"
run_pdx "${away[@]}" pull --relay-ports 1-2 /etc/hostname "$SCRATCH/out"
expect_usage_error
expect_contains "$err" "--relay-ports: port 1 is privileged (below 1024)"
run_pdx "${away[@]}" pull --data-via carrier-pigeon /etc/hostname "$SCRATCH/out"
expect_usage_error
[[ ! -e $SCRATCH/out ]] || fail "LOCAL_DIR made before the usage was checked"

mkfifo "$SCRATCH/fifo"
for src in "$SCRATCH/fifo" /dev/zero; do
  for command in push sync; do
    run_pdx -R exec -w h1 "$command" "$src" "$SCRATCH/dest/"
    expect_usage_error
    expect_eq "$err" "pdx: error: $src: not a file or directory: nothing to send" "$command $src"
  done
done
[[ -e $SCRATCH/dest ]] && fail "a usage error wrote something"
true
