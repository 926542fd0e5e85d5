#!/bin/sh
# Builds the sandboxd image's root filesystem, step by step. It runs *inside* the filesystem it
# builds: image/Dockerfile runs it in `RUN` steps on debian:bookworm-slim, from one package list
# (rootfs.env).
#
#   build-rootfs.sh packages        install SANDBOXD_PACKAGES (apt; needs the network)
#   build-rootfs.sh install DIR     user 1000, /workspace, jars and launchers from DIR
#   build-rootfs.sh archive         AppCDS archive from a training run of the installed daemon
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/rootfs.env"

log() { echo "build-rootfs: $*" >&2; }
die() { log "error: $*"; exit 1; }

step_packages() {
    # Same trimming as debian:*-slim: no docs, man pages or translations from what we add.
    cat > /etc/dpkg/dpkg.cfg.d/sandboxd-slim <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
    # openjdk's postinst registers man pages through update-alternatives, which fails when the
    # man directory was trimmed away.
    mkdir -p /usr/share/man/man1
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086  # word splitting of the lists is intended
    apt-get install -y -qq --no-install-recommends $SANDBOXD_PACKAGES >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $SANDBOXD_JDK_PACKAGES >/dev/null
    rm -rf "$SANDBOXD_JRE"
    mkdir -p "$(dirname "$SANDBOXD_JRE")"
    # No --compress: an uncompressed lib/modules loads the classes the CDS archives miss faster.
    # Not --strip-debug: Debian's jlink would run objcopy on the (already stripped) native libraries.
    jlink --add-modules "$SANDBOXD_JAVA_MODULES" --strip-java-debug-attributes --no-man-pages --no-header-files \
        --generate-cds-archive --output "$SANDBOXD_JRE"
    # The compressed-oops-off CDS archive only serves heaps above 32 GiB.
    rm -f "$SANDBOXD_JRE/lib/server/classes_nocoops.jsa"
    # shellcheck disable=SC2086
    apt-get purge -y -qq --auto-remove $SANDBOXD_JDK_PACKAGES >/dev/null
    apt-get clean
    rm -rf /var/lib/apt/lists/* /var/log/apt/* /var/log/dpkg.log /var/cache/debconf/*-old
    # Fail here, not at run time, if a package did not bring what the image relies on.
    "$SANDBOXD_JRE/bin/java" -Xshare:on -version 2>/dev/null || die "the jlink'ed runtime does not start"
    if ls /usr/lib/jvm/*/bin/javac >/dev/null 2>&1; then die "the JDK was not purged"; fi
    for bin in /usr/bin/tini /usr/bin/setsid /usr/bin/curl /bin/bash /usr/bin/ps; do
        [ -x "$bin" ] || die "$bin missing after installing packages"
    done
}

step_install() {
    src=${1:?usage: build-rootfs.sh install DIR (holding sandboxd.jar, sandboxd-conformance.jar)}
    for f in sandboxd.jar sandboxd-conformance.jar; do
        [ -f "$src/$f" ] || die "$src/$f not found"
    done
    if ! getent group "$SANDBOXD_GID" >/dev/null; then
        groupadd --gid "$SANDBOXD_GID" "$SANDBOXD_USER"
    fi
    if ! getent passwd "$SANDBOXD_UID" >/dev/null; then
        useradd --uid "$SANDBOXD_UID" --gid "$SANDBOXD_GID" --home-dir "$SANDBOXD_HOME" \
            --create-home --shell /bin/bash "$SANDBOXD_USER"
    fi
    install -d -m 0755 -o "$SANDBOXD_UID" -g "$SANDBOXD_GID" "$SANDBOXD_WORKSPACE"
    install -d -m 0755 "$SANDBOXD_PREFIX"
    install -m 0644 "$src/sandboxd.jar" "$src/sandboxd-conformance.jar" "$here/jvm.options" "$SANDBOXD_PREFIX/"
    install -m 0755 "$here/sandboxd" /usr/local/bin/sandboxd
    grep -q "^java=$SANDBOXD_JRE/bin/java\$" /usr/local/bin/sandboxd || die "launcher sandboxd does not use $SANDBOXD_JRE"
    install -m 0755 "$here/sandboxd-conformance" /usr/local/bin/sandboxd-conformance
}

