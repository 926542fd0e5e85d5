package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Restricted addresses (cloud metadata, link-local, CGNAT, unique-local, IPv4 inside IPv6, ...) from
 * every source are refused. The router runs inside a network namespace this test creates with
 * loopback alone ({@code unshare --net}, {@code ip link set lo up}), so a check that wrongly passed
 * reaches nothing off this machine; {@link io.sandboxd.router.testing.NetnsVettingProbe} does the
 * asking and refuses to run if it sees any other interface.
 */
class RestrictedTargetsInNetnsTest {
    @Test
    void everyRestrictedTargetIsRefusedFromEverySource() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> cmd = List.of(
                "unshare",
                "--net",
                "--",
                "/bin/sh",
                "-c",
                "ip link set lo up && exec \"$0\" -cp \"$1\" io.sandboxd.router.testing.NetnsVettingProbe",
                java,
                System.getProperty("java.class.path"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(done).as("probe finished:\n%s", out).isTrue();
        assertThat(p.exitValue()).as("probe output:\n%s", out).isZero();
        assertThat(out).contains("probe OK").doesNotContain("FAIL ");
        assertThat(out.lines().filter(l -> l.startsWith("ok   ")).count()).isEqualTo(24 + 9 + 4 + 1);
    }
}
