# Sourced by image/ci-images.sh (and by hand, to look at what CI built):
#   . image/ci-env.sh && podman images
# Points buildah and podman at a private, persistent containers storage so that CI runs on one
# machine share the base image, the layer cache and the Maven cache mount, and never touch the
# machine's default storage or anyone else's containers. Configuration goes through the
# environment only; nothing in /etc is changed.
#
#   SANDBOXD_CI_CACHE    persistent directory (default /var/cache/sandboxd-ci): storage, the base
#                        root filesystem tarball, buildah's cache mounts (TMPDIR)
#   SANDBOXD_CI_STORAGE_DRIVER   overlay or vfs (default: overlay when it can be mounted here)
#   SANDBOXD_CI_RUNROOT  run-time state (default /run/sandboxd-ci; a tmpfs, so a reboot clears it)

ci_cache=${SANDBOXD_CI_CACHE:-/var/cache/sandboxd-ci}
ci_runroot=${SANDBOXD_CI_RUNROOT:-/run/sandboxd-ci}
mkdir -p "$ci_cache/conf" "$ci_cache/tmp" "$ci_cache/networks" "$ci_runroot"
# The storage driver: overlay where the kernel lets us mount one over the cache's filesystem, else
# vfs, which works everywhere but stores every layer as a full copy (a build writes ~12 GB and
# takes minutes longer). SANDBOXD_CI_STORAGE_DRIVER=vfs|overlay forces one. Each driver has its
# own store, so a machine that changes drivers never mixes them.
ci_overlay_works() {
    local d rc=1
    d=$(mktemp -d "$ci_cache/overlay-probe.XXXXXX") || return 1
    mkdir -p "$d/l" "$d/u" "$d/w" "$d/m"
    if mount -t overlay overlay -o "lowerdir=$d/l,upperdir=$d/u,workdir=$d/w" "$d/m" 2>/dev/null; then
        touch "$d/m/probe" 2>/dev/null && rc=0
        umount "$d/m"
    fi
    rm -rf "$d"
    return "$rc"
}
ci_driver=${SANDBOXD_CI_STORAGE_DRIVER:-}
if [[ -z $ci_driver ]]; then
    if ci_overlay_works; then ci_driver=overlay; else ci_driver=vfs; fi
fi
mkdir -p "$ci_cache/storage-$ci_driver"
cat >"$ci_cache/conf/storage.conf" <<EOF
[storage]
driver = "$ci_driver"
graphroot = "$ci_cache/storage-$ci_driver"
runroot = "$ci_runroot/storage-$ci_driver"
EOF
# runc, not crun: crun fails where there is no CAP_SYS_RESOURCE (setrlimit) and on cgroup v1
# hybrid hosts. The ulimits stay within a hard nofile limit of 20000 (podman's defaults would
# raise it, which runc then cannot). Periodic health checks need systemd timers; the CI runs
# `podman healthcheck run` itself.
cat >"$ci_cache/conf/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$ci_runroot/libpod"
volume_path = "$ci_cache/storage-$ci_driver/volumes"

[network]
network_config_dir = "$ci_cache/networks"
EOF
export CONTAINERS_STORAGE_CONF=$ci_cache/conf/storage.conf
export CONTAINERS_CONF=$ci_cache/conf/containers.conf
# buildah keeps RUN --mount=type=cache directories (the Maven repository) under TMPDIR.
export TMPDIR=$ci_cache/tmp
