#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-lab.sh start ROOT [WORKERS] | stop ROOT | status ROOT: a LAVA lab on
# this machine, from Debian 12's packages (lava-server and lava-dispatcher
# 2023.01, PostgreSQL 15, QEMU 7.2), in a root under ROOT that mmdebstrap
# makes once (ROOT/root), so that nothing of the machine changes.
#
# start: PostgreSQL (its own cluster "lab", 127.0.0.1:LAB_PG_PORT), the
# server (gunicorn on 127.0.0.1:LAB_PORT, its REST API under /api/v0.2/),
# lava-publisher (events: ws 127.0.0.1:LAB_PORT+1, zmq LAB_PORT+2),
# lava-scheduler, and WORKERS lava-worker processes (default 1), each
# lab-worker-N with one device lab-qemu-N of LAVA's qemu device type,
# whose dictionary is the one python3 -m harness lava writes
# (LAB_DEVICE_DICT= a file to use instead).  Everything is made through
# the server's own commands (lava-server manage ...), once: the database,
# the superuser xen-timer and its API token (ROOT/token, mode 600; never
# printed), the device type, the workers and devices.  Then the harness
# talks to http://127.0.0.1:LAB_PORT with that token (ROOT/env).
#
# Each process runs in the root (chroot), in a mount namespace of its own
# with /proc, /dev and /sys mounted (gone with it), its output in
# ROOT/logs/NAME.log, the server's own logs in ROOT/root/var/log/.
# The jobs' QEMU is the root's (the dispatcher runs qemu-system-x86_64
# from the root's PATH).  stop: every process it started, by the pids in
# ROOT/pids/, then whatever is still running inside ROOT/root (lava-run
# and QEMU, which lava-worker starts in process groups of their own).
#
# Exit 0 when the lab is up (or stopped), 1 on a failure (one line
# naming the step and its log), 2 on bad arguments.  Root only.
#
# Each command and option below is the packages' own (lava-server
# 2023.01's management commands, postinst.py, lava-worker's options);
# make lava-lab-check runs the whole of it.
set -euo pipefail

usage() { echo "usage: lava-lab.sh start ROOT [WORKERS] | stop ROOT | status ROOT" >&2; exit 2; }
fail() { echo "lava-lab: $*" >&2; exit 1; }
[ $# -ge 2 ] || usage
cmd=$1 top=$2
workers=${3:-1}
case $cmd in start | stop | status) ;; *) usage ;; esac
case $workers in [1-9] | [1-9][0-9]) ;; *) usage ;; esac
[ "$(id -u)" = 0 ] || fail "a lab's root needs root (mmdebstrap, chroot, mounts); run: sudo $0 $*"

port=${LAB_PORT:-8090}
ws_port=$((port + 1)) ev_port=$((port + 2))
pg_port=${LAB_PG_PORT:-55432}
url=http://127.0.0.1:$port
# What the root holds: the server, the dispatcher and what its qemu
# device type runs (QEMU, its firmware and option ROMs come with it).
pkgs="lava-server lava-dispatcher postgresql qemu-system-x86 python3-yaml"
want="bookworm: $pkgs"

mkdir -p "$top"
top=$(cd "$top" && pwd -P)
chroot_dir=$top/root
pids=$top/pids
logs=$top/logs
token_file=$top/token
mkdir -p "$pids" "$logs"
step=''
trap '[ -z "$step" ] || echo "lava-lab: $step failed (line $LINENO); see $logs/ and $chroot_dir/var/log/" >&2' ERR

# in_root_exec PIDFILE USER CMD...: this shell process becomes CMD, run
# in the root as USER (root, or a user of the root, its groups too) with
# a clean environment, in a private mount namespace holding the root's
# /proc, /dev (ptys for the dispatcher's pexpect, /dev/shm for
# PostgreSQL, /dev/kvm when a job asks for KVM) and /sys.  PIDFILE (or -)
# gets the pid CMD keeps: setsid, unshare, sh, chroot, setpriv and env
# all exec.
in_root_exec() {
	# shellcheck disable=SC2016
	exec setsid --wait unshare --mount --propagation private -- /bin/sh -c '
		r=$1 pidf=$2 u=$3
		shift 3
		[ "$pidf" = - ] || echo $$ >"$pidf"
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" ||
			{ echo "lava-lab: cannot mount /proc, /dev and /sys in $r" >&2; exit 125; }
		env="env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=/"
		if [ "$u" = root ]; then
			exec chroot "$r" $env "$@"
		fi
		exec chroot "$r" setpriv --reuid="$u" --regid="$u" --init-groups -- $env "$@"
	' sh "$chroot_dir" "$@"
}

