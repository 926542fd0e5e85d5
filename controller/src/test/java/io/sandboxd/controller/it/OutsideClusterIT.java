package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `sandboxd-controller` outside a cluster with no kubeconfig stops at once with one line, exit 1. */
class OutsideClusterIT {
    @TempDir
    Path home;

    @Test
    void failsFastWithOneLine() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-Duser.home=" + home,
                "-cp",
                System.getProperty("java.class.path"),
                "io.sandboxd.controller.app.Main",
                "--metrics-bind-address=127.0.0.1:0",
                "--enable-tracing"));
        pb.environment().keySet().removeIf(k -> k.startsWith("KUBERNETES_") || k.equals("KUBECONFIG"));
        pb.environment().put("HOME", home.toString());
        Path log = Files.createTempFile(home, "controller", ".log");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exited").isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            // the no-effect warning for --enable-tracing, then the one line that says why it stops
            assertThat(lines).hasSize(2);
            assertThat(lines.get(0)).contains("--enable-tracing has no effect here");
            assertThat(lines.get(1))
                    .isEqualTo(
                            "sandboxd-controller: no Kubernetes API server: not in a cluster"
                                    + " (KUBERNETES_SERVICE_HOST is unset) and no kubeconfig (KUBECONFIG unset, no ~/.kube/config)");
        } finally {
            p.destroyForcibly().waitFor();
        }
    }
}
