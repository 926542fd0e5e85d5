package io.sandboxd.reliability.it;

import io.sandboxd.reliability.proc.ProcStat;
import io.sandboxd.reliability.proc.ProcessTable;
import io.sandboxd.reliability.daemon.RunningDaemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Process lookups for fault tests. */
final class Procs {
    private Procs() {
    }

    static List<ProcStat> descendantsNamed(RunningDaemon d, String comm) {
        return d.observer().descendants().stream().filter(p -> p.comm().equals(comm) && !p.zombie()).toList();
    }

    static Optional<ProcStat> oneDescendantNamed(RunningDaemon d, String comm) {
        List<ProcStat> l = descendantsNamed(d, comm);
        return l.size() == 1 ? Optional.of(l.get(0)) : Optional.empty();
    }

    /** Bytes a process has written ({@code wchar} of /proc/PID/io). */
    static long bytesWritten(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
                if (line.startsWith("wchar:")) {
                    return Long.parseLong(line.substring(6).trim());
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    /** Live processes anywhere with this argument: the processes a test spawned, wherever they were reparented. */
    static List<ProcStat> liveWithArgument(String marker) {
        return ProcessTable.read().liveWithArgument(marker);
    }

    static void killAllWithArgument(String marker) {
        for (ProcStat p : liveWithArgument(marker)) {
            ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