# in_root USER CMD...: CMD in the root, waited for.
in_root() { (in_root_exec - "$@"); }

# daemon NAME USER CMD...: CMD started in the root, its pid in
# ROOT/pids/NAME.pid, its output in ROOT/logs/NAME.log.
daemon() {
	local name=$1
	shift
	rm -f "$pids/$name.pid"
	in_root_exec "$pids/$name.pid" "$@" </dev/null >>"$logs/$name.log" 2>&1 &
	local k
	for k in $(seq 100); do
		alive "$name" && return 0
		sleep 0.1
	done
	fail "$name did not start: $(last_line "$logs/$name.log")"
}

# in_lab PID: PID runs inside the lab's root.
in_lab() { [ "$(readlink "/proc/$1/root" 2>/dev/null)" = "$chroot_dir" ]; }
alive() { [ -s "$pids/$1.pid" ] && in_lab "$(cat "$pids/$1.pid")"; }

# last_line FILE: a log's last line, for the one line a failure says.
last_line() { tail -n 1 "$1" 2>/dev/null | cut -c1-200; }

# api PATH FIELD: FIELD of the JSON the server answers to GET PATH with
# the lab's token ('' when it does not answer); the token is read from
# its file, never on a command line or in a log.
api() {
	python3 - "$url$1" "$2" "$token_file" <<'PY' 2>/dev/null || true
import json, sys, urllib.request
url, field, token_file = sys.argv[1:]
headers = {}
try:
    with open(token_file) as f:
        headers['Authorization'] = 'Token ' + f.read().strip()
except OSError:
    pass
with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
    print(json.load(r).get(field, ''))
PY
}

# wait_for WHAT SECONDS DAEMON CMD...: CMD until it succeeds, failing
# with the daemon's last log line if it dies or time runs out.
wait_for() {
	local what=$1 secs=$2 name=$3 k
	shift 3
	for k in $(seq "$secs"); do
		"$@" && return 0
		alive "$name" || fail "$name died while waiting for $what: $(last_line "$logs/$name.log")"
		sleep 1
	done
	fail "no $what after $secs s: $(last_line "$logs/$name.log")"
}

# manage ARGS...: lava-server manage ARGS as the server's user, its
# stdout printed (the tokens the commands print), its stderr logged.
manage() { in_root lavaserver lava-server manage "$@" 2>>"$logs/manage.log"; }

stop_lab() {
	local name pid k
	# The workers first (no job starts any more), the server, then the
	# database; PostgreSQL's fast shutdown is SIGINT.
	for name in $(find "$pids" -maxdepth 1 -name '*.pid' -printf '%f\n' | sed 's/\.pid$//' |
		awk '/^worker-/ {print 1, $0; next} /^scheduler$/ {print 2, $0; next}
		     /^postgres$/ {print 5, $0; next} {print 3, $0}' | sort -n | cut -d' ' -f2); do
		pid=$(cat "$pids/$name.pid")
		# Only a process of the root: a stale pid file's pid may be anyone's.
		if in_lab "$pid"; then
			kill "-$([ "$name" = postgres ] && echo INT || echo TERM)" "$pid" 2>/dev/null || true
			for k in $(seq 30); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 1
			done
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f "$pids/$name.pid"
	done
	# What those left running inside the root: lava-run and QEMU.
	local left=''
	for k in 1 2; do
		left=''
		for p in /proc/[0-9]*; do
			in_lab "${p#/proc/}" && left="$left ${p#/proc/}"
		done
		[ -n "$left" ] || break
		# shellcheck disable=SC2086
		kill "-$([ $k = 1 ] && echo TERM || echo KILL)" $left 2>/dev/null || true
		sleep 3
	done
}

case $cmd in
stop)
	stop_lab
	echo "lava-lab: stopped the lab in $top"
	exit 0
	;;
