# Load-agent fixture for the tests and the benchmark of `brink run --agents`
# (docs/agents-setup.md): three hosts that speak real OpenSSH, and a place
# for the target that only they load. Sourced, never run; POSIX sh (dash).
# Every wait is bounded. sh has no local variables: everything it sets is
# named ag_*, so a caller's loop variables are safe.
#
# Two modes, chosen by ag_setup:
#   netns     (root, where `ip netns add` works): network namespaces
#             brinkag-PID-0, -1, -2 (the agents) and brinkag-PID-t (the
#             target). Each agent has a veth link to the root namespace
#             (10.N.I.1 there, 10.N.I.2 in the agent, /24), where its sshd
#             listens on port 22, and a veth link to the target namespace
#             (10.N.1I.2 in the agent, 10.N.1I.1 in the target). The target
#             listens on 10.N.100.1, on the target namespace's loopback, routed
#             from each agent over its own link; the root namespace has no
#             route to it, so every request goes through an agent. N is a
#             second octet of 10/8 that no address or route here uses.
#   loopback  (anywhere else): three sshd on free ports of 127.0.0.1 and a
#             target on 127.0.0.1.
# BRINK_AGENTS_MODE=loopback forces the second where both would work.
#
# Each sshd is Debian's OpenSSH server, `sshd -D -e -f CONFIG` with a config
# written here: a host key and a user key made for the test (ed25519),
# AuthorizedKeysFile naming the user key alone, no PAM, no passwords,
# StrictModes off (the keys live in a mktemp directory). The sessions run
# without the user's login files, so that a host's shell set-up (a version
# manager in ~/.bashrc, say) can neither hang nor change them: their home
# is DIR/home, empty (SetEnv HOME, and in netns mode the user's passwd
# entry, below), and a ForceCommand runs the command through /bin/sh (in
# netns mode the login shell is /bin/sh too; in loopback mode the user's
# own shell only execs it, reading its files from that empty home). Every
# session has SetEnv BRINK_AGENTS_FIXTURE=DIR/agentI, which is how the
# processes an agent's session left behind are found even once they have
# left sshd's process tree. sshd and the sessions also carry
# BRINK_AGENTS_OWNER=PID, the shell that sourced this file, so that what a
# run killed before its cleanup left is found and stopped by the next. As
# root, sshd without PAM refuses even keys to an account whose password is
# locked ("!" in /etc/shadow); in netns mode such an account gets in through
# a copy of /etc/shadow bind-mounted in the private mount namespace of `ip
# netns exec`, never on the machine's. The clients use an ssh_config
# written here: Host agent0, agent1, agent2 (so the hosts are names, ports
# included), the user key only, BatchMode, and the host key pinned
# (StrictHostKeyChecking yes against a known_hosts file holding it). The
# veth ends in the root namespace are named bkaPIDrI.
#
# A caller sources it, calls ag_setup DIR once (DIR: a directory of its own,
# which the caller removes) and ag_cleanup from its EXIT trap:
#
#   . "$src/tests/agents/lib.sh"
#   tmp=$(mktemp -d); trap 'ag_cleanup; rm -rf "$tmp"' EXIT
#   trap 'exit 1' INT TERM HUP PIPE
#   ag_setup "$tmp/agents" && ag_start || exit 1
#   $ag_ssh agent1 hostname
#   $ag_target_run "$brink" target --listen "$ag_target_addr:0" >target.out &
#
# Functions (each returns non-zero and says "agents: why" on stderr when it
# fails):
#   ag_setup DIR          fails when ip, sshd, ssh, ssh-keygen or curl is
#                         missing; removes what runs of this fixture left
#                         behind when they died without cleaning up
#                         (namespaces brinkag-PID-* of a PID that is gone
#                         and the processes still in them; processes whose
#                         BRINK_AGENTS_OWNER is gone); makes the keys
#                         in DIR and chooses the mode (ag_mode)
#   ag_start              makes the namespaces and links (netns mode),
#                         starts the three sshd and waits (at most 10 s
#                         each) until they listen; then sets
#                           ag_hosts          agent0,agent1,agent2
#                           ag_ssh            the ssh command for them:
#                                             ssh -F DIR/ssh_config
#                                             -o BatchMode=yes
#                           ag_target_addr    the address for the target
#                                             to listen on (10.N.100.1 or
#                                             127.0.0.1)
#                           ag_target_run     the words that run a command
#                                             where the target lives ("ip
#                                             netns exec brinkag-PID-t", or
#                                             none), to be left unquoted:
#                                             $ag_target_run CMD & leaves
#                                             CMD's PID in $!
#                           ag_addr_I         agent I's sshd address
#                           ag_port_I         its port
#                           ag_sshd_I         its sshd's PID
#   ag_var NAME I         prints ag_NAME_I (addr, port or sshd)
#   ag_in_agent I CMD...  runs CMD in agent I's namespace (or here): a check
#                         that the target answers from there
#   ag_procs I            prints the PIDs of agent I's sessions: sshd's
#                         descendants and every process with agent I's
#                         BRINK_AGENTS_FIXTURE (the listening sshd aside)
#   ag_user_procs I       of those, the processes the sessions ran (the
#                         shell, brink agent): the ones with the variable
#   ag_wait_idle I SECS [user]
#                         polls until agent I has no session process (with
#                         "user": none of ag_user_procs); fails after SECS
#   ag_kill I             SIGKILL to agent I's sshd and every process of
#                         its sessions (ag_procs), by PID: the agent dies
#                         and its ssh connection drops
#   ag_restart I          starts agent I's sshd again after ag_kill
#   ag_freeze I           SIGSTOP to the sshd processes of agent I's
#                         sessions, not to what they run: the link hangs,
#                         its TCP connection open and nothing passing either
#                         way, while brink agent runs on (ag_kill or
#                         ag_cleanup kills them)
#   ag_cleanup            kills every sshd and session process of the
#                         fixture, by PID, and deletes its namespaces (their
#                         veth links go with them); idempotent

