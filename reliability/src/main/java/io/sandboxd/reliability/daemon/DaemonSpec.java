package io.sandboxd.reliability.daemon;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How to launch the packaged daemon: the jar, JVM options, extra daemon flags, the root dir, an
 * optional access token and an optional {@code ulimit -n}.
 */
public record DaemonSpec(Path jar, Path rootDir, List<String> jvmOptions, List<String> extraFlags,
                         Optional<String> authToken, Optional<Integer> openFileLimit, Path logFile) {

    public static DaemonSpec of(Path jar, Path rootDir, Path logFile) {
        return new DaemonSpec(jar, rootDir, List.of("-Xmx256m"), List.of(), Optional.empty(), Optional.empty(), logFile);
    }

    public DaemonSpec withFlags(String... flags) {
        List<String> all = new ArrayList<>(extraFlags);
        all.addAll(List.of(flags));
        return new DaemonSpec(jar, rootDir, jvmOptions, List.copyOf(all), authToken, openFileLimit, logFile);
    }

    public DaemonSpec withJvmOptions(List<String> options) {
        return new DaemonSpec(jar, rootDir, List.copyOf(options), extraFlags, authToken, openFileLimit, logFile);
    }

    public DaemonSpec withAuthToken(String token) {
        return new DaemonSpec(jar, rootDir, jvmOptions, extraFlags, Optional.of(token), openFileLimit, logFile);
    }

    public DaemonSpec withOpenFileLimit(int limit) {
        return new DaemonSpec(jar, rootDir, jvmOptions, extraFlags, authToken, Optional.of(limit), logFile);
    }

    public DaemonSpec withRootDir(Path dir) {
        return new DaemonSpec(jar, dir, jvmOptions, extraFlags, authToken, openFileLimit, logFile);
    }

    public DaemonSpec withLogFile(Path file) {
        return new DaemonSpec(jar, rootDir, jvmOptions, extraFlags, authToken, openFileLimit, file);
    }
}
