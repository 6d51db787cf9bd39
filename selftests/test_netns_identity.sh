#!/usr/bin/env bash
# Which instance a command acts on, and whose files it may touch:
# - a bad interface name ('..', 'a/b', '', 16 bytes, white space, ':' ...)
#   is refused by load, set, status, stats and unload before anything
#   else: exit 2, one line "cpusteer: bad interface name ...", and every
#   pin, canary and folder stays as it was;
# - an unprivileged user who gets to the world-writable bpffs first (a
#   folder /sys/fs/bpf/cpusteer of its own with a link inside, or a link
#   in its place) makes root's load, unload and status refuse with one
#   line that names the owner and the fix, and nothing the links point at
#   is touched; once root made the folder, that user can neither read,
#   rename nor remove it, root still unloads, and the folder stays, root's,
#   so that the user cannot make it again;
# - skb mode loads, shows and unloads;
# - a dotted (VLAN-style) name works end to end, its pin folder has no dot;
# - a UTF-8 name shows intact in status --json and stats --json, and
#   escaped (\xNN) in the text, which a terminal shows;
# - an interface deleted while loaded is reported gone and unloads; one
#   recreated with the same name and index is not cpusteer's: set refuses
#   to touch it, status reports the interface gone and not attached, and
#   unload does not restore settings on it;
# - an interface moved to another namespace is detached and restored
#   there by unload run in the old one, or by unload run in the new one
#   (where status names the instance its program belongs to);
# - an interface renamed while loaded is unloaded by its new name: its
#   program detached, its setting restored, the pins removed; a new
#   device that takes the old name meanwhile is refused a load, in a line
#   that names the renamed device;
# - the same name in two namespaces is two instances: set, stats, status
#   and unload each act on their own one, and a command run where neither
#   is names a namespace and the nsenter command that works there.
#
#   netns csA<pid>                          netns csB<pid>
#   +----------------------------+          +--------------------------------+
#   | vethA<pid> 10.200.0.1      |<-------->| vethB<pid> 10.200.0.2          |
#   |                            |          | vd<pid>.100 <-> vp<pid>  dotted|
#   |                            |          | vg<pid> <-> vh<pid>  deleted,  |
#   |                            |          |    recreated with its ifindex  |
#   |                            |          | vm<pid> <-> vn<pid>  moved to C|
#   |                            |          |   (then a namesake vm<pid>     |
#   |                            |          |    with its ifindex, peer vo)  |
#   |                            |          | vk<pid> <-> vl<pid>  moved to C|
#   |                            |          | vr<pid> <-> vt<pid>  renamed   |
#   |                            |          |   to vs<pid>                   |
#   |                            |          +--------------------------------+
#   |                            |          netns csC<pid>
#   |                            |          +--------------------------------+
#   | vethC<pid> 10.201.0.1      |<-------->| vethB<pid> 10.201.0.2  same    |
#   +----------------------------+          |   name as B's: a 2nd instance  |
#                                           | vm<pid>, moved here from B     |
#                                           | vk<pid>, moved here from B and |
#                                           |   unloaded from here           |
#                                           +--------------------------------+
#
# The bad-name and unprivileged-user tests run cpusteer in B's network
# namespace and in a private mount namespace with a bpffs of its own on
# /sys/fs/bpf (mode 1777, as on the host): the user's folders and links,
# the canaries and "nothing new appeared" are then exact, whatever else
# runs on the machine, and the host's tree is never offered to user
# nobody. The other tests use the host's bpffs like the rest of the suite.
#
# Not in kernel runs: 20 s on the host, 10 min under emulation, beyond CI's budget
set -u
. "$(dirname "$0")/lib_netns.sh"

NSC=csC$$
VC=vethC$$
IPC_A=10.201.0.1
IPC=10.201.0.2
FLOWS_C="--src $IPC_A --dst $IPC --sport 30000 --dport 20000"
DOT=vd$$.100
UTF=$'v\xc3\xa9'$$
VG=vg$$
VM=vm$$
VK=vk$$
VR=vr$$
VS=vs$$
CANARY_DIR=/tmp/cpusteer-canary.$$
PRIV_PID=
PRIV_LOADED=0
NSDIR_B=
NSDIR_C=
PINS_C=

ATTACK=(bpffs_user_folder_with_link_refused_by_load bpffs_user_folder_with_link_refused_by_unload
	bpffs_user_folder_with_link_refused_by_status bpffs_user_folder_refusal_names_owner_and_fix
	bpffs_user_link_as_root_refused_by_load
	bpffs_user_link_as_root_refused_by_unload bpffs_user_link_as_root_refused_by_status
	bpffs_user_cannot_read_rename_or_remove_pin_folder)
BADNAME=(bad_interface_names_refused_by_load bad_interface_names_refused_by_set
	bad_interface_names_refused_by_status bad_interface_names_refused_by_stats
	bad_interface_names_refused_by_unload)
AFTER=(status_refuses_writable_namespace_folder_once bpffs_root_unloads_after_user_attempts)
HOST=(skb_mode_load_status_unload dotted_name_load_status_set_unload
	utf8_name_intact_in_json_escaped_in_text
	deleted_interface_status_reports_gone deleted_interface_unload_removes_pins
	recreated_interface_same_index_set_refused recreated_interface_same_index_status_reports_gone
	recreated_interface_same_index_gro_untouched_by_unload
	moved_interface_unload_detaches_and_restores_in_new_namespace
	moved_interface_unload_leaves_namesake_alone moved_interface_unload_from_its_new_namespace
	renamed_interface_unload_by_new_name)
SAME=(same_name_two_namespaces_load_independently same_name_set_changes_only_its_namespace
	same_name_stats_count_only_own_traffic same_name_status_lists_own_and_other_namespace
	same_name_wrong_namespace_refused_with_working_hint same_name_unload_leaves_other_working)

# --- helpers ------------------------------------------------------------------

in_c() { nsenter --net="/run/netns/$NSC" "$@"; }
csc() { in_c "$CPUSTEER" "$@"; }
in_ns() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }	# NS CMD...

