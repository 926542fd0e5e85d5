package io.sandboxd.testkit.proc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Java heap in use after a full GC of another JVM, via {@code jcmd PID GC.run} then
 * {@code GC.heap_info}: sums the "used" of the top-level heap lines (G1, Serial, Parallel), never
 * Metaspace. Only ever probes a JVM: jcmd attaches by sending SIGQUIT, which would kill (or
 * core-dump) any other process, so a pid that has no {@code libjvm.so} mapped is answered with
 * empty and left alone.
 */
public final class HeapProbe {
    private static final Pattern USED = Pattern.compile("total \\d+K, used (\\d+)K");

    private final Path jcmd;

    public HeapProbe(Path jcmd) {
        this.jcmd = jcmd;
    }

    /** jcmd of the JDK running this JVM, else the one on PATH. */
    public static HeapProbe fromCurrentJdk() {
        Path home = Path.of(System.getProperty("java.home"));
        for (Path candidate : new Path[] {home.resolve("bin/jcmd"), home.resolveSibling("bin/jcmd")}) {
            if (Files.isExecutable(candidate)) {
                return new HeapProbe(candidate);
            }
        }
        return new HeapProbe(Path.of("jcmd"));
    }

    /** True if {@code pid} is a live HotSpot JVM (it has {@code libjvm.so} mapped). */
    public static boolean isJvm(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "maps"), StandardCharsets.ISO_8859_1)
                    .contains("/libjvm.so");
        } catch (IOException e) {
            return false;
        }
    }

    /** Heap bytes used after a full GC; empty if {@code pid} is no JVM, or jcmd is missing or cannot attach. */
    public OptionalLong usedAfterGc(long pid) {
        if (!isJvm(pid) || run(pid, "GC.run") == null) {
            return OptionalLong.empty();
        }
        String info = run(pid, "GC.heap_info");
        return info == null ? OptionalLong.empty() : parseUsedBytes(info);
    }

    static OptionalLong parseUsedBytes(String heapInfo) {
        long sumK = 0;
        boolean any = false;
        for (String line : heapInfo.split("\n")) {
            String t = line.trim();
            if (t.startsWith("Metaspace") || t.startsWith("class space")) {
                continue;
            }
            Matcher m = USED.matcher(t);
            if (m.find()) {
                sumK += Long.parseLong(m.group(1));
                any = true;
            }
        }
        return any ? OptionalLong.of(sumK * 1024) : OptionalLong.empty();
    }

    private String run(long pid, String command) {
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
                    .redirectErrorStream(true)
                    .start();
            p.getOutputStream().close();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
