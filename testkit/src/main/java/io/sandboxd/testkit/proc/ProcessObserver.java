package io.sandboxd.testkit.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Reads one process's resources from {@code /proc/PID} (Linux): threads, fds, RSS and its private
 * dirty part, children and descendants, zombies, and, for a JVM only, the heap after a full GC.
 * Reads of a process that has gone throw {@link IllegalStateException}, except {@link #alive()}.
 */
public final class ProcessObserver {
    private final long pid;
    private final HeapProbe heap;

    public ProcessObserver(long pid) {
        this(pid, HeapProbe.fromCurrentJdk());
    }

    public ProcessObserver(long pid, HeapProbe heap) {
        this.pid = pid;
        this.heap = heap;
    }

    public long pid() {
        return pid;
    }

    /** True while the process exists and is not a zombie. */
    public boolean alive() {
        return ProcStat.read(pid).map(s -> !s.zombie()).orElse(false);
    }

    public ProcStat stat() {
        return ProcStat.read(pid).orElseThrow(this::gone);
    }

    public ProcStatus status() {
        return ProcStatus.read(pid).orElseThrow(this::gone);
    }

    public int threads() {
        return status().threads();
    }

    public long rssBytes() {
        return status().rssBytes();
    }

    /** {@code Private_Dirty} of {@code /proc/PID/smaps_rollup}: memory only this process can free. */
    public long privateDirtyBytes() {
        for (String line : lines("smaps_rollup")) {
            if (line.startsWith("Private_Dirty:")) {
                return ProcStatus.kib(line.substring("Private_Dirty:".length()).trim());
            }
        }
        throw new IllegalStateException("no Private_Dirty in /proc/" + pid + "/smaps_rollup");
    }

    /** Open file descriptors. */
    public int fds() {
        try (Stream<Path> s = Files.list(proc("fd"))) {
            return (int) s.count();
        } catch (IOException e) {
            throw gone();
        }
    }

    /**
     * Bytes written through write(2) and friends by the process and the children it has reaped
     * ({@code wchar} of {@code /proc/PID/io}; it survives exec).
     */
    public long bytesWritten() {
        for (String line : lines("io")) {
            if (line.startsWith("wchar:")) {
                return Long.parseLong(line.substring(6).trim());
            }
        }
        throw new IllegalStateException("no wchar in /proc/" + pid + "/io");
    }

    public List<String> cmdline() {
        try {
            String raw = Files.readString(proc("cmdline"), StandardCharsets.UTF_8);
            return raw.isEmpty() ? List.of() : List.of(raw.split("\0"));
        } catch (IOException e) {
            throw gone();
        }
    }

    /** The executable ({@code /proc/PID/exe}). */
    public Path exe() {
        try {
            return Files.readSymbolicLink(proc("exe"));
        } catch (IOException e) {
            throw gone();
        }
    }

    public boolean isJvm() {
        return HeapProbe.isJvm(pid);
    }

    public List<ProcStat> children() {
        return ProcessTable.read().childrenOf(pid);
    }

    /** Every descendant, zombies included (filter on {@link ProcStat#zombie()}). */
    public List<ProcStat> descendants() {
        return ProcessTable.read().descendantsOf(pid);
    }

    /** Live descendants whose command name is {@code comm}. */
    public List<ProcStat> liveDescendantsNamed(String comm) {
        return descendants().stream()
                .filter(p -> p.comm().equals(comm) && !p.zombie())
                .toList();
    }

    /** Threads, fds, memory and descendants; no GC is forced, the heap is left empty. */
    public ResourceSnapshot snapshot() {
        return snapshot(false);
    }

    /** As {@link #snapshot()}, plus the heap after a full GC when the process is a JVM. */
    public ResourceSnapshot snapshotWithHeap() {
        return snapshot(true);
    }

    private ResourceSnapshot snapshot(boolean measureHeap) {
        OptionalLong heapUsed = measureHeap ? heap.usedAfterGc(pid) : OptionalLong.empty();
        List<ProcStat> descendants = descendants();
        int zombies = (int) descendants.stream().filter(ProcStat::zombie).count();
        ProcStatus st = status();
        return new ResourceSnapshot(
                st.threads(),
                fds(),
                st.rssBytes(),
                privateDirtyBytes(),
                heapUsed,
                descendants.size() - zombies,
                zombies);
    }

    private List<String> lines(String file) {
        try {
            return Files.readAllLines(proc(file), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            if (!Files.exists(proc(""))) {
                throw gone();
            }
            throw new UncheckedIOException("cannot read /proc/" + pid + "/" + file, e);
        }
    }

    private Path proc(String file) {
        return Path.of("/proc", Long.toString(pid), file);
    }

    private IllegalStateException gone() {
        return new IllegalStateException("process " + pid + " has gone (no /proc/" + pid + ")");
    }
}
