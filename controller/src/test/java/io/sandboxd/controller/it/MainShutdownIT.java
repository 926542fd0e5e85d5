package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sandboxd.controller.app.Controllers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * `sandboxd-controller --leader-elect` as a real process: the leader ends promptly on SIGTERM (a
 * Pod's normal stop) instead of hanging in its shutdown hook until the kubelet's SIGKILL.
 */
class MainShutdownIT {
    static {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
    }

    @Test
    void leaderExitsPromptlyOnSigterm() throws Exception {
        try (Controller c = new Controller("sigterm")) {
            c.awaitLeader();
            c.process.destroy();
            boolean exited = c.process.waitFor(30, TimeUnit.SECONDS);
            String out = Files.readString(c.log);
            assertThat(exited)
                    .as("exited within 30 s of SIGTERM; log:%n%s%nthreads:%n%s", out, exited ? "" : threads(c.process))
                    .isTrue();
            assertThat(c.process.exitValue()).as(out).isEqualTo(143);
            assertThat(out).contains("shutting down").doesNotContain("lost the leader-election Lease");
        }
    }

    @Test
    void leaderThatLosesTheLeaseExitsWithStatusOne() throws Exception {
        try (Controller c = new Controller("lost")) {
            c.awaitLeader();
            // Another holder takes the Lease over (re-taken whenever a renewal slips in between).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.process.isAlive() && System.nanoTime() < deadline) {
                try {
                    c.client.leases().inNamespace(c.ns).withName("main-lease").edit(l -> {
                        if ("main-replica".equals(l.getSpec().getHolderIdentity())) {
                            l.getSpec().setHolderIdentity("someone-else");
                            l.getSpec().setLeaseDurationSeconds(120);
                            l.getSpec().setRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC));
                        }
                        return l;
                    });
                } catch (RuntimeException e) {
                    // 409: the leader renewed in between; try again
                }
                c.process.waitFor(300, TimeUnit.MILLISECONDS);
            }
            String out = Files.readString(c.log);
            assertThat(c.process.isAlive())
                    .as("still running 60 s after losing the Lease; log:%n%s", out)
                    .isFalse();
            assertThat(c.process.exitValue()).as(out).isEqualTo(1);
            assertThat(out).contains("lost the leader-election Lease");
        }
    }

    /** The controller's main() in its own JVM, with --leader-elect, against a fresh CRUD mock server. */
    static final class Controller implements AutoCloseable {
        final KubernetesMockServer server;
        final KubernetesClient client;
        final Path log;
        final Process process;
        final String ns;

        Controller(String ns) throws Exception {
            this.ns = ns;
            server = new KubernetesMockServer(
                    new io.fabric8.mockwebserver.Context(),
                    new io.fabric8.mockwebserver.MockWebServer(),
                    new java.util.HashMap<>(),
                    new RecordingCrudDispatcher(),
                    true);
            server.init();
            client = new KubernetesClientBuilder()
                    .withConfig(Controllers.tunedForMock(server.createClient().getConfiguration()))
                    .build();
            log = Files.createTempFile("controller", ".log");
            ProcessBuilder pb = new ProcessBuilder(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UseSerialGC",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "io.sandboxd.controller.app.Main",
                    "--leader-elect",
                    "--leader-election-namespace=" + ns,
                    "--leader-election-id=main-lease",
                    "--no-extensions",
                    "--sandbox-workers=2",
                    "--metrics-bind-address=127.0.0.1:0"));
            pb.environment().put("KUBERNETES_MASTER", client.getMasterUrl().toString());
            pb.environment().put("KUBERNETES_TRUST_CERTIFICATES", "true");
            pb.environment().put("KUBERNETES_NAMESPACE", "default");
            pb.environment().put("HOSTNAME", "main-replica");
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            process = pb.start();
        }

        void awaitLeader() {
            Await.until("the process holds the Lease", Duration.ofSeconds(90), 200, () -> {
                Lease l = client.leases().inNamespace(ns).withName("main-lease").get();
                return l != null && "main-replica".equals(l.getSpec().getHolderIdentity());
            });
        }

        @Override
        public void close() throws Exception {
            if (process.isAlive()) {
                process.destroyForcibly();
                process.waitFor();
            }
            client.close();
            Files.deleteIfExists(log);
            try {
                server.destroy();
            } catch (IllegalStateException e) {
                // still draining
            }
        }
    }

    /** Where a hung process is stuck (a failure message worth having). */
    static String threads(Process p) {
        try {
            Process j = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            String.valueOf(p.pid()),
                            "Thread.print")
                    .redirectErrorStream(true)
                    .start();
            String s = new String(j.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            j.waitFor(20, TimeUnit.SECONDS);
            return s;
        } catch (Exception e) {
            return "jcmd failed: " + e;
        }
    }
}
