package io.sandboxd.reliability.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A snapshot of every process on the machine, read from {@code /proc}, to find a daemon's descendants. */
public final class ProcessTable {
    private final Map<Long, ProcStat> byPid;
    private final Map<Long, List<ProcStat>> childrenByPpid;

    private ProcessTable(Map<Long, ProcStat> byPid) {
        this.byPid = byPid;
        this.childrenByPpid = new HashMap<>();
        for (ProcStat s : byPid.values()) {
            childrenByPpid.computeIfAbsent(s.ppid(), k -> new ArrayList<>()).add(s);
        }
    }

    public static ProcessTable read() {
        Map<Long, ProcStat> all = new HashMap<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                ProcStat.read(Long.parseLong(name)).ifPresent(s -> all.put(s.pid(), s));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return new ProcessTable(all);
    }

    /** Every process whose parent chain leads to {@code pid}, excluding {@code pid} itself. */
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

    /** Live (non-zombie) processes anywhere with {@code marker} as one whole command-line argument. */
    public List<ProcStat> liveWithArgument(String marker) {
        List<ProcStat> out = new ArrayList<>();
        for (ProcStat s : byPid.values()) {
            if (s.zombie()) {
                continue;
            }
            try {
                String cmdline = Files.readString(Path.of("/proc", Long.toString(s.pid()), "cmdline"),
                        StandardCharsets.ISO_8859_1);
                if (("\0" + cmdline).contains("\0" + marker + "\0")) {
                    out.add(s);
                }
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        return out;
    }

    public int size() {
        return byPid.size();
    }
}
