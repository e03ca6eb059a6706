# --strip-components N drops leading name components, of hard-link targets too.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree top/src
"$PDX" pack top -o a.tar.gz
"$PDX" unpack a.tar.gz -C one --strip-components 1
same_tree top/src one/src
"$PDX" unpack a.tar.gz -C two --strip-components 2
same_tree top/src two
[ "$(stat -c %i two/hardlink)" = "$(stat -c %i two/sub/deeper/x)" ] || fail "hard link lost"
"$PDX" unpack a.tar.gz -C nine --strip-components 9
[ -z "$(ls -A nine)" ] || fail "entries with fewer components were not skipped"
expect_error 2 "strip-components" "$PDX" unpack a.tar.gz -C x --strip-components -1
echo ok
