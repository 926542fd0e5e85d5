package io.sandboxd.daemon.process.os;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The execve limits, at their boundaries, against the arithmetic and against the running kernel
 * (this JVM's children have the same stack limit the check reads): what the check refuses, a
 * real exec refuses too, and a string one byte shorter runs.
 */
class ExecveLimitsTest {
    static final int PAGE = 4096;

    private static byte[][] env(int... lengths) {
        byte[][] e = new byte[lengths.length][];
        for (int i = 0; i < lengths.length; i++) {
            e[i] = new byte[lengths[i]];
        }
        return e;
    }

    private static List<String> args(int count, int length) {
        return Collections.nCopies(count, "a".repeat(length));
    }

    @Test
    void eachStringWithItsNulIsAtMostThirtyTwoPages() {
        ExecveLimits l = new ExecveLimits(PAGE, 8L << 20);
        assertThat(l.fits(List.of("x".repeat(32 * PAGE - 1)), env())).isTrue();
        assertThat(l.fits(List.of("x".repeat(32 * PAGE)), env())).isFalse();
        assertThat(l.fits(List.of("true"), env(32 * PAGE - 1))).isTrue();
        assertThat(l.fits(List.of("true"), env(32 * PAGE))).isFalse();
        // bytes, not chars: 'é' is two
        assertThat(l.fits(List.of("é".repeat(16 * PAGE)), env())).isFalse();
        // 64 KiB pages (some arm64 kernels) allow longer strings
        assertThat(new ExecveLimits(65536, 8L << 20).fits(List.of("x".repeat(32 * PAGE)), env()))
                .isTrue();
    }

    @Test
    void allTogetherWithinAQuarterOfTheStackLimitBetween128KibAnd6Mib() {
        ExecveLimits eightMib = new ExecveLimits(PAGE, 8L << 20); // 2 MiB for everything
        // 16 strings of 131,063 bytes: (131,063 + 1 + 8) x 16 = 2 MiB exactly
        assertThat(eightMib.fits(args(16, 131_063), env())).isTrue();
        assertThat(eightMib.fits(args(16, 131_064), env())).isFalse();
        assertThat(eightMib.fits(args(15, 131_063), env(131_063))).isTrue();
        assertThat(eightMib.fits(args(15, 131_063), env(131_064))).isFalse();
        // each pointer counts: 2 MiB / (1 + 8) strings of one byte
        int most = (2 << 20) / 9;
        assertThat(eightMib.fits(args(most, 0), env())).isTrue();
        assertThat(eightMib.fits(args(most + 1, 0), env())).isFalse();

        ExecveLimits unlimited = new ExecveLimits(PAGE, -1);
        assertThat(unlimited.fits(args(48, 131_063), env())).isTrue(); // 6 MiB
        assertThat(unlimited.fits(args(48, 131_064), env())).isFalse();
        ExecveLimits huge = new ExecveLimits(PAGE, 1L << 40);
        assertThat(huge.fits(args(48, 131_064), env())).isFalse();

        ExecveLimits tiny = new ExecveLimits(PAGE, 64 * 1024); // a quarter is 16 KiB: 128 KiB still
        assertThat(tiny.fits(List.of("x".repeat(131_063)), env())).isTrue(); // + NUL + pointer = 128 KiB
        assertThat(tiny.fits(List.of("x".repeat(131_064)), env())).isFalse();
    }

    /** Exec of /bin/true through the JDK (posix_spawn, then execve in jspawnhelper): did the kernel take it? */
    private static boolean kernelTakes(List<String> extraArgs, Map<String, String> extraEnv) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("/bin/true");
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(extraEnv);
        try {
            return pb.start().waitFor() == 0;
        } catch (IOException e) {
            assertThat(e.getMessage()).contains("error=7"); // E2BIG, nothing else
            return false;
        }
    }

    private static byte[][] thisEnvironmentWith(Map<String, String> extra) {
        Map<String, String> all = new java.util.HashMap<>(System.getenv());
        all.putAll(extra);
        return all.entrySet().stream()
                .map(e -> (e.getKey() + "=" + e.getValue()).getBytes(StandardCharsets.UTF_8))
                .toArray(byte[][]::new);
    }

    private static void agreesWithTheKernel(List<String> extraArgs, Map<String, String> extraEnv) throws Exception {
        List<String> argv = new ArrayList<>(List.of("/bin/true"));
        argv.addAll(extraArgs);
        boolean fits = ExecveLimits.ofThisProcess().fits(argv, thisEnvironmentWith(extraEnv));
        boolean runs = kernelTakes(extraArgs, extraEnv);
        if (!fits) {
            assertThat(runs).as("refused by the check, so by the kernel too").isFalse();
        }
        if (runs) {
            assertThat(fits).as("taken by the kernel, so by the check too").isTrue();
        }
    }

    @Test
    void whatTheCheckRefusesTheKernelRefusesToo() throws Exception {
        long page = NativeIo.pageSize();
        int longest = (int) (32 * page) - 1;
        assertThat(kernelTakes(List.of("x".repeat(longest)), Map.of())).isTrue();
        assertThat(kernelTakes(List.of("x".repeat(longest + 1)), Map.of())).isFalse();
        agreesWithTheKernel(List.of("x".repeat(longest)), Map.of());
        agreesWithTheKernel(List.of("x".repeat(longest + 1)), Map.of());
        agreesWithTheKernel(List.of(), Map.of("HUGE", "v".repeat(longest - 5)));
        agreesWithTheKernel(List.of(), Map.of("HUGE", "v".repeat(longest - 4)));
        // the total: strings of 100,000 bytes until past the limit, and one fewer
        long stack = NativeIo.stackLimit();
        long total = stack < 0 ? 6L << 20 : Math.max(32 * page, Math.min(6L << 20, stack / 4));
        int n = (int) (total / 100_000) + 1;
        agreesWithTheKernel(args(n, 100_000), Map.of());
        agreesWithTheKernel(args(n - 2, 100_000), Map.of());
        assertThat(ExecveLimits.ofThisProcess().fits(args(n, 100_000), env())).isFalse();
    }
}
