package io.sandboxd.client;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.IOException;
import java.util.function.UnaryOperator;

/** The packaged daemon (daemon/target/sandboxd.jar) through the testkit launcher, and clients of it. */
public final class TestDaemons {
    private TestDaemons() {}

    /** The daemon jar with the launcher's lean JVM options, logs named after the test. */
    public static DaemonSpec spec(String name) {
        return DaemonSpec.packagedJar()
                .withJvmOptions("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m")
                .withLogName(name);
    }

    public static RunningDaemon start(String name) throws IOException {
        return spec(name).start();
    }

    public static RunningDaemon start(String name, UnaryOperator<DaemonSpec> tweak) throws IOException {
        return tweak.apply(spec(name)).start();
    }

    public static SandboxdClient client(RunningDaemon d) {
        return SandboxdClient.connect(d.grpcTarget(), d.restBase());
    }
}