ag_dir=""
ag_mode=""
ag_ns=""
ag_net=""
ag_hosts=""
ag_ssh=""
ag_target_addr=""
ag_target_run=""
ag_sshd_0="" ag_sshd_1="" ag_sshd_2=""
ag_port_0="" ag_port_1="" ag_port_2=""
ag_addr_0="" ag_addr_1="" ag_addr_2=""

ag_fail() {
    echo "agents: $*" >&2
    return 1
}

# ag_var NAME I: the value of ag_NAME_I.
ag_var() {
    eval "echo \"\$ag_${1}_$2\""
}

ag_setup() {
    ag_dir=$1
    command -v ip >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
    for ag_t in ip ssh ssh-keygen curl python3; do
        command -v "$ag_t" >/dev/null 2>&1 || ag_fail "$ag_t is missing: run scripts/install-deps" || return 1
    done
    # sshd refuses to re-execute itself unless started by its absolute path.
    [ -x /usr/sbin/sshd ] || ag_fail "/usr/sbin/sshd is missing (openssh-server): run scripts/install-deps" || return 1
    mkdir -p "$ag_dir" || return 1
    ag_ns=brinkag-$$
    ag_reap_stale
    ag_keys || return 1
    ag_mode=loopback
    if [ "${BRINK_AGENTS_MODE:-}" != loopback ] && ip netns add "$ag_ns-t" 2>/dev/null; then
        ag_mode=netns
    fi
}