# Commands in the private mount namespace (its own bpffs); cpusteer there
# runs in B's network namespace.
in_priv() { nsenter --mount="/proc/$PRIV_PID/ns/mnt" "$@"; }
cs_priv() { nsenter --mount="/proc/$PRIV_PID/ns/mnt" --net="/run/netns/$NSB" "$CPUSTEER" "$@"; }
as_nobody() { in_priv setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# Lines in FILE, counting a last line without a newline.
nlines() { awk 'END { print NR }' "$1"; }

# The XDP program id on IFACE in netns NS, empty when none.
xdp_id_in() {	# NS IFACE
	ip -n "$1" -d link show "$2" 2>/dev/null | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'
}

gro_in() {	# NS IFACE
	in_ns "$1" ethtool -k "$2" 2>/dev/null | awk '$1 == "generic-receive-offload:" { print $2 }'
}

ifindex_in() {	# NS IFACE
	ip -n "$1" -o link show "$2" 2>/dev/null | cut -d: -f1
}

# A "name value" counter of the instance in PIN_DIR.
counter() {	# PIN_DIR NAME
	"$TOOLS/steer_maps" counters "$1" 2>/dev/null | awk -v k="$2" '$1 == k { print $2 }'
}

# The owners of the first 512 buckets: "COUNT cpuN" per CPU, on one line.
owners() {	# PIN_DIR
	"$TOOLS/steer_maps" table "$1" 512 2>&1 | sort | uniq -c | awk '{ print $1 " cpu" $2 }' |
		paste -sd ' '
}

# A veth pair inside B, both ends up.
pair_in_b() {	# NAME PEER [index N]
	ip -n "$NSB" link add "$1" "${@:3}" type veth peer name "$2" &&
		ip -n "$NSB" link set "$1" up && ip -n "$NSB" link set "$2" up
}

# A veth pair in B with GRO off on NAME, and cpusteer loaded on NAME with
# --gro on, so that what unload must restore (off) differs from what is
# there. Says why with t_fail and returns 1 when it cannot.
loaded_gro_on_in_b() {	# NAME PEER
	local out

	if ! pair_in_b "$1" "$2" || ! in_b ethtool -K "$1" gro off; then
		t_fail "cannot make $1 in $NSB with GRO off"
		return 1
	fi
	if ! out=$(cs load "$1" --cpus 0 --gro on 2>&1); then
		t_fail "load $1 --gro on failed: $out"
		return 1
	fi
}

# Checks a refused command: exit status WANT, exactly one line on stderr,
# starting with PREFIX.
check_refused() {	# WHAT WANT RC ERRFILE PREFIX
	local what=$1 want=$2 rc=$3 err=$4 prefix=$5 first

	if [ "$want" = nonzero ]; then
		[ "$rc" != 0 ] || t_fail "$what: exit status: expected non-zero, got 0"
	else
		t_eq "$what: exit status" "$want" "$rc"
	fi
	[ "$(nlines "$err")" = 1 ] ||
		t_fail "$what: lines on stderr: expected 1, got $(nlines "$err"): '$(tr '\n' '|' <"$err")'"
	first=$(head -n 1 "$err")
	case $first in
	"$prefix"*) ;;
	*) t_fail "$what: stderr: expected a line starting '$prefix', got '$first'" ;;
	esac
}

# Everything the private bpffs holds: path, type, owner, mode, inode.
priv_tree() {
	in_priv find /sys/fs/bpf -printf '%p %y %u %m %i\n' 2>&1 | sort
}

# Where the /tmp canary and a file a traversal could make stand.
tmp_state() {
	find "$CANARY_DIR" -printf '%p %y %s %i\n' 2>&1 | sort
	md5sum "$CANARY_DIR/keep" 2>&1
	ls -ld /tmp/x 2>&1
}

diff_note() {	# BEFORE AFTER
	diff <(echo "$1") <(echo "$2") | grep '^[<>]' | head -4 | tr '\n' ';'
}

# Starts the private mount namespace with a fresh bpffs (see the top).
priv_setup() {
	unshare -m --propagation private sh -c \
		'mount -t bpf -o mode=1777 bpf /sys/fs/bpf && echo ready >"$0" && exec sleep 3600' \
		"$NETNS_TMP/priv.ready" &
	PRIV_PID=$!
	_bg_pids+=("$PRIV_PID")
	wait_ready "$NETNS_TMP/priv.ready"
}

# Netns C with the second vethB<pid>, peer vethC<pid> in A.
c_setup() {
	local mac_a mac_c

	ip netns add "$NSC" || return 1
	ip link add "$VC" netns "$NSA" type veth peer name "$VB" netns "$NSC" || return 1
	ip netns exec "$NSA" sysctl -qw "net.ipv6.conf.$VC.disable_ipv6=1" || return 1
	ip -n "$NSA" addr add "$IPC_A/24" dev "$VC" || return 1
	ip -n "$NSC" addr add "$IPC/24" dev "$VB" || return 1
	in_a ethtool -K "$VC" tx off >/dev/null || return 1
	ip -n "$NSC" link set lo up && ip -n "$NSA" link set "$VC" up &&
		ip -n "$NSC" link set "$VB" up || return 1
	mac_a=$(ip -n "$NSA" link show "$VC" | awk '/link\/ether/ { print $2 }')
	mac_c=$(ip -n "$NSC" link show "$VB" | awk '/link\/ether/ { print $2 }')
	ip -n "$NSA" neigh replace "$IPC" lladdr "$mac_c" dev "$VC" nud permanent || return 1
	ip -n "$NSC" neigh replace "$IPC_A" lladdr "$mac_a" dev "$VB" nud permanent || return 1
	NSDIR_B=$(dirname "$PINS")
	NSDIR_C=/sys/fs/bpf/cpusteer/ns$(in_c "$TOOLS/netns_cookie") || return 1
	PINS_C=$NSDIR_C/$VB
}

