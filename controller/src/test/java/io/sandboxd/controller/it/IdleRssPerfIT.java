package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measurement: starts the shaded jar (as `java -jar`) against the mock API server, lets it sit
 * idle, and reads its VmRSS. Run after `package` with -Dsandboxd.perf=true.
 */
@EnabledIfSystemProperty(named = "sandboxd.perf", matches = "true")
@EnableKubernetesMockClient(crud = true)
class IdleRssPerfIT {
    static KubernetesMockServer server;
    static KubernetesClient client;

    @Test
    void idleRss() throws Exception {
        Path jar = Path.of(System.getProperty("controller.dir", "."), "target", "sandboxd-controller.jar");
        assertThat(jar).exists();
        Path log = Files.createTempFile("controller", ".log");
        ProcessBuilder pb = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=5",
                "-Xss512k",
                "-jar",
                jar.toString(),
                "--no-leader-elect",
                "--metrics-bind-address=127.0.0.1:0"));
        pb.environment().put("KUBERNETES_MASTER", client.getMasterUrl().toString());
        pb.environment().put("KUBERNETES_TRUST_CERTIFICATES", "true");
        pb.environment().put("KUBERNETES_NAMESPACE", "default");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            Await.until("controller started", () -> {
                try {
                    return Files.readString(log).contains("controller started");
                } catch (Exception e) {
                    return false;
                }
            });
            Thread.sleep(15_000);
            long rssKb = Files.readAllLines(Path.of("/proc/" + p.pid() + "/status")).stream()
                    .filter(l -> l.startsWith("VmRSS:"))
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                    .findFirst()
                    .orElse(-1L);
            System.out.printf(
                    "IDLE_RSS: %d MiB (VmRSS %d kB) after 15 s idle, G1 (5 ms goal), C1+C2, jar %d MB%n",
                    rssKb / 1024, rssKb, new File(jar.toString()).length() / 1_000_000);
            assertThat(p.isAlive()).as(Files.readString(log)).isTrue();
        } finally {
            p.destroy();
            p.waitFor();
        }
    }
}