status)
	for f in "$pids"/*.pid; do
		[ -e "$f" ] || { echo "lava-lab: no lab running in $top"; exit 0; }
		name=$(basename "$f" .pid)
		echo "$name: $(alive "$name" && echo "running, pid $(cat "$f")" || echo dead)"
	done
	echo "server: $url ($(api /api/v0.2/system/version/ version || true))"
	exit 0
	;;
esac

if alive gunicorn || alive postgres; then
	fail "a lab is already running in $top: lava-lab.sh stop $top first"
fi
t_start=$(date +%s)

# The root, once: made again in ROOT/root.tmp and moved into place when
# its marker does not name the same packages.
done_file=$chroot_dir/.xt-lab-root-done
if ! [ -f "$done_file" ] || [ "$(cat "$done_file")" != "$want" ]; then
	step='making the root (mmdebstrap)'
	command -v mmdebstrap >/dev/null || {
		echo "lava-lab: installing mmdebstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
	}
	# The archive this machine's bookworm comes from (as platform-root.sh),
	# and its security suite, so that QEMU is the machine's own build.
	sources=$( (cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true))
	uri=$(echo "$sources" | awk '/^URIs:/ {u = $2} /^Suites:/ && / bookworm( |$)/ {print u; exit}')
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	[ -n "$uri" ] || uri=http://deb.debian.org/debian
	sec=$(echo "$sources" | awk '/^URIs:/ {u = $2} /^Suites:/ && /bookworm-security/ {print u; exit}')
	[ -n "$sec" ] || sec=$(awk '$1 == "deb" && $3 == "bookworm-security" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	mirrors=("deb $uri bookworm main" "deb $uri bookworm-updates main")
	[ -z "$sec" ] || mirrors+=("deb $sec bookworm-security main")
	tmp=$chroot_dir.tmp
	rm -rf "$tmp"
	echo "lava-lab: [1/4] a Debian 12 root with $pkgs into $tmp (from $uri)"
	t0=$(date +%s)
	# No Recommends (mmdebstrap's default): no apache2, lava-coordinator.
	# lava-dispatcher-host brings python3-bpfcc, bpftool and
	# linux-headers-amd64 (and so gcc): its Depends, used by docker jobs only.
	if ! mmdebstrap --variant=apt --mode=root --include="$(echo "$pkgs" | tr ' ' ,)" \
		bookworm "$tmp" "${mirrors[@]}" >"$logs/mmdebstrap.log" 2>&1; then
		msg=$(grep '^E:' "$logs/mmdebstrap.log" | tail -n 1 || true)
		fail "mmdebstrap failed: ${msg:-$(last_line "$logs/mmdebstrap.log")}"
	fi
	for f in usr/bin/lava-server usr/bin/lava-worker usr/bin/lava-run usr/bin/gunicorn3 \
		usr/bin/qemu-system-x86_64 usr/bin/pg_createcluster usr/bin/setpriv \
		usr/share/lava-server/device-types/qemu.jinja2 usr/share/lava-server/postinst.py; do
		[ -e "$tmp/$f" ] || fail "$f missing from the root made in $tmp"
	done
	echo "$want" >"$tmp/.xt-lab-root-done"
	rm -rf "$chroot_dir"
	mv "$tmp" "$chroot_dir"
	# A new root: its database, users and devices are made again.
	rm -f "$top"/.lab-* "$token_file"
	echo "lava-lab: root made in $(($(date +%s) - t0)) s ($(du -sh "$chroot_dir" | cut -f1))"
fi

# PostgreSQL: a cluster of its own ("lab"), started by hand in the
# foreground (no systemd in the root), on 127.0.0.1 only, without SSL
# (Debian turns SSL on with the snakeoil key of the ssl-cert group).
step='starting PostgreSQL'
echo "lava-lab: [2/4] PostgreSQL on 127.0.0.1:$pg_port"
t0=$(date +%s)
pg_ver=$(find "$chroot_dir/usr/lib/postgresql" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -n | tail -n 1)
[ -n "$pg_ver" ] || fail "no PostgreSQL in $chroot_dir/usr/lib/postgresql"
if ! [ -d "$chroot_dir/etc/postgresql/$pg_ver/lab" ]; then
	in_root root pg_createcluster --start-conf=manual --port="$pg_port" "$pg_ver" lab >>"$logs/postgres.log" 2>&1 ||
		fail "pg_createcluster failed: $(last_line "$logs/postgres.log")"
fi
mkdir -p "$chroot_dir/etc/postgresql/$pg_ver/lab/conf.d"
cat >"$chroot_dir/etc/postgresql/$pg_ver/lab/conf.d/xt-lab.conf" <<EOF
# lava-lab.sh: the lab's cluster, on the loopback only.
port = $pg_port
listen_addresses = '127.0.0.1'
ssl = off
EOF
in_root root install -d -o postgres -g postgres -m 2775 /run/postgresql
# -D the configuration directory, as pg_ctlcluster gives it (its
# postgresql.conf names the data directory).
daemon postgres postgres "/usr/lib/postgresql/$pg_ver/bin/postgres" -D "/etc/postgresql/$pg_ver/lab"
wait_for "PostgreSQL on port $pg_port" 60 postgres in_root postgres pg_isready -q -h 127.0.0.1 -p "$pg_port"

# The server's database settings (prod.py reads settings.d/*.yaml): the
# password once, the port every start.
settings=$chroot_dir/etc/lava-server/settings.d
[ -s "$top/.lab-db-password" ] || (umask 077 && head -c 24 /dev/urandom | base64 | tr -d '/+=\n' >"$top/.lab-db-password")
(umask 027 && cat >"$settings/00-database.yaml" <<EOF
# lava-lab.sh: the lab's cluster (postinst.py writes this file for 5432).
DATABASES:
  default:
    ENGINE: "django.db.backends.postgresql"
    NAME: "lavaserver"
    USER: "lavaserver"
    PASSWORD: "$(cat "$top/.lab-db-password")"
    HOST: "127.0.0.1"
    PORT: $pg_port
EOF
)
cat >"$settings/01-xt-lab.yaml" <<EOF
# lava-lab.sh: events on the loopback, on the lab's ports.
EVENT_NOTIFICATION: true
EVENT_SOCKET: "tcp://127.0.0.1:$ev_port"
INTERNAL_EVENT_SOCKET: "ipc:///tmp/lava.events"
EOF
in_root root chown lavaserver:lavaserver /etc/lava-server/settings.d/00-database.yaml \
	/etc/lava-server/settings.d/01-xt-lab.yaml

# The database, once: the package's own postinst.py (it skipped this at
# install, PostgreSQL not running): the role and database, migrate.
if ! [ -f "$top/.lab-db" ]; then
	step='making the database (postinst.py, migrate)'
	in_root root PGPORT="$pg_port" python3 /usr/share/lava-server/postinst.py --config --db --fixup \
		>>"$logs/postinst.log" 2>&1 || fail "postinst.py failed: $(last_line "$logs/postinst.log")"
	touch "$top/.lab-db"
fi

# The superuser the harness submits as and its API token, once.
if ! [ -s "$token_file" ]; then
	step='making the superuser and its token'
	# Its password (users add prints a random one): for the web pages.
	if ! manage users details xen-timer >/dev/null; then
		manage users add --superuser --staff xen-timer | tail -n 1 |
			(umask 077 && cat >"$top/.lab-admin-password")
	fi
	tok=$(manage tokens add --user xen-timer --description 'lava-lab.sh' | tail -n 1)
	[ -n "$tok" ] || fail "lava-server manage tokens add printed no token"
	(umask 077 && printf '%s\n' "$tok" >"$token_file")
	unset tok
fi
chmod 600 "$token_file"

step='adding the device type, workers and devices'
manage device-types details qemu >/dev/null || manage device-types add qemu >/dev/null
dict_src=${LAB_DEVICE_DICT:-}
for i in $(seq "$workers"); do
	name=lab-worker-$i dev=lab-qemu-$i wdir=/var/lib/lava/dispatcher/lab-worker-$i
	mkdir -p "$chroot_dir$wdir"
	# The worker's token: the one workers add printed, or its details.
	wtok=$(manage workers details "$name" | sed -n 's/^token *: //p' || true)
	[ -n "$wtok" ] || wtok=$(manage workers add --description "lava-lab.sh worker $i" "$name" |
		sed -n 's/^Token: //p')
	[ -n "$wtok" ] || fail "no token for worker $name (see $logs/manage.log)"
	(umask 077 && printf '%s\n' "$wtok" >"$chroot_dir$wdir/token")
	unset wtok
	# The device dictionary: harness/lava.py's DEVICE_DICT (the job's
	# context gives arch, no_kvm, memory, extra_options).
	dict=$chroot_dir/etc/lava-server/dispatcher-config/devices/$dev.jinja2
	if [ -n "$dict_src" ]; then
		cp "$dict_src" "$dict"
	else
		printf '%s\n' "{% extends 'qemu.jinja2' %}" "{% set arch = 'amd64' %}" >"$dict"
	fi
	in_root root chown lavaserver:lavaserver "/etc/lava-server/dispatcher-config/devices/$dev.jinja2"
	manage devices details "$dev" >/dev/null ||
		manage devices add --device-type qemu --worker "$name" "$dev" >/dev/null
done
echo "lava-lab: database, superuser, device type qemu and $workers devices ready in $(($(date +%s) - t0)) s"

# The server: gunicorn (the REST API, and the workers' internal API),
# lava-publisher (events, which wake the scheduler and the workers) and
# lava-scheduler (it assigns jobs to idle devices of online workers).
step='starting the server'
echo "lava-lab: [3/4] lava-server on $url"
t0=$(date +%s)
mkdir -p "$chroot_dir/var/log/lava-dispatcher"
# eventlet: lava-server-gunicorn.service's worker class (log downloads).
daemon gunicorn root gunicorn3 lava_server.wsgi --bind "127.0.0.1:$port" --workers 2 \
	--worker-class "${LAB_GUNICORN_WORKER_CLASS:-eventlet}" --timeout 120 -u lavaserver -g lavaserver \
	--log-level info --log-file /var/log/lava-server/gunicorn.log
server_up() { [ -n "$(api /api/v0.2/system/version/ version)" ]; }
wait_for "answer from $url" 120 gunicorn server_up
daemon publisher root lava-server manage lava-publisher --level INFO \
	--log-file /var/log/lava-server/lava-publisher.log --host 127.0.0.1 --port "$ws_port"
daemon scheduler root lava-server manage lava-scheduler --level INFO \
	--log-file /var/log/lava-server/lava-scheduler.log --event-url "tcp://127.0.0.1:$ev_port"
echo "lava-lab: server up in $(($(date +%s) - t0)) s ($(api /api/v0.2/system/version/ version))"

step='starting the workers'
echo "lava-lab: [4/4] $workers lava-worker"
t0=$(date +%s)
for i in $(seq "$workers"); do
	wdir=/var/lib/lava/dispatcher/lab-worker-$i
	daemon "worker-$i" root lava-worker --name "lab-worker-$i" --url "$url" \
		--ws-url "http://127.0.0.1:$ws_port/ws/" --worker-dir "$wdir" --token-file "$wdir/token" \
		--log-file "/var/log/lava-dispatcher/lab-worker-$i.log" --level INFO --ping-interval 10
done
for i in $(seq "$workers"); do
	online() { [ "$(api "/api/v0.2/workers/lab-worker-$1/" state)" = Online ]; }
	wait_for "lab-worker-$i online" 90 "worker-$i" online "$i"
	good() { [ "$(api "/api/v0.2/devices/lab-qemu-$1/" health)" = Good ]; }
	wait_for "device lab-qemu-$i Good" 30 "worker-$i" good "$i"
done
step=''
cat >"$top/env" <<EOF
# lava-lab.sh: how the harness reaches this lab (the token stays in its file).
LAVA_URL=$url
LAVA_TOKEN_FILE=$token_file
EOF
echo "lava-lab: $workers workers online in $(($(date +%s) - t0)) s"
echo "lava-lab: LAVA $(api /api/v0.2/system/version/ version) at $url, devices" \
	"$(seq -s ' ' -f 'lab-qemu-%g' "$workers") (type qemu), up in $(($(date +%s) - t_start)) s;" \
	"token in $token_file; settings in $top/env; stop: $0 stop $top"