# Unloads every instance left in DIR (a namespace folder) from inside
# NS, then removes what unload could not.
unload_all_in() {	# NS DIR
	local ns=$1 dir=$2 f

	[ -n "$dir" ] && [ -d "$dir" ] || return 0
	for f in "$dir"/*; do
		[ -d "$f" ] || continue
		[ -e "/run/netns/$ns" ] &&
			in_ns "$ns" "$CPUSTEER" unload "$(basename "$f" | tr : .)" >/dev/null 2>&1
	done
	rm -rf "$dir"
}

# What this run left loaded is unloaded in the namespace it belongs to,
# then the usual teardown, then what netns_cleanup does not know of.
# On exit, before netns_cleanup (registered later, so run earlier).
identity_unload() {
	if [ -n "$PRIV_PID" ] && [ "$PRIV_LOADED" = 1 ] && kill -0 "$PRIV_PID" 2>/dev/null; then
		cs_priv unload "$VB" >/dev/null 2>&1
	fi
	unload_all_in "$NSB" "$NSDIR_B"
	unload_all_in "$NSC" "$NSDIR_C"
}

# On exit, after netns_cleanup.
identity_remove() {
	ip netns del "$NSC" 2>/dev/null
	rmdir /sys/fs/bpf/cpusteer 2>/dev/null
	rm -rf "$CANARY_DIR"
}

# --- setup ------------------------------------------------------------------------

t_plan "${ATTACK[@]}" "${BADNAME[@]}" "${AFTER[@]}" "${HOST[@]}" "${SAME[@]}"
t_on_exit identity_remove
netns_setup v4only || t_abort "setup: $NETNS_WHY"
t_on_exit identity_unload
c_setup || t_abort "setup: cannot build netns $NSC"
COOKIE_B=$(in_b "$TOOLS/netns_cookie")

PRIV_WHY=
if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1 ||
	! getent group nogroup >/dev/null; then
	PRIV_WHY="needs setpriv (util-linux), user nobody and group nogroup"
elif ! command -v bpftool >/dev/null; then
	PRIV_WHY="needs bpftool for the canary pins"
elif ! priv_setup; then
	PRIV_WHY="cannot mount a bpffs in a private mount namespace"
fi

# --- unprivileged user on the bpffs ---------------------------------------------
#
# The victim: a tree on the same bpffs that passes every check cpusteer
# makes (root's, 0700, on bpffs) and holds an instance-like folder for
# vethB with pins. Following a link into it, unload would unlink them.

victim_setup() {
	local v=/sys/fs/bpf/victim

	in_priv mkdir -m 0700 "$v" "$v/ns$COOKIE_B" "$v/ns$COOKIE_B/$VB" || return 1
	in_priv bpftool map create "$v/ns$COOKIE_B/$VB/instance_state" type array key 4 value 4 \
		entries 1 name victim || return 1
	in_priv bpftool map create "$v/ns$COOKIE_B/$VB/prog" type array key 4 value 4 \
		entries 1 name victim || return 1
}

victim_tree() {
	in_priv find /sys/fs/bpf/victim -printf '%p %y %u %m %i\n' 2>&1 | sort
}

# Runs root's COMMAND in B (private bpffs) with the user's files in place
# and checks it was refused: exit status WANT, one line naming the folder,
# the victim, the bpffs and vethB as they were.
attack_check() {	# WANT COMMAND...
	local want=$1 before vbefore after vafter rc

	shift
	before=$(priv_tree)
	vbefore=$(victim_tree)
	cs_priv "$@" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
	rc=$?
	after=$(priv_tree)
	vafter=$(victim_tree)
	check_refused "$*" "$want" "$rc" "$NETNS_TMP/err" "cpusteer: "
	grep -q '/sys/fs/bpf/cpusteer' "$NETNS_TMP/err" ||
		t_fail "$*: stderr does not name /sys/fs/bpf/cpusteer: '$(head -c 300 "$NETNS_TMP/err" | tr '\n' '|')'"
	[ "$vbefore" = "$vafter" ] || t_fail "$*: the victim changed: $(diff_note "$vbefore" "$vafter")"
	[ "$before" = "$after" ] || t_fail "$*: the bpffs changed: $(diff_note "$before" "$after")"
	t_eq "$*: XDP program on $VB" "" "$(xdp_prog_id)"
}

attack_refused() {	# NAME load|unload|status
	t_begin "$1"
	if [ -n "$PRIV_WHY" ]; then
		t_skip "$PRIV_WHY"
		return
	fi
	case $2 in
	load) attack_check 1 load "$VB" --cpus 0 ;;
	unload) attack_check 1 unload "$VB" ;;
	status)
		# Refusing is failing: it cannot tell what is loaded.
		attack_check nonzero status "$VB"
		attack_check nonzero status
		;;
	esac
	t_end
}

if [ -z "$PRIV_WHY" ] && ! victim_setup; then
	PRIV_WHY="cannot build the victim tree on the private bpffs"
fi

# 1. A folder of the user's own, with a link to the victim inside it.
if [ -z "$PRIV_WHY" ]; then
	as_nobody sh -c "mkdir /sys/fs/bpf/cpusteer &&
		ln -s /sys/fs/bpf/victim/ns$COOKIE_B /sys/fs/bpf/cpusteer/ns$COOKIE_B" ||
		PRIV_WHY="user nobody cannot make a folder on the bpffs (mode $(in_priv stat -c %a /sys/fs/bpf))"
fi
attack_refused bpffs_user_folder_with_link_refused_by_load load
attack_refused bpffs_user_folder_with_link_refused_by_unload unload
attack_refused bpffs_user_folder_with_link_refused_by_status status
t_begin bpffs_user_folder_refusal_names_owner_and_fix
if [ -n "$PRIV_WHY" ]; then
	t_skip "$PRIV_WHY"
else
	cs_priv load "$VB" --cpus 0 >/dev/null 2>"$NETNS_TMP/err"
	grep -q "belongs to user nobody (uid $(id -u nobody)), not root" "$NETNS_TMP/err" ||
		t_fail "the refusal does not name the owner: '$(cat "$NETNS_TMP/err")'"
	grep -q "remove it as root (rm -r /sys/fs/bpf/cpusteer)" "$NETNS_TMP/err" ||
		t_fail "the refusal does not give the fix: '$(cat "$NETNS_TMP/err")'"
	t_end
fi
[ -z "$PRIV_WHY" ] && in_priv rm -rf /sys/fs/bpf/cpusteer

# 2. A link in the folder's place, to the victim tree.
if [ -z "$PRIV_WHY" ]; then
	as_nobody ln -s /sys/fs/bpf/victim /sys/fs/bpf/cpusteer ||
		PRIV_WHY="user nobody cannot make a link on the bpffs"
fi
attack_refused bpffs_user_link_as_root_refused_by_load load
attack_refused bpffs_user_link_as_root_refused_by_unload unload
attack_refused bpffs_user_link_as_root_refused_by_status status
[ -z "$PRIV_WHY" ] && in_priv rm -f /sys/fs/bpf/cpusteer

# 3. Root's folder, made by a load, against the same user.
t_begin bpffs_user_cannot_read_rename_or_remove_pin_folder
if [ -n "$PRIV_WHY" ]; then
	t_skip "$PRIV_WHY"
elif ! out=$(cs_priv load "$VB" --cpus 0 2>&1); then
	t_fail "root's load on a clean bpffs failed: $out"
	t_end
else
	PRIV_LOADED=1
	prog=$(xdp_prog_id)
	before=$(priv_tree)
	inst=/sys/fs/bpf/cpusteer/ns$COOKIE_B/$VB
	as_nobody ls /sys/fs/bpf/cpusteer >/dev/null 2>&1 && t_fail "nobody could list /sys/fs/bpf/cpusteer"
	as_nobody ls "$inst" >/dev/null 2>&1 && t_fail "nobody could list $inst"
	as_nobody cat "$inst/instance_state" >/dev/null 2>&1 && t_fail "nobody could read $inst/instance_state"
	as_nobody mv /sys/fs/bpf/cpusteer /sys/fs/bpf/moved$$ 2>/dev/null &&
		t_fail "nobody could rename /sys/fs/bpf/cpusteer"
	as_nobody rm -rf /sys/fs/bpf/cpusteer 2>/dev/null && t_fail "nobody could remove /sys/fs/bpf/cpusteer"
	as_nobody rm -rf "$inst" 2>/dev/null && t_fail "nobody could remove $inst"
	as_nobody ln -s /sys/fs/bpf/victim "/sys/fs/bpf/cpusteer/ns$COOKIE_B/x" 2>/dev/null &&
		t_fail "nobody could make a link inside root's folder"
	after=$(priv_tree)
	[ "$before" = "$after" ] || t_fail "the bpffs changed: $(diff_note "$before" "$after")"
	t_eq "XDP program on $VB" "$prog" "$(xdp_prog_id)"
	t_end
fi

# --- bad interface names -----------------------------------------------------
#
# With the instance on vethB loaded by the test above, the namespace
# folder exists and './vethB<pid>' or '../../cdir' would reach something
# if a name were used as a path: from /sys/fs/bpf/cpusteer/ns<cookie>,
# '../../cdir' is /sys/fs/bpf/cdir, a root-owned 0700 folder with pins
# that passes every check a real instance folder passes.

BAD_NAMES=('..' '.' '../../../../tmp/x' '../../cdir' 'a/b' 'eth0/' './eth0' "./$VB" "$VB/" ''
	'abcdefghijklmnop' 'eth 0' $'eth\t0' $'eth\n0' 'eth:0' "$VB:0")

canaries_setup() {
	mkdir -p "$CANARY_DIR" && echo "keep me" >"$CANARY_DIR/keep" || return 1
	in_priv bpftool map create "/sys/fs/bpf/canary_$$" type array key 4 value 4 entries 1 \
		name canary || return 1
	in_priv mkdir -m 0700 /sys/fs/bpf/cdir || return 1
	in_priv bpftool map create /sys/fs/bpf/cdir/instance_state type array key 4 value 4 \
		entries 1 name canary || return 1
	in_priv bpftool map create /sys/fs/bpf/cdir/prog type array key 4 value 4 entries 1 \
		name canary
}

bad_names_refused() {	# NAME COMMAND [ARGS AFTER IFACE...]
	local name=$1 cmd=$2 bad before tbefore after tafter rc shown prog

	shift 2
	t_begin "$name"
	if [ -n "$BAD_WHY" ]; then
		t_skip "$BAD_WHY"
		return
	fi
	before=$(priv_tree)
	tbefore=$(tmp_state)
	prog=$(xdp_prog_id)
	for bad in "${BAD_NAMES[@]}"; do
		shown=$(printf '%q' "$bad")
		cs_priv "$cmd" "$bad" "$@" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
		rc=$?
		check_refused "$cmd $shown" 2 "$rc" "$NETNS_TMP/err" "cpusteer: bad interface name"
		after=$(priv_tree)
		tafter=$(tmp_state)
		[ "$before" = "$after" ] ||
			t_fail "$cmd $shown: the bpffs changed: $(diff_note "$before" "$after")"
		[ "$tbefore" = "$tafter" ] ||
			t_fail "$cmd $shown: /tmp changed: $(diff_note "$tbefore" "$tafter")"
		t_eq "$cmd $shown: XDP program on $VB" "$prog" "$(xdp_prog_id)"
		before=$after
		tbefore=$tafter
	done
	t_end
}

BAD_WHY=$PRIV_WHY
if [ -z "$BAD_WHY" ] && ! canaries_setup; then
	BAD_WHY="cannot make the canaries"
fi
bad_names_refused bad_interface_names_refused_by_load load --cpus 0
bad_names_refused bad_interface_names_refused_by_set set --cpus 0
bad_names_refused bad_interface_names_refused_by_status status
bad_names_refused bad_interface_names_refused_by_stats stats --count 1 --interval 1
bad_names_refused bad_interface_names_refused_by_unload unload

# Begins test NAME, which needs the private bpffs and root's instance on
# it (the load above): false, and the test over, when it cannot run.
priv_loaded_begin() {	# NAME WHAT-IS-MISSING
	t_begin "$1"
	if [ -n "$PRIV_WHY" ]; then
		t_skip "$PRIV_WHY"
		return 1
	fi
	if [ "$PRIV_LOADED" != 1 ]; then
		t_fail "$2: root's load failed above"
		t_end
		return 1
	fi
}

# A namespace folder others may write to is refused, and said once, though
# status walks the tree more than once.
if priv_loaded_begin status_refuses_writable_namespace_folder_once "no namespace folder"; then
	in_priv chmod 0777 "/sys/fs/bpf/cpusteer/ns$COOKIE_B"
	cs_priv status >/dev/null 2>"$NETNS_TMP/err"
	in_priv chmod 0700 "/sys/fs/bpf/cpusteer/ns$COOKIE_B"
	t_eq "lines on stderr" 1 "$(nlines "$NETNS_TMP/err")"
	grep -q "refusing /sys/fs/bpf/cpusteer/ns$COOKIE_B: writable by users other than root (mode 0777)" \
		"$NETNS_TMP/err" || t_fail "the refusal: $(cat "$NETNS_TMP/err")"
	t_end
fi

if priv_loaded_begin bpffs_root_unloads_after_user_attempts "nothing to unload"; then
	t_eq "status: attached, phase" "true ready" \
		"$(cs_priv status "$VB" --json 2>&1 | jq -r '.instances[0] | "\(.attached) \(.phase)"' 2>&1)"
	out=$(cs_priv unload "$VB" 2>&1)
	rc=$?
	t_eq "unload exit status ($out)" 0 "$rc"
	[ $rc = 0 ] && PRIV_LOADED=0
	t_eq "XDP program on $VB after unload" "" "$(xdp_prog_id)"
	# Removed, it would be any user's to make again (the bpffs is 1777).
	t_eq "/sys/fs/bpf/cpusteer after unload" "directory root 700" \
		"$(in_priv stat -c '%F %U %a' /sys/fs/bpf/cpusteer 2>&1)"
	t_eq "namespace folders left after unload" "" \
		"$(in_priv ls /sys/fs/bpf/cpusteer 2>&1)"
	t_end
fi

# --- skb mode -------------------------------------------------------------------

t_begin skb_mode_load_status_unload
if ! out=$(cs load "$VB" --cpus 0 --xdp-mode skb 2>&1); then
	t_fail "load --xdp-mode skb failed: $out"
else
	[ -n "$(xdp_prog_id)" ] || t_fail "no XDP program on $VB after load"
	prog=$(steer_prog_id_in "$NSB" "$VB")
	ip -n "$NSB" -d link show "$VB" | head -n 1 | grep -qw xdpgeneric ||
		t_fail "the kernel does not show $VB in generic (skb) mode: $(ip -n "$NSB" link show "$VB" | head -n 1)"
	t_eq "status: xdp_mode attached program_id" "skb true $prog" \
		"$(cs status "$VB" --json 2>&1 |
			jq -r '.instances[0] | "\(.xdp_mode) \(.attached) \(.program_id)"' 2>&1)"
	out=$(cs unload "$VB" 2>&1)
	t_eq "unload exit status ($out)" 0 $?
	t_eq "XDP program on $VB after unload" "" "$(xdp_prog_id)"
	ip -n "$NSB" link show "$VB" | grep -q xdp &&
		t_fail "an XDP attachment is left: $(ip -n "$NSB" link show "$VB" | head -n 1)"
	[ -e "$PINS" ] && t_fail "pins left at $PINS"
fi
t_end

# --- a dotted name ------------------------------------------------------------------

t_begin dotted_name_load_status_set_unload
pdot=$NSDIR_B/${DOT//./:}
if ! pair_in_b "$DOT" vp$$; then
	t_fail "cannot make a veth named $DOT in $NSB"
elif ! out=$(cs load "$DOT" --cpus 0-1 2>&1); then
	t_fail "load $DOT failed: $out"
else
	[ -d "$pdot" ] || t_fail "no pin folder $pdot; $NSDIR_B holds: $(ls "$NSDIR_B" 2>&1 | tr '\n' ' ')"
	dotted=$(find "$NSDIR_B" -name '*.*' 2>&1)
	[ -z "$dotted" ] || t_fail "a pin path with a dot: $dotted"
	[ -n "$(xdp_prog_id "$DOT")" ] || t_fail "no XDP program on $DOT"
	t_eq "status $DOT: interface pins attached" "$DOT $pdot true" \
		"$(cs status "$DOT" --json 2>&1 |
			jq -r '.instances[0] | "\(.interface) \(.pins) \(.attached)"' 2>&1)"
	cs status --json 2>&1 | jq -e --arg n "$DOT" '[.instances[].interface] | index($n)' \
		>/dev/null 2>&1 || t_fail "status (all) does not list $DOT"
	cs status "$DOT" 2>&1 | head -n 1 | grep -qF "$DOT" ||
		t_fail "status text does not start with $DOT: $(cs status "$DOT" 2>&1 | head -n 1)"
	out=$(cs set "$DOT" --cpus 0 2>&1)
	t_eq "set $DOT --cpus 0 exit status ($out)" 0 $?
	t_eq "bucket owners after set --cpus 0" "512 cpu0" "$(owners "$pdot")"
	out=$(cs unload "$DOT" 2>&1)
	t_eq "unload $DOT exit status ($out)" 0 $?
	t_eq "XDP program on $DOT after unload" "" "$(xdp_prog_id "$DOT")"
	[ -e "$pdot" ] && t_fail "pins left at $pdot"
fi
t_end
ip -n "$NSB" link del "$DOT" 2>/dev/null

# --- a UTF-8 name ---------------------------------------------------------------

t_begin utf8_name_intact_in_json_escaped_in_text
if ! pair_in_b "$UTF" vu$$; then
	t_fail "cannot make a veth named $UTF in $NSB"
elif ! out=$(cs load "$UTF" --cpus 0-1 2>&1); then
	t_fail "load $UTF failed: $out"
else
	t_eq "status $UTF --json: interface" "$UTF" \
		"$(cs status "$UTF" --json 2>&1 | jq -r '.instances[0].interface' 2>&1)"
	cs status --json 2>&1 | jq -e --arg n "$UTF" '[.instances[].interface] | index($n)' \
		>/dev/null 2>&1 || t_fail "status --json (all) does not list $UTF"
	t_eq "stats $UTF --json: interface" "$UTF" \
		"$(cs stats "$UTF" --json --count 1 2>/dev/null | jq -r .interface 2>&1)"
	t_eq "status $UTF text: first word" 'v\xc3\xa9'$$ \
		"$(cs status "$UTF" 2>&1 | head -n 1 | cut -d' ' -f1)"
	out=$(cs unload "$UTF" 2>&1)
	t_eq "unload $UTF exit status ($out)" 0 $?
fi
t_end
ip -n "$NSB" link del "$UTF" 2>/dev/null

# --- an interface deleted while loaded ----------------------------------------

pvg=$NSDIR_B/$VG
t_begin deleted_interface_status_reports_gone
vg_loaded=0
if ! pair_in_b "$VG" vh$$; then
	t_fail "cannot make $VG in $NSB"
elif ! out=$(cs load "$VG" --cpus 0 2>&1); then
	t_fail "load $VG failed: $out"
else
	vg_loaded=1
	ip -n "$NSB" link del "$VG"
	js=$(cs status "$VG" --json 2>&1)
	t_eq "status: interface_gone" true "$(jq -r '.instances[0].interface_gone' <<<"$js" 2>&1)"
	problem=$(jq -r '.instances[0].problem' <<<"$js" 2>&1)
	case $problem in
	*gone*) ;;
	*) t_fail "status: problem: expected a text saying the interface is gone, got '$problem'" ;;
	esac
fi
t_end

t_begin deleted_interface_unload_removes_pins
if [ $vg_loaded != 1 ]; then
	t_fail "nothing loaded on $VG (see above)"
else
	out=$(cs unload "$VG" 2>&1)
	t_eq "unload exit status ($out)" 0 $?
	[ -e "$pvg" ] && t_fail "pins left at $pvg: $(ls "$pvg" | tr '\n' ' ')"
fi
t_end

# Same name, same ifindex, another device: not the one cpusteer was loaded
# on. GRO was off before the load and load turned it on. The newcomer
# starts with GRO off, so a set --gro on that took it for the instance's
# own would show; then GRO on by hand, so an unload that restored "off"
# on it would show.
t_begin recreated_interface_same_index_set_refused
vg_new=0
if loaded_gro_on_in_b "$VG" vh$$; then
	idx=$(ifindex_in "$NSB" "$VG")
	t_eq "GRO on $VG while loaded" on "$(gro_in "$NSB" "$VG")"
	ip -n "$NSB" link del "$VG"
	if ! pair_in_b "$VG" vh$$ index "$idx" || ! in_b ethtool -K "$VG" gro off; then
		t_fail "cannot recreate $VG with ifindex $idx and GRO off"
	else
		vg_new=1
		t_eq "ifindex of the new $VG" "$idx" "$(ifindex_in "$NSB" "$VG")"
		cs set "$VG" --gro on >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
		check_refused "set $VG --gro on" 1 $? "$NETNS_TMP/err" \
			"cpusteer: cannot change cpusteer on $VG: the interface it was loaded on is gone"
		t_eq "GRO of the new $VG after the refused set" off "$(gro_in "$NSB" "$VG")"
	fi
fi
t_end

t_begin recreated_interface_same_index_status_reports_gone
if [ $vg_new != 1 ]; then
	t_fail "no recreated $VG to test with (see above)"
else
	t_eq "status $VG: interface_gone attached" "true false" \
		"$(cs status "$VG" --json 2>&1 |
			jq -r '.instances[0] | "\(.interface_gone) \(.attached)"' 2>&1)"
fi
t_end

t_begin recreated_interface_same_index_gro_untouched_by_unload
if [ $vg_new != 1 ]; then
	t_fail "no recreated $VG to test with (see above)"
else
	in_b ethtool -K "$VG" gro on || t_fail "cannot set GRO on the new $VG"
	out=$(cs unload "$VG" 2>&1)
	t_eq "unload exit status ($out)" 0 $?
	t_eq "GRO of the new $VG after unload" on "$(gro_in "$NSB" "$VG")"
	t_eq "XDP program on the new $VG" "" "$(xdp_prog_id "$VG")"
	[ -e "$pvg" ] && t_fail "pins left at $pvg"
fi
t_end
ip -n "$NSB" link del "$VG" 2>/dev/null

# --- an interface moved to another namespace while loaded ---------------------
#
# vm in B, GRO off, loaded with --gro on, moved to C. Then a namesake vm
# appears in B with the moved device's ifindex and GRO on by hand: unload
# in B must detach and restore in C, and leave the namesake alone.

t_begin moved_interface_unload_detaches_and_restores_in_new_namespace
moved=0
if loaded_gro_on_in_b "$VM" vn$$; then
	prog=$(xdp_prog_id "$VM")
	idx=$(ifindex_in "$NSB" "$VM")
	ip -n "$NSB" link set "$VM" netns "$NSC" || t_fail "cannot move $VM to $NSC"
	if [ "$(xdp_id_in "$NSC" "$VM")" != "$prog" ]; then
		t_fail "the kernel did not keep program $prog on $VM moved to $NSC (has '$(xdp_id_in "$NSC" "$VM")')"
	else
		# The namesake; when the index is taken in B, any index.
		if [ "$(ifindex_in "$NSC" "$VM")" = "$idx" ]; then
			pair_in_b "$VM" vo$$ index "$idx" || pair_in_b "$VM" vo$$
		else
			pair_in_b "$VM" vo$$
		fi
		in_b ethtool -K "$VM" gro on 2>/dev/null
		moved=1
		out=$(cs unload "$VM" 2>&1)
		t_eq "unload in $NSB exit status ($out)" 0 $?
		t_eq "XDP program on $VM in $NSC" "" "$(xdp_id_in "$NSC" "$VM")"
		t_eq "GRO on $VM in $NSC (restored)" off "$(gro_in "$NSC" "$VM")"
		[ -e "$NSDIR_B/$VM" ] && t_fail "pins left at $NSDIR_B/$VM"
	fi
fi
t_end

t_begin moved_interface_unload_leaves_namesake_alone
if [ $moved != 1 ]; then
	t_fail "no moved interface to test with (see above)"
elif [ -z "$(ifindex_in "$NSB" "$VM")" ]; then
	t_fail "no namesake $VM in $NSB"
else
	t_eq "GRO on the namesake $VM in $NSB" on "$(gro_in "$NSB" "$VM")"
	t_eq "XDP program on the namesake $VM in $NSB" "" "$(xdp_prog_id "$VM")"
fi
t_end
ip -n "$NSB" link del "$VM" 2>/dev/null
ip -n "$NSC" link del "$VM" 2>/dev/null

# vk in B, GRO off, loaded with --gro on, moved to C; this time the
# command runs in C, where the device now is and where no instance of its
# name is: the program on vk belongs to B's instance, whose record (GRO
# was off) is what unload must restore. A program taken for one with no
# pins would be detached with its settings left as they are.
t_begin moved_interface_unload_from_its_new_namespace
if loaded_gro_on_in_b "$VK" vl$$; then
	prog=$(xdp_prog_id "$VK")
	ip -n "$NSB" link set "$VK" netns "$NSC" || t_fail "cannot move $VK to $NSC"
	if [ "$(xdp_id_in "$NSC" "$VK")" != "$prog" ]; then
		t_fail "the kernel did not keep program $prog on $VK moved to $NSC (has '$(xdp_id_in "$NSC" "$VK")')"
	else
		t_eq "GRO on $VK in $NSC before the unload" on "$(gro_in "$NSC" "$VK")"
		# The id cpusteer names: its own program's, not the dispatcher's.
		steer=$(steer_prog_id_in "$NSC" "$VK")
		csc status "$VK" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
		line=$(head -n 1 "$NETNS_TMP/err")
		[ "$(nlines "$NETNS_TMP/err")" = 1 ] ||
			t_fail "status in $NSC: lines on stderr: expected 1, got $(nlines "$NETNS_TMP/err"): '$(tr '\n' '|' <"$NETNS_TMP/err")'"
		[[ $line =~ /run/netns/$NSB([^0-9]|$) ]] && [[ -n $steer && $line == *"program $steer "* ]] ||
			t_fail "status in $NSC: expected a line naming program $steer and the instance in /run/netns/$NSB, got '$line'"
		out=$(csc unload "$VK" 2>&1)
		t_eq "unload in $NSC exit status ($out)" 0 $?
		t_eq "XDP program on $VK in $NSC" "" "$(xdp_id_in "$NSC" "$VK")"
		t_eq "GRO on $VK in $NSC (restored)" off "$(gro_in "$NSC" "$VK")"
		[ -e "$NSDIR_B/$VK" ] && t_fail "pins left at $NSDIR_B/$VK: $(ls "$NSDIR_B/$VK" | tr '\n' ' ')"
	fi
fi
t_end
ip -n "$NSC" link del "$VK" 2>/dev/null
ip -n "$NSB" link del "$VK" 2>/dev/null

# --- an interface renamed while loaded ------------------------------------------
#
# vr in B, GRO off, loaded with --gro on, renamed to vs (a name no
# instance has): unload vs finds the instance of vr by its program.

t_begin renamed_interface_unload_by_new_name
if loaded_gro_on_in_b "$VR" vt$$; then
	prog=$(xdp_prog_id "$VR")
	if ! ip -n "$NSB" link set "$VR" down || ! ip -n "$NSB" link set "$VR" name "$VS" ||
		! ip -n "$NSB" link set "$VS" up; then
		t_fail "cannot rename $VR to $VS"
	elif [ "$(xdp_prog_id "$VS")" != "$prog" ]; then
		t_fail "the kernel did not keep program $prog on $VR renamed $VS (has '$(xdp_prog_id "$VS")')"
	else
		t_eq "GRO on $VS before the unload" on "$(gro_in "$NSB" "$VS")"
		# A new device takes the old name: its load is refused, and the
		# line says whose the instance of that name is.
		if pair_in_b "$VR" vu$$; then
			cs load "$VR" --cpus 0 >/dev/null 2>"$NETNS_TMP/err"
			check_refused "load $VR, the name of a renamed device" 1 $? "$NETNS_TMP/err" \
				"cpusteer: cannot load on $VR: the instance of that name belongs to the device it was loaded on"
			grep -q "now named $VS; cpusteer unload $VR removes it first" "$NETNS_TMP/err" ||
				t_fail "the refusal does not name $VS: $(cat "$NETNS_TMP/err")"
			ip -n "$NSB" link del "$VR"
		else
			t_fail "cannot make a new $VR"
		fi
		out=$(cs unload "$VS" 2>&1)
		t_eq "unload $VS exit status ($out)" 0 $?
		t_eq "XDP program on $VS" "" "$(xdp_prog_id "$VS")"
		t_eq "GRO on $VS (restored)" off "$(gro_in "$NSB" "$VS")"
		[ -e "$NSDIR_B/$VR" ] && t_fail "pins left at $NSDIR_B/$VR: $(ls "$NSDIR_B/$VR" | tr '\n' ' ')"
	fi
fi
t_end
ip -n "$NSB" link del "$VS" 2>/dev/null
ip -n "$NSB" link del "$VR" 2>/dev/null

# --- the same name in two namespaces --------------------------------------------

# `stats --count 1 --json` in B and in C, side by side, while a sender
# runs: "INTERFACE TOTAL_RX" of each in STATS_B and STATS_C.
stats_both() {
	local pb pc

	cs stats "$VB" --count 1 --interval 1 --json >"$NETNS_TMP/stats_b" 2>&1 &
	pb=$!
	csc stats "$VB" --count 1 --interval 1 --json >"$NETNS_TMP/stats_c" 2>&1 &
	pc=$!
	wait $pb $pc
	STATS_B=$(jq -r '"\(.interface) \(.totals.rx)"' "$NETNS_TMP/stats_b" 2>&1 | paste -sd ' ')
	STATS_C=$(jq -r '"\(.interface) \(.totals.rx)"' "$NETNS_TMP/stats_c" 2>&1 | paste -sd ' ')
}

# Checks a stats result: "IFACE 0" for NONE, "IFACE N" with N > 0 for SOME.
stats_is() {	# WHAT none|some RESULT
	local what=$1 want=$2 got=$3

	case $want:$got in
	"none:$VB 0") ;;
	some:"$VB "[1-9]*) ;;
	*) t_fail "$what: expected '$VB $([ "$want" = none ] && echo 0 || echo '>0')', got '$got'" ;;
	esac
}

# Waits until the counter rx_packets of PIN_DIR reaches AT_LEAST, 5 s at most.
wait_rx() {	# PIN_DIR AT_LEAST
	local i

	for i in $(seq 50); do
		[ "$(counter "$1" rx_packets)" -ge "$2" ] 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Sends from A to TO (B or C) until stopped; waits until that instance
# counts a packet.
start_sender() {	# B|C
	local flows pins

	if [ "$1" = B ]; then
		flows=$FLOWS_V4 pins=$PINS
	else
		flows=$FLOWS_C pins=$PINS_C
	fi
	# shellcheck disable=SC2086
	bg_a "$TOOLS/udp_flows" send $flows --flows 4 --seconds 60 >/dev/null 2>&1
	SENDER=$BG_PID
	wait_rx "$pins" $(($(counter "$pins" rx_packets) + 1))
}

stop_sender() {
	kill "$SENDER" 2>/dev/null
	wait "$SENDER" 2>/dev/null
}

t_begin same_name_two_namespaces_load_independently
same=0
out_b=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1)
rc_b=$?
out_c=$(csc load "$VB" --cpus 0-1 --key "$KEY1" 2>&1)
rc_c=$?
t_eq "load in $NSB exit status ($out_b)" 0 $rc_b
t_eq "load in $NSC exit status ($out_c)" 0 $rc_c
if [ $rc_b = 0 ] && [ $rc_c = 0 ]; then
	same=1
	[ -d "$PINS" ] || t_fail "no pin folder $PINS"
	[ -d "$PINS_C" ] || t_fail "no pin folder $PINS_C"
	[ "$PINS" != "$PINS_C" ] || t_fail "both namespaces use one pin folder $PINS"
	prog_b=$(xdp_prog_id)
	prog_c=$(xdp_id_in "$NSC" "$VB")
	[ -n "$prog_b" ] && [ -n "$prog_c" ] && [ "$prog_b" != "$prog_c" ] ||
		t_fail "XDP programs: expected two different ones, got '$prog_b' in $NSB and '$prog_c' in $NSC"
fi
t_end

t_begin same_name_set_changes_only_its_namespace
if [ $same != 1 ]; then
	t_fail "the two instances did not load (see above)"
else
	table_c=$("$TOOLS/steer_maps" table "$PINS_C" 512 2>&1 | md5sum)
	out=$(cs set "$VB" --cpus 0 2>&1)
	t_eq "set in $NSB exit status ($out)" 0 $?
	t_eq "bucket owners in $NSB" "512 cpu0" "$(owners "$PINS")"
	t_eq "bucket owners in $NSC" "256 cpu0 256 cpu1" "$(owners "$PINS_C")"
	t_eq "table in $NSC unchanged (md5)" "$table_c" \
		"$("$TOOLS/steer_maps" table "$PINS_C" 512 2>&1 | md5sum)"
fi
t_end

t_begin same_name_stats_count_only_own_traffic
if [ $same != 1 ]; then
	t_fail "the two instances did not load (see above)"
else
	if start_sender C; then
		stats_both
		stats_is "A sends to $NSC only: stats in $NSB" none "$STATS_B"
		stats_is "A sends to $NSC only: stats in $NSC" some "$STATS_C"
	else
		t_fail "the instance in $NSC saw none of A's packets"
	fi
	stop_sender
	if start_sender B; then
		stats_both
		stats_is "A sends to $NSB only: stats in $NSB" some "$STATS_B"
		stats_is "A sends to $NSB only: stats in $NSC" none "$STATS_C"
	else
		t_fail "the instance in $NSB saw none of A's packets"
	fi
	stop_sender
fi
t_end

t_begin same_name_status_lists_own_and_other_namespace
if [ $same != 1 ]; then
	t_fail "the two instances did not load (see above)"
else
	# shellcheck disable=SC2016
	q='[(.instances | map(.pins) | join(",")),
	    (.other_namespaces | map(select(.interface == $n)) | map("\(.pins) \(.netns)") | join(","))]
	   | join(" | ")'
	t_eq "status $VB in $NSB: own | others" "$PINS | $PINS_C /run/netns/$NSC" \
		"$(cs status "$VB" --json 2>&1 | jq -r --arg n "$VB" "$q" 2>&1)"
	t_eq "status $VB in $NSC: own | others" "$PINS_C | $PINS /run/netns/$NSB" \
		"$(csc status "$VB" --json 2>&1 | jq -r --arg n "$VB" "$q" 2>&1)"
fi
t_end

# From the namespace this script runs in, where neither instance is.
t_begin same_name_wrong_namespace_refused_with_working_hint
if [ $same != 1 ]; then
	t_fail "the two instances did not load (see above)"
else
	set_hint=
	tables=$("$TOOLS/steer_maps" table "$PINS" 512 2>&1 | md5sum)$("$TOOLS/steer_maps" table \
		"$PINS_C" 512 2>&1 | md5sum)
	for cmd in set stats unload; do
		extra=()
		[ $cmd = stats ] && extra=(--count 1 --interval 1)
		# The hint must keep the options: without them it does another thing.
		[ $cmd = set ] && extra=(--cpus 0 --qsize 64)
		"$CPUSTEER" $cmd "$VB" "${extra[@]}" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
		rc=$?
		check_refused "$cmd here" 1 "$rc" "$NETNS_TMP/err" \
			"cpusteer: cpusteer is not loaded on $VB in this network namespace, but in /run/netns/"
		line=$(head -n 1 "$NETNS_TMP/err")
		where=$(sed -n 's/.*, but in \([^ ]*\) (.*/\1/p' <<<"$line")
		hint=$(sed -n 's/.* (\(nsenter --net=[^ ]* cpusteer .*\))$/\1/p' <<<"$line")
		case $where in
		"/run/netns/$NSB" | "/run/netns/$NSC") ;;
		*) t_fail "$cmd here: expected B's or C's namespace named, got '$where' in '$line'" ;;
		esac
		t_eq "$cmd here: hint" "nsenter --net=$where cpusteer $cmd $VB${extra[*]:+ ${extra[*]}}" \
			"$hint"
		[ $cmd = set ] && set_hint=$hint
	done
	t_eq "both instances still loaded" "yes yes" \
		"$([ -d "$PINS" ] && echo yes || echo no) $([ -d "$PINS_C" ] && echo yes || echo no)"
	t_eq "tables unchanged (md5)" "$tables" "$("$TOOLS/steer_maps" table "$PINS" 512 2>&1 |
		md5sum)$("$TOOLS/steer_maps" table "$PINS_C" 512 2>&1 | md5sum)"
	# The set hint, run as printed (with this build's binary).
	read -r -a words <<<"$set_hint"
	if [ "${#words[@]}" = 9 ] && [ "${words[2]}" = cpusteer ]; then
		out=$("${words[0]}" "${words[1]}" "$CPUSTEER" "${words[@]:3}" 2>&1)
		t_eq "the hint '$set_hint' exit status ($out)" 0 $?
	fi
