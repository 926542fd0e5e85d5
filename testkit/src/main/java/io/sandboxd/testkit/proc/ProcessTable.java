package io.sandboxd.testkit.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A snapshot of every process on the machine, read from {@code /proc} at one moment: to find a
 * process's children and descendants, the members of a session, or the processes a test spawned
 * (by a marker argument) wherever they were reparented.
 */
public final class ProcessTable {
    private final Map<Long, ProcStat> byPid;
    private final Map<Long, List<ProcStat>> childrenByPpid = new HashMap<>();

    private ProcessTable(Map<Long, ProcStat> byPid) {
        this.byPid = byPid;
        for (ProcStat s : byPid.values()) {
            childrenByPpid.computeIfAbsent(s.ppid(), k -> new ArrayList<>()).add(s);
        }
    }

    public static ProcessTable read() {
        Map<Long, ProcStat> all = new HashMap<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
                    ProcStat.read(Long.parseLong(name)).ifPresent(s -> all.put(s.pid(), s));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list /proc", e);
        }
        return new ProcessTable(all);
    }

    public Optional<ProcStat> get(long pid) {
        return Optional.ofNullable(byPid.get(pid));
    }

    public Collection<ProcStat> all() {
        return byPid.values();
    }

    public int size() {
        return byPid.size();
    }

    /** The direct children of {@code pid}, zombies included. */
    public List<ProcStat> childrenOf(long pid) {
        return List.copyOf(childrenByPpid.getOrDefault(pid, List.of()));
    }

    /** Every process whose parent chain leads to {@code pid}, zombies included, {@code pid} excluded. */
    public List<ProcStat> descendantsOf(long pid) {
        List<ProcStat> out = new ArrayList<>();
        Deque<Long> todo = new ArrayDeque<>();
        todo.add(pid);
        while (!todo.isEmpty()) {
            for (ProcStat c : childrenByPpid.getOrDefault(todo.poll(), List.of())) {
                out.add(c);
                todo.add(c.pid());
            }
        }
        return out;
    }

    /** The live (non-zombie) processes of session {@code sid}. */
    public List<ProcStat> liveInSession(long sid) {
        return byPid.values().stream()
                .filter(s -> s.session() == sid && !s.zombie())
                .toList();
    }

    /** Live processes anywhere with {@code marker} as one whole command-line argument. */
    public List<ProcStat> liveWithArgument(String marker) {
        List<ProcStat> out = new ArrayList<>();
        for (ProcStat s : byPid.values()) {
            if (s.zombie()) {
                continue;
            }
            try {
                String cmdline = Files.readString(
                        Path.of("/proc", Long.toString(s.pid()), "cmdline"), StandardCharsets.ISO_8859_1);
                if (("\0" + cmdline).contains("\0" + marker + "\0")) {
                    out.add(s);
                }
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        return out;
    }

    /** SIGKILLs every live process with {@code marker} as an argument (test cleanup). */
    public static void killAllWithArgument(String marker) {
        for (ProcStat p : read().liveWithArgument(marker)) {
            ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
