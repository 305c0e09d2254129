#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI (native only): Debian's unmodified OpenSSH, sshd and ssh on 127.0.0.1, both preferring hwcipher through OPENSSL_CONF, with privilege separation and its seccomp sandbox on and HWCIPHER_TRACE on at both ends. For every AES cipher OpenSSH offers (`ssh -Q cipher`: CTR and GCM, which it enables by default, and CBC), a 4 MiB file goes up and comes back byte for byte, and both traces show hwcipher keying that cipher each way: the client, and each connection's sshd after authentication.
# sshd and ssh are host binaries that load the module through the system's OpenSSL, so test/CMakeLists.txt registers *.native.sh scripts only for native builds. Needs root (sshd's privilege separation).
set -euo pipefail

: "${OPENSSL_MODULES:?OPENSSL_MODULES not set}" "${HWCIPHER_CNF_DIR:?HWCIPHER_CNF_DIR not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
sshd_bin=/usr/sbin/sshd   # sshd re-executes itself: an absolute path
[ -x "$sshd_bin" ] || fail "sshd not installed (scripts/deps.sh --native-tests installs openssh-server)"
for t in ssh ssh-keygen ssh-agent ssh-add; do
  command -v "$t" >/dev/null || fail "$t not installed (scripts/deps.sh --native-tests installs openssh-client)"
done
(( EUID == 0 )) || fail "sshd's privilege separation needs root (run the native stage as root)"
case ${OPENSSL_BIN:-openssl} in
  *" "*) fail "OPENSSL_BIN is '$OPENSSL_BIN': sshd and ssh run on the plain system OpenSSL; native builds only" ;;
esac

