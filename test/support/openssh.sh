# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # sourced; the arrays are the caller's
# Sourced (not a test: test/CMakeLists.txt registers test/cli/*.sh only):
# the system's sshd on 127.0.0.1 with a generated host key and a root login
# by a generated user key, set up the way test/cli/ssh_openssh.native.sh
# does it (privilege separation and its sandbox on, as OpenSSH 9 always
# has them), for scripts/bench_apps.sh. Each sshd is named, has its files
# in <work>/sshd-<name>, allows every AES cipher `ssh -Q cipher` lists, and
# takes the OpenSSL configuration from the caller's environment when
# started (sshd re-executes itself per connection with that environment).
# Needs root.
#
#   sshd_start <name> <work> <cpus>   start it (daemon, pinned to <cpus>)
#   sshd_find_masters <work>          fill sshd_master[name], sshd_port[name]
#   sshd_stop_all                     stop every one found
#   ssh_opts <work>                   fills the array ssh_args: the client
#                                     options (user key, no host key check),
#                                     to which the caller adds -p, -o Ciphers=,
#                                     root@127.0.0.1 and the command

# shellcheck source=test/support/daemons.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemons.sh"
sshd_bin=/usr/sbin/sshd   # sshd re-executes itself: an absolute path
declare -A sshd_master=() sshd_port=()

sshd_keys() { # <work>: the host and user keys, once
    [[ -f "$1/user_ed25519" ]] && return 0
    ssh-keygen -q -t ed25519 -N '' -C hwcipher-bench-host -f "$1/host_ed25519"
    ssh-keygen -q -t ed25519 -N '' -C hwcipher-bench-user -f "$1/user_ed25519"
    cp "$1/user_ed25519.pub" "$1/authorized_keys"
    chmod 600 "$1/authorized_keys"
}

sshd_start() { # <name> <work> <cpus>
    local d=$2/sshd-$1 work=$2 ciphers
    mkdir -p "$d" /run/sshd
    chmod 0755 /run/sshd
    sshd_keys "$2"
    ciphers=$(ssh -Q cipher | grep '^aes' | paste -sd,)
    sshd_conf_at() { # <port>
        cat > "$d/sshd_config" << CONF
ListenAddress 127.0.0.1
Port $1
HostKey $work/host_ed25519
PidFile $d/sshd.pid
AuthorizedKeysFile $work/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
PrintMotd no
Ciphers $ciphers
CONF
    }
    daemon_start "$d" "$d/sshd.pid" "$d/sshd.log" 'Bind to port .* failed|Cannot bind any address' \
        sshd_conf_at "$3" "$sshd_bin" -f "$d/sshd_config" -E "$d/sshd.log"
}

sshd_find_masters() { daemon_find "$1" sshd sshd.pid sshd_master sshd_port; } # <work>
sshd_stop_all() { daemon_stop_all TERM sshd_master; }

ssh_opts() { # <work>
    ssh_args=(-F none -o BatchMode=yes -o ConnectTimeout=30 -o IdentitiesOnly=yes
              -i "$1/user_ed25519" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
              -o GlobalKnownHostsFile=/dev/null -o LogLevel=ERROR)
}
