package io.sandboxd.reliability.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/** Reads a daemon's resources from {@code /proc/PID} (Linux only). */
public final class DaemonObserver {
    private final long pid;
    private final HeapProbe heap;

    public DaemonObserver(long pid) {
        this(pid, HeapProbe.fromCurrentJdk());
    }

    public DaemonObserver(long pid, HeapProbe heap) {
        this.pid = pid;
        this.heap = heap;
    }

    public long pid() {
        return pid;
    }

    /** Cheap snapshot: no GC is forced, heap is left empty. */
    public ResourceSnapshot quick() {
        return snapshot(false);
    }

    /** Full snapshot, forcing a GC in the daemon to measure the live heap. */
    public ResourceSnapshot withHeap() {
        return snapshot(true);
    }

    private ResourceSnapshot snapshot(boolean measureHeap) {
        OptionalLong heapUsed = measureHeap ? heap.usedAfterGc(pid) : OptionalLong.empty();
        List<ProcStat> descendants = ProcessTable.read().descendantsOf(pid);
        int zombies = (int) descendants.stream().filter(ProcStat::zombie).count();
        int live = descendants.size() - zombies;
        return new ResourceSnapshot(threads(), fds(), rssBytes(), heapUsed, live, zombies);
    }

    public int threads() {
        return (int) statusField("Threads:");
    }

    public long rssBytes() {
        return statusField("VmRSS:") * 1024;
    }

    public int fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (int) s.count();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list fds of pid " + pid + " (gone?)", e);
        }
    }

    public List<ProcStat> descendants() {
        return ProcessTable.read().descendantsOf(pid);
    }

    public boolean alive() {
        return Files.exists(Path.of("/proc", Long.toString(pid))) && ProcStat.read(pid).map(s -> !s.zombie()).orElse(false);
    }

    private long statusField(String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(name)) {
                    return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/" + pid + "/status (gone?)", e);
        }
        throw new IllegalStateException("no " + name + " in /proc/" + pid + "/status");
    }
}
