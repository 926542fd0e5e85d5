package io.sandboxd.daemon.process;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A daemon started with SIGINT ignored (nohup, {@code &} in a non-interactive shell) passes that
 * disposition to every child through exec, so SendSignal(SIGINT) would do nothing. When the CLI
 * finds SIGINT ignored at start it says so here, and pipe-mode children are then started through
 * coreutils {@code env --default-signal=INT}, which restores the default before the user's
 * program runs (an exec, not a fork: the pid and process group stay the same).
 */
public final class SignalInheritance {
    private static final Path ENV = Path.of("/usr/bin/env");
    private static volatile boolean sigintIgnored;
    private static volatile List<String> prefix;

    private SignalInheritance() {
    }

    public static void sigintIgnoredByParent() {
        sigintIgnored = true;
    }

    /** The argv prefix that resets SIGINT for a child, or an empty list when none is needed. */
    static List<String> resetPrefix() {
        if (!sigintIgnored) {
            return List.of();
        }
        List<String> p = prefix;
        if (p == null) {
            p = probe();
            prefix = p;
        }
        return p;
    }

    private static List<String> probe() {
        List<String> candidate = List.of(ENV.toString(), "--default-signal=INT");
        if (!Files.isExecutable(ENV)) {
            return List.of();
        }
        try {
            Process probe = new ProcessBuilder(List.of(ENV.toString(), "--default-signal=INT", "true"))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (probe.waitFor(5, TimeUnit.SECONDS) && probe.exitValue() == 0) {
                return candidate;
            }
            probe.destroyForcibly();
        } catch (Exception e) {
            // an env without --default-signal (coreutils < 8.31): children keep SIGINT ignored
        }
        return List.of();
    }
}