wait_health() { # PORT SECONDS PID
    i=0
    while [ "$i" -lt $(($2 * 10)) ]; do
        kill -0 "$3" 2>/dev/null || return 1
        if curl -fsS -o /dev/null "http://127.0.0.1:$1/v1/health" 2>/dev/null; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# Whether nothing listens on 127.0.0.1:$1. curl's exit code 7 says the connection was refused;
# any other outcome (an answer, a reset, a timeout) means something is there.
port_free() {
    local rc=0
    curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$1/" || rc=$?
    [ "$rc" -eq 7 ]
}

step_archive() {
    # The archive is tied to the exact jar and JVM build, so it is made here, from the final jar:
    # the launcher the image runs (same JVM flags) records which classes the daemon loads while it
    # starts and serves a few calls of each kind, then a static archive is dumped from that list.
    # Static, not -XX:ArchiveClassesAtExit: the dynamic archive of JDK 17 leaves out picocli's Java 5
    # class files and the lambda forms, which every start then parses or spins again (./sandboxd on
    # the host: start-up CPU 720 -> 650 ms, idle Private_Dirty 41.2 -> 39.4 MB; issue 22).
    jsa="$SANDBOXD_PREFIX/sandboxd.jsa"
    rm -f "$jsa"
    train=$(mktemp -d)
    # buildah's RUN shares the build host's network: a host process on a port would answer the
    # health check in the training daemon's place, so the first pair of free ones is taken (below
    # the ephemeral range, where no outgoing connection takes one meanwhile).
    rest="" grpc=""
    for k in $(seq 0 2 38); do
        if port_free $((18080 + k)) && port_free $((19090 + k)); then
            rest=$((18080 + k)) grpc=$((19090 + k))
            break
        fi
    done
    [ -n "$rest" ] || die "no free pair of ports for the training daemon in 18080-18118 / 19090-19128 on the build host"
    SANDBOXD_JAVA_OPTS="-XX:DumpLoadedClassList=$train/classes.lst" \
        /usr/local/bin/sandboxd --root-dir "$train/root" --listen-host 127.0.0.1 \
        --rest-port "$rest" --grpc-port "$grpc" >"$train/daemon.log" 2>&1 &
    pid=$!
    if ! wait_health "$rest" 120 "$pid"; then
        kill -9 "$pid" 2>/dev/null || true
        cat "$train/daemon.log" >&2
        die "training daemon did not answer /v1/health"
    fi
    for _ in 1 2 3; do
        echo "training" | curl -fsS -o /dev/null -X PUT --data-binary @- "http://127.0.0.1:$rest/v1/files/t%2Fa.txt" || true
        curl -fsS -o /dev/null "http://127.0.0.1:$rest/v1/files/t%2Fa.txt" || true
        curl -fsS -o /dev/null -I "http://127.0.0.1:$rest/v1/files/t%2Fa.txt" || true
        curl -fsS -o /dev/null "http://127.0.0.1:$rest/v1/files/t" || true
        curl -fsS -o /dev/null "http://127.0.0.1:$rest/v1/files/missing" 2>/dev/null || true
        curl -fsS -o /dev/null "http://127.0.0.1:$rest/v1/metadata" || true
        curl -fsS -o /dev/null -X DELETE "http://127.0.0.1:$rest/v1/files/t%2Fa.txt" || true
        # the project's own client (its CLI, inside the conformance jar) for the gRPC Execute
        "$SANDBOXD_PREFIX/jre/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
            -cp "$SANDBOXD_PREFIX/sandboxd-conformance.jar" io.sandboxd.client.cli.Cli \
            exec --grpc "127.0.0.1:$grpc" -- sh -c 'echo out; echo err >&2' >/dev/null 2>"$train/exec.err" ||
            { cat "$train/exec.err" >&2; kill -9 "$pid" 2>/dev/null || true; die "training Execute failed"; }
    done
    if ! kill -0 "$pid" 2>/dev/null; then
        rc=0; wait "$pid" || rc=$?
        cat "$train/daemon.log" >&2
        die "training daemon exited by itself (status $rc) before it was told to stop"
    fi
    kill -TERM "$pid"
    wait "$pid" || true
    [ -s "$train/classes.lst" ] || die "the training daemon wrote no class list"
    # shellcheck disable=SC2046  # jvm.options is a list of flags
    "$SANDBOXD_PREFIX/jre/bin/java" $(sed 's/#.*//' "$SANDBOXD_PREFIX/jvm.options") -Xshare:dump \
        -XX:SharedClassListFile="$train/classes.lst" -XX:SharedArchiveFile="$jsa" \
        -cp "$SANDBOXD_PREFIX/sandboxd.jar" >"$train/dump.log" 2>&1 ||
        { cat "$train/dump.log" >&2; die "the static CDS dump failed"; }
    rm -rf "$train"
    [ -s "$jsa" ] || die "no CDS archive was written"
    chmod 0644 "$jsa"
    # -Xshare:on makes the JVM fail instead of silently running without the archive.
    if ! SANDBOXD_JAVA_OPTS="-Xshare:on" /usr/local/bin/sandboxd --version >/dev/null; then
        die "the CDS archive does not map with the image's JVM and jar"
    fi
    log "CDS archive $jsa: $(du -k "$jsa" | cut -f1) KiB"
}

case "${1:-}" in
    packages) step_packages ;;
    install) shift; step_install "$@" ;;
    archive) step_archive ;;
    *) die "usage: build-rootfs.sh packages | install DIR | archive" ;;
esac