# ag_reap_stale: namespaces brinkag-PID-* whose PID is gone were left by a
# run killed before its trap: the processes in them are killed by PID and
# the namespaces deleted. So are the loopback sshd of such a run, found by
# the BRINK_AGENTS_OWNER=PID they were started with. What belongs to a run
# still going is left alone.
ag_reap_stale() {
    for ag_e in $(grep -lsaz '^BRINK_AGENTS_OWNER=[0-9]*$' /proc/[0-9]*/environ); do
        ag_p=${ag_e#/proc/}
        ag_p=${ag_p%/environ}
        ag_owner=$(tr '\0' '\n' <"$ag_e" 2>/dev/null | sed -n 's/^BRINK_AGENTS_OWNER=//p')
        [ -n "$ag_owner" ] && ! kill -0 "$ag_owner" 2>/dev/null && kill -9 "$ag_p" 2>/dev/null
    done
    for ag_n in $(ip netns list 2>/dev/null | awk '$1 ~ /^brinkag-[0-9]+-[0-9t]$/ { print $1 }'); do
        ag_owner=${ag_n#brinkag-}
        ag_owner=${ag_owner%-*}
        kill -0 "$ag_owner" 2>/dev/null && continue
        for ag_p in $(ip netns pids "$ag_n" 2>/dev/null); do
            kill -9 "$ag_p" 2>/dev/null
        done
        ip netns del "$ag_n" 2>/dev/null
    done
}

ag_keys() {
    ssh-keygen -q -t ed25519 -N '' -C brink-agents-host -f "$ag_dir/host_key" </dev/null >/dev/null &&
        ssh-keygen -q -t ed25519 -N '' -C brink-agents-user -f "$ag_dir/user_key" </dev/null >/dev/null ||
        ag_fail "ssh-keygen could not make the keys in $ag_dir" || return 1
    # The host key is pinned: every agent is known by the one alias below.
    printf 'brink-agents-fixture %s\n' "$(cut -d ' ' -f 1,2 "$ag_dir/host_key.pub")" >"$ag_dir/known_hosts"
}

ag_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ag_pick_net: a second octet N of 10/8 with no address or route here.
ag_pick_net() {
    ag_used=$( (ip -4 addr show; ip -4 route show table all) 2>/dev/null)
    ag_i=0
    ag_n=$((100 + $$ % 150))
    while [ $ag_i -lt 150 ]; do
        if ! printf '%s\n' "$ag_used" | grep -q "10\.$ag_n\."; then
            ag_net=10.$ag_n
            return 0
        fi
        ag_n=$((100 + (ag_n - 99) % 150))
        ag_i=$((ag_i + 1))
    done
    ag_fail "no free 10.N.0.0/16 for the agents' links"
}

# ag_link_ns I: agent I's namespace, its link to the root namespace and its
# link to the target namespace, with the route to the target's address.
ag_link_ns() {
    ag_a=$ag_ns-$1
    ag_up=bka$$r$1
    ip netns add "$ag_a" &&
        ip link add "$ag_up" type veth peer name uplink netns "$ag_a" &&
        ip link add tlink netns "$ag_a" type veth peer name "alink$1" netns "$ag_ns-t" &&
        ip addr add "$ag_net.$1.1/24" dev "$ag_up" &&
        ip link set dev "$ag_up" up &&
        ip -n "$ag_a" addr add "$ag_net.$1.2/24" dev uplink &&
        ip -n "$ag_a" addr add "$ag_net.1$1.2/24" dev tlink &&
        ip -n "$ag_ns-t" addr add "$ag_net.1$1.1/24" dev "alink$1" &&
        ip -n "$ag_a" link set dev lo up &&
        ip -n "$ag_a" link set dev uplink up &&
        ip -n "$ag_a" link set dev tlink up &&
        ip -n "$ag_ns-t" link set dev "alink$1" up &&
        ip -n "$ag_a" route add "$ag_target_addr/32" via "$ag_net.1$1.1" ||
        ag_fail "could not make the namespace and links of agent $1"
}

ag_make_net() {
    ag_pick_net || return 1
    ag_target_addr=$ag_net.100.1
    ip -n "$ag_ns-t" link set dev lo up &&
        ip -n "$ag_ns-t" addr add "$ag_target_addr/32" dev lo ||
        ag_fail "could not set up the target namespace $ag_ns-t" || return 1
    for ag_i in 0 1 2; do
        ag_link_ns $ag_i || return 1
        eval "ag_addr_$ag_i=$ag_net.$ag_i.2 ag_port_$ag_i=22"
    done
}

# ag_sshd_config I: agent I's sshd_config.
ag_sshd_config() {
    cat <<EOF
ListenAddress $(ag_var addr "$1")
Port $(ag_var port "$1")
HostKey $ag_dir/host_key
PidFile none
AuthorizedKeysFile $ag_dir/user_key.pub
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
UseDNS no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowTcpForwarding no
PermitTTY no
MaxStartups 30
SetEnv BRINK_AGENTS_FIXTURE=$ag_dir/agent$1 BRINK_AGENTS_OWNER=$$ HOME=$ag_dir/home ENV= BASH_ENV=
ForceCommand exec /bin/sh -c "\$SSH_ORIGINAL_COMMAND"
LogLevel INFO
EOF
}

# ag_locked: whether this user's shadow password is locked ("!..."), which
# sshd without PAM takes as a locked account, refusing keys too.
ag_locked() {
    [ "$(id -u)" -eq 0 ] && awk -F: -v u="$(id -un)" '$1 == u && $2 ~ /^!/ { f = 1 } END { exit !f }' /etc/shadow 2>/dev/null
}

# ag_sshd I: starts agent I's sshd; its log is DIR/sshdI.log. In netns mode
# a copy of /etc/passwd in which this user's home is DIR/home and its shell
# /bin/sh, and for a locked account a copy of /etc/shadow that lets it in,
# are bind-mounted in the private mount namespace `ip netns exec` makes,
# never on the machine's.
ag_sshd() {
    ag_sshd_config "$1" >"$ag_dir/sshd$1.conf"
    : >"$ag_dir/sshd$1.log"
    mkdir -p "$ag_dir/home" || return 1
    if [ "$ag_mode" = loopback ]; then
        env "BRINK_AGENTS_OWNER=$$" /usr/sbin/sshd -D -e -f "$ag_dir/sshd$1.conf" >"$ag_dir/sshd$1.log" 2>&1 </dev/null &
    else
        awk -F: -v OFS=: -v u="$(id -un)" -v h="$ag_dir/home" '$1 == u { $6 = h; $7 = "/bin/sh" } { print }' \
            /etc/passwd >"$ag_dir/passwd"
        rm -f "$ag_dir/shadow"
        if ag_locked; then
            awk -F: -v OFS=: -v u="$(id -un)" '$1 == u { $2 = "*" } { print }' /etc/shadow >"$ag_dir/shadow"
            chmod 600 "$ag_dir/shadow"
        fi
        ip netns exec "$ag_ns-$1" env "BRINK_AGENTS_OWNER=$$" sh -c 'mount --bind "$1" /etc/passwd && { [ ! -e "$2" ] || mount --bind "$2" /etc/shadow; } && exec /usr/sbin/sshd -D -e -f "$3"' \
            sh "$ag_dir/passwd" "$ag_dir/shadow" "$ag_dir/sshd$1.conf" >"$ag_dir/sshd$1.log" 2>&1 </dev/null &
    fi
    eval "ag_sshd_$1=$!"
    ag_j=0
    while ! grep -q '^Server listening on' "$ag_dir/sshd$1.log"; do
        kill -0 "$(ag_var sshd "$1")" 2>/dev/null && [ $ag_j -lt 200 ] ||
            ag_fail "sshd of agent $1 did not start: $(tail -n 2 "$ag_dir/sshd$1.log" | tr '\n' ' ')" || return 1
        sleep 0.05
        ag_j=$((ag_j + 1))
    done
}

ag_ssh_config() {
    for ag_i in 0 1 2; do
        printf 'Host agent%s\n    HostName %s\n    Port %s\n' "$ag_i" "$(ag_var addr $ag_i)" "$(ag_var port $ag_i)"
    done
    cat <<EOF
Host *
    User $(id -un)
    IdentityFile $ag_dir/user_key
    IdentitiesOnly yes
    BatchMode yes
    HostKeyAlias brink-agents-fixture
    StrictHostKeyChecking yes
    UserKnownHostsFile $ag_dir/known_hosts
    GlobalKnownHostsFile /dev/null
    CheckHostIP no
    UpdateHostKeys no
    ConnectTimeout 5
    LogLevel ERROR
EOF
}

ag_start() {
    # Debian's sshd, as root, wants its privilege separation directory,
    # which a machine that never started the service lacks.
    if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then
        mkdir -m 0755 /run/sshd || ag_fail "cannot make /run/sshd" || return 1
    fi
    if [ "$ag_mode" = netns ]; then
        ag_make_net || return 1
    else
        ag_target_addr=127.0.0.1
        for ag_i in 0 1 2; do
            eval "ag_addr_$ag_i=127.0.0.1 ag_port_$ag_i=$(ag_free_port)"
        done
    fi
    for ag_i in 0 1 2; do
        ag_sshd $ag_i || return 1
    done
    ag_ssh_config >"$ag_dir/ssh_config"
    ag_hosts=agent0,agent1,agent2
    ag_target_run=""
    [ "$ag_mode" = netns ] && ag_target_run="ip netns exec $ag_ns-t"
    ag_ssh="ssh -F $ag_dir/ssh_config -o BatchMode=yes"
}

ag_in_agent() {
    ag_i=$1
    shift
    if [ "$ag_mode" = netns ]; then
        ip netns exec "$ag_ns-$ag_i" "$@"
    else
        "$@"
    fi
}

# ag_descendants PID: every descendant of PID, one a line.
ag_descendants() {
    for ag_c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$ag_c"
        ag_descendants "$ag_c"
    done
}

ag_procs() {
    ag_s=$(ag_var sshd "$1")
    {
        [ -n "$ag_s" ] && ag_descendants "$ag_s"
        ag_user_procs "$1"
    } | sort -un
}

ag_user_procs() {
    grep -lsFxz "BRINK_AGENTS_FIXTURE=$ag_dir/agent$1" /proc/[0-9]*/environ |
        sed 's,^/proc/\([0-9]*\)/environ$,\1,' | sort -un
}

ag_wait_idle() {
    ag_j=0
    while [ -n "$(if [ "${3:-}" = user ]; then ag_user_procs "$1"; else ag_procs "$1"; fi)" ]; do
        [ $ag_j -ge $(($2 * 20)) ] && return 1
        sleep 0.05
        ag_j=$((ag_j + 1))
    done
}

ag_kill() {
    ag_s=$(ag_var sshd "$1")
    ag_p=$(ag_procs "$1")
    # shellcheck disable=SC2086
    kill -9 $ag_s $ag_p 2>/dev/null
    [ -n "$ag_s" ] && wait "$ag_s" 2>/dev/null
    eval "ag_sshd_$1="
    return 0
}

ag_restart() {
    ag_sshd "$1"
}

ag_freeze() {
    ag_u=" $(ag_user_procs "$1" | tr '\n' ' ') "
    ag_p=""
    for ag_c in $(ag_descendants "$(ag_var sshd "$1")"); do
        case $ag_u in
        *" $ag_c "*) ;;
        *) ag_p="$ag_p $ag_c" ;;
        esac
    done
    [ -n "$ag_p" ] || ag_fail "agent $1 has no session to freeze" || return 1
    # shellcheck disable=SC2086
    kill -STOP $ag_p
}

ag_cleanup() {
    [ -n "$ag_dir" ] || return 0
    for ag_i in 0 1 2; do
        ag_kill $ag_i
    done
    if [ "$ag_mode" = netns ]; then
        for ag_n in "$ag_ns-0" "$ag_ns-1" "$ag_ns-2" "$ag_ns-t"; do
            # What is left in a namespace was started in it by this run.
            for ag_p in $(ip netns pids "$ag_n" 2>/dev/null); do
                kill -9 "$ag_p" 2>/dev/null
            done
            ip netns del "$ag_n" 2>/dev/null
        done
    fi
    ag_dir=""
}