fi
t_end

t_begin same_name_unload_leaves_other_working
if [ $same != 1 ]; then
	t_fail "the two instances did not load (see above)"
else
	prog_c=$(xdp_id_in "$NSC" "$VB")
	out=$(cs unload "$VB" 2>&1)
	t_eq "unload in $NSB exit status ($out)" 0 $?
	t_eq "XDP program on $VB in $NSB" "" "$(xdp_prog_id)"
	[ -e "$PINS" ] && t_fail "pins left at $PINS"
	[ -d "$PINS_C" ] || t_fail "the pins of $NSC are gone: $PINS_C"
	t_eq "XDP program on $VB in $NSC" "$prog_c" "$(xdp_id_in "$NSC" "$VB")"
	t_eq "status in $NSC: attached phase others" "true ready 0" \
		"$(csc status "$VB" --json 2>&1 | jq -r --arg n "$VB" \
			'"\(.instances[0].attached) \(.instances[0].phase) \([.other_namespaces[] | select(.interface == $n)] | length)"' 2>&1)"
	rx=$(counter "$PINS_C" rx_packets)
	red=$(counter "$PINS_C" redirected)
	# shellcheck disable=SC2086
	sent=$(in_a "$TOOLS/udp_flows" send $FLOWS_C --flows 4 --count 25 2>/dev/null |
		awk '$1 == "sent" { print $2 }')
	if ! [ "${sent:-0}" -gt 0 ] 2>/dev/null; then
		t_fail "A could not send to $NSC (sent '$sent')"
	else
		wait_rx "$PINS_C" $((rx + sent))
		t_ge "rx_packets counted in $NSC after B's unload" $((rx + sent)) \
			"$(counter "$PINS_C" rx_packets)"
		t_ge "packets redirected in $NSC after B's unload" $((red + sent)) \
			"$(counter "$PINS_C" redirected)"
	fi
	out=$(csc unload "$VB" 2>&1)
	t_eq "unload in $NSC exit status ($out)" 0 $?
fi
t_end

t_exit
