#!/usr/bin/env bash
# Proves the sandboxd image without a container engine (none can run on the CI machines).
#
# It builds the root filesystem image/Dockerfile describes, from the same package list and build
# steps (image/rootfs.env + image/build-rootfs.sh, run inside the filesystem as the Dockerfile's
# RUN lines do), on a debootstrapped Debian instead of the debian:*-slim base image. Then it runs
# it the way a container runtime would: new PID, mount and network namespaces, chroot, uid 1000,
# tini as PID 1, the image's entrypoint, environment and default flags (ports 8080/9090 inside the
# private network namespace), with a read-only root and writable /workspace and /tmp as the
# examples' pods have it, and checks that:
#   - /v1/health answers, and the daemon's startup time and idle RSS (reported);
#   - the conformance suite, run from the image's own copy, passes against it (--level all);
#   - an orphaned grandchild started through the daemon's gRPC API is reaped by tini.
#
# Needs root. Installs debootstrap and iproute2 when missing. The packaged base is cached in
# $SANDBOXD_IMAGE_CACHE (default /var/cache/sandboxd-image), keyed by a hash of the package list
# and build steps, so only the first run (or a changed package list) pays for debootstrap + apt.
#
#   bash image/smoke.sh            # needs daemon/target/sandboxd.jar and the conformance jar;
#                                  # builds them with the Maven wrapper when missing
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
img=$repo/image
# shellcheck source=rootfs.env
. "$img/rootfs.env"
cache=${SANDBOXD_IMAGE_CACHE:-/var/cache/sandboxd-image}
work=${SANDBOXD_SMOKE_WORK:-/var/tmp/sandboxd-smoke}
mirror=${SANDBOXD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$work/rootfs
report=$work/report
libdir=/usr/local/lib/sandboxd-image            # where the Dockerfile puts the build files
ctr_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
t_start=$(date +%s)

log() { printf 'smoke: %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }
ms_now() { echo $(($(date +%s%N) / 1000000)); }

[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot, namespaces)"
mkdir -p "$work"

ctr_pid=""
unshare_pid=""
jdeps_pid=""
cleanup() {
    local rc=$?
    if [[ -n $jdeps_pid ]] && kill -0 "$jdeps_pid" 2>/dev/null; then kill "$jdeps_pid" 2>/dev/null; fi
    if [[ -n $unshare_pid ]] && kill -0 "$unshare_pid" 2>/dev/null; then
        # Killing the namespace's PID 1 kills everything in it; its mounts go with it.
        [[ -n $ctr_pid ]] && kill -KILL "$ctr_pid" 2>/dev/null
        kill -KILL "$unshare_pid" 2>/dev/null
        wait "$unshare_pid" 2>/dev/null
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 0. The Dockerfile must describe what this script builds and runs ------------------------
check_dockerfile() {
    local df=$work/Dockerfile.joined
    # One instruction per line: join backslash continuations.
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$img/Dockerfile" >"$df"
    grep -q "^FROM debian:${SANDBOXD_DEBIAN_SUITE}-slim\b" "$df" || die "Dockerfile: runtime base is not debian:${SANDBOXD_DEBIAN_SUITE}-slim"
    grep -q '^RUN .*build-rootfs.sh packages' "$df" || die "Dockerfile: does not run build-rootfs.sh packages"
    grep -q '^RUN .*build-rootfs.sh install ' "$df" || die "Dockerfile: does not run build-rootfs.sh install"
    grep -q '^RUN .*build-rootfs.sh archive' "$df" || die "Dockerfile: does not run build-rootfs.sh archive"
    grep -q '^ENTRYPOINT \["/usr/bin/tini", "--", "/usr/local/bin/sandboxd"\]' "$df" || die "Dockerfile: ENTRYPOINT is not tini -- sandboxd"
    grep -q "^USER ${SANDBOXD_UID}\$" "$df" || die "Dockerfile: USER is not ${SANDBOXD_UID}"
    grep -q "^WORKDIR ${SANDBOXD_WORKSPACE}\$" "$df" || die "Dockerfile: WORKDIR is not ${SANDBOXD_WORKSPACE}"
    grep -q '^EXPOSE 8080 9090$' "$df" || die "Dockerfile: EXPOSE is not 8080 9090"
    grep -q '^HEALTHCHECK .*/v1/health' "$df" || die "Dockerfile: no HEALTHCHECK on /v1/health"
}
check_dockerfile
# The image's environment: Docker's default PATH plus the Dockerfile's ENV lines.
ctr_env=(PATH="$ctr_path")
while read -r kv; do ctr_env+=("$kv"); done < <(sed -n 's/^ENV \([A-Za-z_][A-Za-z0-9_]*=[^ ]*\)$/\1/p' "$work/Dockerfile.joined")
! grep '^ENV ' "$work/Dockerfile.joined" | grep -qv '^ENV [A-Za-z_][A-Za-z0-9_]*=[^ ]*$' ||
    die "Dockerfile: write ENV as one KEY=value per line (smoke.sh reads them)"

# --- 1. Host tools ---------------------------------------------------------------------------
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v ip >/dev/null || need+=(iproute2)
command -v nsenter >/dev/null || need+=(util-linux)
if ((${#need[@]})); then
    log "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; }
fi

# --- 2. The jars the Dockerfile's build stage makes -------------------------------------------
daemon_jar=$repo/daemon/target/sandboxd.jar
conformance_jar=$repo/conformance/target/sandboxd-conformance.jar
if [[ ! -f $daemon_jar || ! -f $conformance_jar ]]; then
    log "building the jars (as the Dockerfile's build stage does)"
    (cd "$repo" && ./mvnw -B -q -DskipTests -pl daemon,conformance -am package)
fi
[[ -f $daemon_jar ]] || die "$daemon_jar missing"
[[ -f $conformance_jar ]] || die "$conformance_jar missing"

# The jlink'ed runtime holds SANDBOXD_JAVA_MODULES; every module jdeps finds referenced in the jars
# must be there or be deliberately omitted. Runs in the background (it takes ~30 s).
jdeps_bin=${JAVA_HOME:+$JAVA_HOME/bin/}jdeps
command -v "$jdeps_bin" >/dev/null || die "jdeps not found (needs a JDK)"
"$jdeps_bin" --print-module-deps --ignore-missing-deps --multi-release 17 "$daemon_jar" "$conformance_jar" \
    >"$work/jdeps.out" 2>"$work/jdeps.err" &
jdeps_pid=$!
check_modules() {
    local jrc=0
    wait "$jdeps_pid" || jrc=$?
    jdeps_pid=""
    ((jrc == 0)) || { cat "$work/jdeps.err" >&2; die "jdeps failed"; }
    local m missing=()
    for m in $(tail -1 "$work/jdeps.out" | tr ',' ' '); do
        [[ ,$SANDBOXD_JAVA_MODULES, == *,$m,* || " $SANDBOXD_JAVA_MODULES_OMITTED " == *" $m "* ]] || missing+=("$m")
    done
    ((${#missing[@]} == 0)) || die "the jars use Java modules the image's runtime lacks: ${missing[*]} (add them to SANDBOXD_JAVA_MODULES in image/rootfs.env)"
    log "jdeps: the runtime's modules cover the jars ($(tail -1 "$work/jdeps.out"))"
}

# --- 3. Run a command inside the root filesystem, as a container runtime would ----------------
# A private mount namespace holds every mount, so nothing is left mounted on the host whatever
# happens; a private PID namespace gets its own /proc; /dev is a tmpfs with the usual nodes bound
# from the host plus a private devpts instance (PTYs). With --net the command gets its own
# network namespace with only loopback (as under `docker run`, ports are private, so 8080/9090
# never clash with the host).
in_root_script=$(cat <<'EOS'
set -euo pipefail
r=$1; shift
if [[ ${SMOKE_READONLY:-} == 1 ]]; then
    # As the examples' pods run it: read-only root, writable /workspace volume and /tmp.
    mount --bind "$r" "$r"
    mount --bind "$r/workspace" "$r/workspace"
    mount -o remount,bind,ro "$r"
    mount -t tmpfs -o nosuid,nodev,mode=1777,size=256m tmp "$r/tmp"
fi
mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
mount -t tmpfs -o nosuid,mode=0755,size=64k dev "$r/dev"
for n in null zero full random urandom tty; do
    touch "$r/dev/$n"; mount --bind "/dev/$n" "$r/dev/$n"
done
mkdir -p "$r/dev/pts" "$r/dev/shm"
mount -t devpts -o newinstance,nosuid,noexec,ptmxmode=0666,mode=0620,gid=5 devpts "$r/dev/pts"
ln -s pts/ptmx "$r/dev/ptmx"
mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$r/dev/shm"
ln -s /proc/self/fd "$r/dev/fd"
ln -s /proc/self/fd/0 "$r/dev/stdin"; ln -s /proc/self/fd/1 "$r/dev/stdout"; ln -s /proc/self/fd/2 "$r/dev/stderr"
if [[ ${SMOKE_NET:-} == 1 ]]; then ip link set lo up; fi
exec chroot "$@"
EOS
)
in_root() { # [--net] CHROOT_ARGS...  (as for chroot(8): [--userspec=U:G] DIR COMMAND...)
    local unshare=(unshare --mount --propagation private --pid --fork) net=0
    if [[ $1 == --net ]]; then unshare+=(--net); net=1; shift; fi
    SMOKE_NET=$net "${unshare[@]}" -- bash -c "$in_root_script" in-root "$root" "$@"
}
start_in_root() { # like `in_root --net ... &`, but $! is unshare itself, not a subshell
    SMOKE_NET=1 SMOKE_READONLY=1 exec unshare --mount --propagation private --pid --fork --net -- \
        bash -c "$in_root_script" in-root "$root" "$@"
}
as_root_in() { # like in_root, as root with a clean environment
    local net=()
    if [[ $1 == --net ]]; then net=(--net); shift; fi
    in_root "${net[@]}" "$root" /usr/bin/env -i PATH="$ctr_path" HOME=/root "$@"
}

# --- 4. The base: debootstrap + what debian:*-slim adds + `build-rootfs.sh packages` (cached) --
key=$( (cat "$img/rootfs.env" "$img/build-rootfs.sh"; echo "$mirror"; sed -n '/^build_base()/,/^}/p' "$0") | sha256sum | cut -c1-16)
base_tar=$cache/rootfs-$SANDBOXD_DEBIAN_SUITE-$key.tar
build_base() {
    local b=$work/base
    rm -rf "$b"; mkdir -p "$b" "$cache/debs"
    log "debootstrap $SANDBOXD_DEBIAN_SUITE (minbase) from $mirror"
    debootstrap --variant=minbase --cache-dir="$cache/debs" "$SANDBOXD_DEBIAN_SUITE" "$b" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || { tail -30 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
    # What the official debian:*-slim build does on top of minbase: the same apt sources
    # (with updates and security), and no docs, man pages or translations.
    rm -f "$b/etc/apt/sources.list"
    cat > "$b/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $SANDBOXD_DEBIAN_SUITE $SANDBOXD_DEBIAN_SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: $SANDBOXD_DEBIAN_SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    find "$b/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
    find "$b/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
    rm -rf "$b/usr/share/man"/* "$b/usr/share/info"/* "$b/usr/share/lintian"
    find "$b/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null || true
    rm -rf "$b/var/cache/apt/archives"/*.deb "$b/var/lib/apt/lists"/*
    cp /etc/resolv.conf "$b/etc/resolv.conf"
    # The Dockerfile's `RUN build-rootfs.sh packages`, in the same place, with the same files.
    mkdir -p "$b$libdir"
    install -m 0644 "$img/rootfs.env" "$b$libdir/"
    install -m 0755 "$img/build-rootfs.sh" "$b$libdir/"
    log "build-rootfs.sh packages: $SANDBOXD_PACKAGES"
    local saved=$root; root=$b
    as_root_in "$libdir/build-rootfs.sh" packages
    root=$saved
    : > "$b/etc/resolv.conf"
    rm -rf "$b$libdir"
    mkdir -p "$cache"
    tar -C "$b" --numeric-owner -cf "$base_tar.tmp" . && mv "$base_tar.tmp" "$base_tar"
    rm -rf "$b"
    # Older bases (another package list) only waste space.
    find "$cache" -maxdepth 1 -name "rootfs-*.tar" -not -name "$(basename "$base_tar")" -delete
}
t0=$(date +%s)
if [[ -f $base_tar ]]; then
    log "base: cached $base_tar"
    base_cached=yes
else
    build_base
    base_cached=no
fi
t_base=$(($(date +%s) - t0))

# --- 5. The image's own layers: install + archive, as the Dockerfile's RUN lines ----------------
rm -rf "$root" "$report"; mkdir -p "$root" "$report"
tar -C "$root" --numeric-owner -xf "$base_tar"
mkdir -p "$root$libdir" "$root/tmp/sandboxd-jars"
install -m 0644 "$img/rootfs.env" "$root$libdir/"
install -m 0755 "$img/build-rootfs.sh" "$img/sandboxd" "$img/sandboxd-conformance" "$root$libdir/"
install -m 0644 "$daemon_jar" "$conformance_jar" "$root/tmp/sandboxd-jars/"
as_root_in "$libdir/build-rootfs.sh" install /tmp/sandboxd-jars
rm -rf "$root/tmp/sandboxd-jars"
t0=$(date +%s)
as_root_in --net "$libdir/build-rootfs.sh" archive
t_archive=$(($(date +%s) - t0))
check_modules
rootfs_mib=$(du -sxm "$root" | cut -f1)
log "root filesystem: ${rootfs_mib} MiB (runtime $(du -sm "$root$SANDBOXD_JRE" | cut -f1) MiB, jars $(du -cm "$root$SANDBOXD_PREFIX"/*.jar | tail -1 | cut -f1) MiB, CDS archive $(du -m "$root$SANDBOXD_PREFIX/sandboxd.jsa" | cut -f1) MiB)"

# --- 6. Start the "container": tini as PID 1 running the entrypoint as uid 1000 ----------------

t_launch=$(ms_now)
# The image's ENTRYPOINT/USER/WORKDIR/env: what `docker run --rm sandboxd` executes.
start_in_root --userspec="$SANDBOXD_UID:$SANDBOXD_GID" "$root" \
    /usr/bin/env -i -C "$SANDBOXD_WORKSPACE" "${ctr_env[@]}" HOSTNAME=sandboxd \
    /usr/bin/tini -- /usr/local/bin/sandboxd >"$report/daemon.log" 2>&1 &
unshare_pid=$!
for _ in $(seq 200); do
    ctr_pid=$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null | awk '{print $1}')
    [[ -n $ctr_pid && $(cat "/proc/$ctr_pid/comm" 2>/dev/null) == tini ]] && break
    ctr_pid=""
    sleep 0.05
done
[[ -n $ctr_pid ]] || die "tini did not start as the namespace's PID 1"
ns_pid1=$(awk '/^NSpid:/{print $NF}' "/proc/$ctr_pid/status")
[[ $ns_pid1 == 1 ]] || die "tini is PID $ns_pid1 in its namespace, not 1"
[[ $(awk '/^Uid:/{print $2}' "/proc/$ctr_pid/status") == "$SANDBOXD_UID" ]] || die "tini does not run as uid $SANDBOXD_UID"

# Commands in the running container (as `docker exec`): its namespaces, root, cwd and uid.
in_ctr() {
    nsenter -t "$ctr_pid" -m -p -n -r -w -S "$SANDBOXD_UID" -G "$SANDBOXD_GID" -- \
        /usr/bin/env -i "${ctr_env[@]}" "$@"
}

healthy=no
for _ in $(seq 600); do
    if in_ctr curl -fsS -o /dev/null --max-time 2 http://127.0.0.1:8080/v1/health 2>/dev/null; then
        healthy=yes; break
    fi
    kill -0 "$unshare_pid" 2>/dev/null || break
    sleep 0.02
done
t_healthy=$(ms_now)
if [[ $healthy != yes ]]; then
    cat "$report/daemon.log" >&2
    die "sandboxd did not answer /v1/health on :8080 within 60 s"
fi
startup_ms=$((t_healthy - t_launch))
java_pid=$(cat "/proc/$ctr_pid/task/$ctr_pid/children" | awk '{print $1}')
[[ $(cat "/proc/$java_pid/comm") == java ]] || die "tini's child is $(cat "/proc/$java_pid/comm"), not java"
[[ $(awk '/^Uid:/{print $2}' "/proc/$java_pid/status") == "$SANDBOXD_UID" ]] || die "the daemon does not run as uid $SANDBOXD_UID"
grep -q 'sandboxd.jsa' "/proc/$java_pid/maps" || die "the daemon did not map its CDS archive"
in_ctr curl -fsS http://127.0.0.1:8080/v1/health >"$report/health.json"
log "healthy ${startup_ms} ms after launch: $(cat "$report/health.json")"
# The Dockerfile's HEALTHCHECK command, run as Docker would (sh -c in the container).
hc_cmd=$(sed -n 's/^HEALTHCHECK .* CMD //p' "$work/Dockerfile.joined")
in_ctr /bin/sh -c "$hc_cmd" || die "the Dockerfile's HEALTHCHECK command failed: $hc_cmd"
# The root filesystem is read-only, as in the examples (readOnlyRootFilesystem: true).
if in_ctr touch /opt/sandboxd/probe 2>/dev/null; then die "the root filesystem is writable; expected read-only"; fi
# gRPC answers too (an Execute over h2c with the image's curl).
in_ctr "$libdir/build-rootfs.sh" grpc 9090 Execute true >/dev/null || die "gRPC Execute on :9090 failed"
sleep 5
idle_rss_kib=$(awk '/^VmRSS:/{print $2}' "/proc/$java_pid/status")
log "idle RSS after 5 s: $((idle_rss_kib / 1024)) MiB"

# --- 7. Orphaned grandchild: the daemon's child exits at once, its background child outlives it
# and must be re-parented to tini and reaped when it exits, never left a zombie.
rm -f "$root$SANDBOXD_WORKSPACE/.orphan"
in_ctr "$libdir/build-rootfs.sh" grpc 9090 Execute sh -c 'sleep 2.5 </dev/null >/dev/null 2>&1 & echo $! > .orphan' >/dev/null \
    || die "gRPC Execute of the orphan maker failed"
orphan_ns=$(cat "$root$SANDBOXD_WORKSPACE/.orphan" 2>/dev/null) || die "the orphan maker did not run"
orphan=""
ctr_ns=$(readlink "/proc/$ctr_pid/ns/pid")
for p in /proc/[0-9]*; do
    [[ $(readlink "$p/ns/pid" 2>/dev/null) == "$ctr_ns" ]] || continue
    [[ $(awk '/^NSpid:/{print $NF}' "$p/status" 2>/dev/null) == "$orphan_ns" ]] || continue
    orphan=${p#/proc/}; break
done
[[ -n $orphan ]] || die "the orphan (pid $orphan_ns in the container) was not found alive"
reaper=$(awk '/^PPid:/{print $2}' "/proc/$orphan/status")
[[ $reaper == "$ctr_pid" ]] || die "the orphan's parent is $(cat "/proc/$reaper/comm" 2>/dev/null) (pid $reaper), not tini"
reaped=no
for _ in $(seq 150); do
    state=$(awk '/^State:/{print $2}' "/proc/$orphan/status" 2>/dev/null || true)
    if [[ -z $state ]]; then reaped=yes; break; fi
    sleep 0.1
done
[[ $reaped == yes ]] || die "the orphan is still there (state $state) 15 s later: not reaped"
zombies=$(for p in /proc/[0-9]*; do
    [[ $(awk '/^PPid:/{print $2}' "$p/status" 2>/dev/null) == "$ctr_pid" && $(awk '/^State:/{print $2}' "$p/status" 2>/dev/null) == Z ]] && echo "${p#/proc/}"
done; true)
[[ -z $zombies ]] || die "zombies under tini: $zombies"
log "orphan re-parented to tini and reaped"

# --- 8. The conformance suite, from the image, against the daemon in it -----------------------
log "conformance: sandboxd-conformance --level all (from the image)"
t0=$(date +%s)
conf_rc=0
in_ctr /usr/local/bin/sandboxd-conformance --grpc 127.0.0.1:9090 --rest http://127.0.0.1:8080 \
    --level all --report-dir /tmp/conformance-report >"$report/conformance.log" 2>&1 || conf_rc=$?
t_conf=$(($(date +%s) - t0))
in_ctr tar -C /tmp -cf - conformance-report 2>/dev/null | tar -C "$report" -xf - 2>/dev/null || true
tail -40 "$report/conformance.log" >&2
[[ $conf_rc == 0 ]] || die "conformance suite failed (exit $conf_rc); report in $report"

# --- 9. Graceful stop: SIGTERM to PID 1 reaches the daemon through tini ------------------------
kill -TERM "$ctr_pid"
stopped=no
for _ in $(seq 150); do
    kill -0 "$unshare_pid" 2>/dev/null || { stopped=yes; break; }
    sleep 0.1
done
[[ $stopped == yes ]] || die "the container did not stop within 15 s of SIGTERM"
wait "$unshare_pid" && stop_rc=0 || stop_rc=$?
unshare_pid=""
[[ $stop_rc == 0 ]] || die "the container exited $stop_rc after SIGTERM (want 0)"

summary="rootfs ${rootfs_mib} MiB; startup ${startup_ms} ms to healthy; idle RSS $((idle_rss_kib / 1024)) MiB; conformance --level all passed (${t_conf} s); orphan reaped by tini; base $([[ $base_cached == yes ]] && echo cached || echo "built in ${t_base} s"); CDS training ${t_archive} s; total $(($(date +%s) - t_start)) s"
echo "$summary" >"$report/summary.txt"
log "PASS: $summary"
