package io.sandboxd.daemon.fs.watch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kernel limits that the watch errors name are the sysctls' whole values. */
class InotifyLimitsTest {
    /** The sysctl as cat(1) reads it. */
    private static String cat(String name) throws Exception {
        Process p = new ProcessBuilder("cat", "/proc/sys/fs/inotify/" + name)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    @Test
    void aLimitIsTheSysctlsWholeValueNotItsFirstDigit() throws Exception {
        for (String name : List.of("max_user_watches", "max_user_instances", "max_queued_events")) {
            assertThat(Inotify.kernelLimit(name)).as(name).isEqualTo(cat(name)).matches("[0-9]+");
        }
        assertThat(WatchTree.kernelLimit().getMessage())
                .contains("fs.inotify.max_user_watches (" + cat("max_user_watches") + ") is reached");
    }
}
