package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Restricted addresses (cloud metadata, link-local, CGNAT, unique-local, IPv4 inside IPv6, ...) from
 * every source, over HTTP/1.1 and over HTTP/2 (gRPC), are refused, and their other spellings
 * (octal, hex, single numbers, brackets, zone ids, ...) do not parse. The router runs inside a network namespace this test creates with
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
        long cases = out.lines()
                .filter(l -> l.startsWith("cases "))
                .mapToLong(l -> Long.parseLong(l.substring(6)))
                .findFirst()
                .orElse(-1);
        // 25 restricted literals, 29 other spellings, 9 names, 4 cached Pod IPs and a control, each over HTTP/1.1 and
        // gRPC.
        assertThat(cases).isEqualTo(2 * (25 + 29 + 9 + 4 + 1));
        assertThat(out.lines().filter(l -> l.startsWith("ok   ")).count()).isEqualTo(cases);
    }
}