wait_s=${HWCIPHER_SSH_WAIT:-30}   # bound on every wait and every ssh below
build=${HWCIPHER_BUILD_DIR:-$PWD}
# In the build tree, which sshd (root after authentication) and the
# privilege-separated processes' monitor can read.
work=$(mktemp -d "$build/ssh_openssh.XXXXXX")
sshd_pid='' agent_pid=''
stop_sshd() {
  [ -n "$sshd_pid" ] || return 0
  local kids
  kids=$(ps -o pid= --ppid "$sshd_pid" 2>/dev/null | xargs || true)
  kill -TERM "$sshd_pid" 2>/dev/null || true
  for _ in $(seq $((wait_s * 10))); do
    kill -0 "$sshd_pid" 2>/dev/null || break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL "$sshd_pid" $kids 2>/dev/null || true
  wait "$sshd_pid" 2>/dev/null || true
  sshd_pid=
}
cleanup() {
  stop_sshd
  [ -z "$agent_pid" ] || kill "$agent_pid" 2>/dev/null || true
  if [ "${HWCIPHER_KEEP_WORK:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
start=$SECONDS

# Privilege separation chroots the pre-authentication child here.
mkdir -p /run/sshd && chmod 0755 /run/sshd
id sshd >/dev/null 2>&1 || fail "no 'sshd' user (privilege separation): is openssh-server installed?"

ssh-keygen -q -t ed25519 -N '' -C hwcipher-test-host -f "$work/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C hwcipher-test-user -f "$work/user_ed25519"
cp "$work/user_ed25519.pub" "$work/authorized_keys"
chmod 600 "$work/authorized_keys"
head -c $((4 * 1024 * 1024)) /dev/urandom >"$work/data.bin"

# The test's configuration: prefer-hwcipher.cnf, with OpenSSL's random
# generator kept on the default provider. Otherwise its AES-256-CTR and
# AES-256-ECB keys, and those of OpenSSH's in-memory shielding of private
# keys (aes256-ctr), would show in the traces beside the transport's, and
# for aes256-ctr the traces could not tell them apart.
sed 's/^\[openssl_init\]$/[openssl_init]\nrandom = random_sect/' \
    "$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf" >"$work/openssl.cnf"
printf '\n[random_sect]\nproperties = provider=default\n' >>"$work/openssl.cnf"
grep -q '^random = random_sect' "$work/openssl.cnf" || fail "cannot make the test's openssl.cnf"
export OPENSSL_CONF=$work/openssl.cnf OPENSSL_MODULES
unset HWCIPHER_CORES HWCIPHER_TRACE

# The user key lives in an agent that does not load hwcipher, so the client
# process never handles (and shields) the private key itself.
agent_env=$(env -u OPENSSL_CONF -u OPENSSL_MODULES ssh-agent -s -a "$work/agent.sock")
agent_pid=$(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' <<<"$agent_env")
[ -n "$agent_pid" ] || fail "ssh-agent did not start: $agent_env"
SSH_AUTH_SOCK=$work/agent.sock ssh-add -q "$work/user_ed25519" || fail "ssh-add failed"

write_config() { # <port>
  cat >"$work/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $1
HostKey $work/host_ed25519
PidFile $work/sshd.pid
AuthorizedKeysFile $work/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
PrintMotd no
# "User child is on pid N" and the sandbox's own lines
LogLevel DEBUG3
EOF
}

# Starts sshd, allowing only cipher $1, with its trace in $work/sshd-$1.trace.
# A random high port; if it is taken, sshd cannot bind and another is tried.
port=
start_sshd() { # <cipher>
  local c=$1 try _attempt
  for _attempt in 1 2 3 4 5; do
    try=${port:-$((20000 + RANDOM % 40000))}
    write_config "$try"
    : >"$work/sshd-$c.log"
    HWCIPHER_TRACE=$work/sshd-$c.trace "$sshd_bin" -D -f "$work/sshd_config" -E "$work/sshd-$c.log" \
        -o "Ciphers=$c" >"$work/sshd-$c.out" 2>&1 &
    sshd_pid=$!
    for _ in $(seq $((wait_s * 10))); do
      grep -q "Server listening on 127.0.0.1 port $try" "$work/sshd-$c.log" && { port=$try; return 0; }
      kill -0 "$sshd_pid" 2>/dev/null || break
      sleep 0.1
    done
    if grep -Eq 'Bind to port .* failed|Cannot bind any address' "$work/sshd-$c.log"; then
      stop_sshd; port=; continue
    fi
    cat "$work/sshd-$c.log" "$work/sshd-$c.out" >&2
    fail "sshd did not start within ${wait_s}s"
  done
  fail "no free port found for sshd"
}

ssh_to() { # <cipher> <remote command>: ssh to the test's sshd with only that cipher
  HWCIPHER_TRACE=$work/ssh-$1.trace SSH_AUTH_SOCK=$work/agent.sock timeout "$wait_s" \
    ssh -F none -p "$port" -o "Ciphers=$1" -o BatchMode=yes -o ConnectTimeout="$wait_s" \
        -o IdentitiesOnly=yes -i "$work/user_ed25519.pub" -o IdentityAgent="$work/agent.sock" \
        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o GlobalKnownHostsFile=/dev/null \
        -o LogLevel=ERROR root@127.0.0.1 "$2"
}

# hwcipher keyed `alg` to send and to receive: `file` (only pid's lines, if
# given) has an encrypt and a decrypt line for it, and no line for another
# algorithm except `also` (a regex; default none).
check_trace() { # <file> <side> <alg> [pid] [also]
  local file=$1 side=$2 alg=$3 pid=${4:-[0-9]+} also=${5:-} op lines other
  lines=$(grep -Es "^hwcipher-trace pid=$pid " "$file" || true)
  [ -n "$lines" ] || fail "$side: no hwcipher trace line${4:+ by pid $4} in $file (hwcipher not used)"
  for op in encrypt decrypt; do
    grep -Eq "^hwcipher-trace pid=$pid alg=$alg core=[a-z0-9-]+ op=$op\$" <<<"$lines" ||
      fail "$side: no '$alg $op' line${4:+ by pid $4}: $(sort <<<"$lines" | uniq -c | xargs)"
  done
  other=$(grep -Ev "^hwcipher-trace pid=$pid alg=(${also:+$also|}$alg) core=[a-z0-9-]+ op=(en|de)crypt\$" <<<"$lines" || true)
  [ -z "$other" ] || fail "$side: lines for another algorithm: $(sort <<<"$other" | uniq -c | xargs)"
}
count() { # <file> <pid> <alg> <op>: that pid's lines for alg and op
  grep -Ec "^hwcipher-trace pid=$2 alg=$3 core=[a-z0-9-]+ op=$4\$" "$1" || true
}

declare -A shield=()   # most AES-256-CTR lines per op of a connection without aes256-ctr
ciphers=$(ssh -Q cipher | grep '^aes' | xargs)
[ -n "$ciphers" ] || fail "ssh -Q cipher lists no AES cipher"
echo "OpenSSH $(ssh -V 2>&1); AES ciphers: $ciphers"
for c in $ciphers; do
  case $c in
    aes128-ctr) alg=AES-128-CTR ;; aes192-ctr) alg=AES-192-CTR ;; aes256-ctr) alg=AES-256-CTR ;;
    aes128-cbc) alg=AES-128-CBC ;; aes192-cbc) alg=AES-192-CBC ;; aes256-cbc) alg=AES-256-CBC ;;
    aes128-gcm@openssh.com) alg=AES-128-GCM ;; aes256-gcm@openssh.com) alg=AES-256-GCM ;;
    *) fail "ssh offers $c: map it to its OpenSSL name here" ;;
  esac
  t0=$SECONDS
  start_sshd "$c"
  ssh_to "$c" "cat > '$work/up-$c.bin'" <"$work/data.bin" 2>"$work/ssh-$c.err" ||
    { cat "$work/ssh-$c.err" "$work/sshd-$c.log" >&2; fail "$c: upload failed"; }
  ssh_to "$c" "cat '$work/up-$c.bin'" </dev/null >"$work/back-$c.bin" 2>>"$work/ssh-$c.err" ||
    { cat "$work/ssh-$c.err" "$work/sshd-$c.log" >&2; fail "$c: download failed"; }
  stop_sshd
  cmp -s "$work/data.bin" "$work/up-$c.bin" || fail "$c: the uploaded file differs"
  cmp -s "$work/data.bin" "$work/back-$c.bin" || fail "$c: the file that came back differs"

  log=$work/sshd-$c.log
  # Privilege separation is always on in OpenSSH 9 (UsePrivilegeSeparation
  # is gone); its sandbox says so at DEBUG3, and says when it failed.
  grep -q 'ssh_sandbox_child: attaching seccomp filter program' "$log" ||
    fail "$c: sshd's log does not show its seccomp sandbox"
  if grep -E 'ssh_sandbox_child: prctl\(PR_SET_(SECCOMP|NO_NEW_PRIVS)\)' "$log" >&2; then
    fail "$c: sshd's seccomp sandbox did not attach (above)"
  fi
  grep -q "kex: client->server cipher: $c " "$log" || fail "$c: sshd's log does not show $c negotiated"
  # The client: its transport only (the agent holds the key).
  check_trace "$work/ssh-$c.trace" "ssh ($c)" "$alg"
  # The server: each connection's sshd ("Forked child N", the re-executed
  # sshd). Its sandboxed pre-authentication child's lines are lost to its
  # file-size limit of 0; for a root login the connection's process itself
  # takes over the transport after authentication and keys the cipher
  # again. It also shields the host key in memory with aes256-ctr
  # (AES-256-CTR lines whatever the cipher).
  children=$(sed -n 's/.*Forked child \([0-9]*\)\..*/\1/p' "$log" | xargs)
  [ "$(wc -w <<<"$children")" = 2 ] || fail "$c: expected 2 connections in sshd's log, got '$children'"
  for p in $children; do
    check_trace "$work/sshd-$c.trace" "sshd ($c)" "$alg" "$p" AES-256-CTR
    if [ "$alg" != AES-256-CTR ]; then
      # The shielding's own AES-256-CTR lines: for aes256-ctr the transport
      # must add to them.
      for op in encrypt decrypt; do
        n=$(count "$work/sshd-$c.trace" "$p" AES-256-CTR "$op")
        (( n > ${shield[$op]:-0} )) && shield[$op]=$n
      done
    else
      [ -n "${shield[encrypt]:-}" ] || fail "aes256-ctr tested before any other cipher: no shielding baseline"
      for op in encrypt decrypt; do
        n=$(count "$work/sshd-$c.trace" "$p" AES-256-CTR "$op")
        (( n > ${shield[$op]} )) ||
          fail "$c: sshd pid $p: $n AES-256-CTR $op lines, no more than the key shielding's ${shield[$op]}"
      done
    fi
  done
  echo "ok: $c: 4 MiB up and back identical; $alg keyed by hwcipher each way in ssh" \
       "($(grep -c . "$work/ssh-$c.trace") lines) and in sshd's connections $children; $((SECONDS - t0)) s"
done
echo "PASS: ssh_openssh ($((SECONDS - start)) s)"
