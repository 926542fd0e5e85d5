package io.sandboxd.reliability.it;

import io.sandboxd.reliability.daemon.DaemonSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the packaged daemon and the per-test daemon logs are (set by failsafe in the pom). */
final class TestDaemons {
    private TestDaemons() {
    }

    static Path jar() {
        String p = System.getProperty("sandboxd.jar");
        if (p == null) {
            throw new IllegalStateException("system property sandboxd.jar is not set (run through ./mvnw verify)");
        }
        return Path.of(p);
    }

    static Path logFile(String name) {
        return Path.of(System.getProperty("sandboxd.logDir", "target/daemon-logs"), name + ".log");
    }

    /** A spec with a fresh temporary root. */
    static DaemonSpec spec(String name) throws IOException {
        return DaemonSpec.of(jar(), Files.createTempDirectory("sandboxd-" + name + "-"), logFile(name));
    }

    static DaemonSpec spec(String name, Path root) {
        return DaemonSpec.of(jar(), root, logFile(name));
    }
}
