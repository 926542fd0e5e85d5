package io.sandboxd.bench.footprint;

import io.sandboxd.testkit.proc.HeapProbe;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The address ranges a HotSpot JVM reserved for its heap, class-data archives, compressed class
 * space and code cache, and its committed metaspace, as {@code jcmd PID VM.info} prints them. Only
 * asked of a JVM: a jcmd attach sends SIGQUIT, which kills a process that is not one.
 */
record JvmRegions(List<Region> regions, OptionalLong metaspaceCommittedBytes) {
    record Region(String category, long start, long end) {}

    static final JvmRegions NONE = new JvmRegions(List.of(), OptionalLong.empty());

    private static final Pattern HEAP = Pattern.compile("Heap address: 0x([0-9a-f]+), size: (\\d+) MB");
    private static final Pattern CDS =
            Pattern.compile("CDS archive\\(s\\) mapped at: \\[0x([0-9a-f]+)-0x[0-9a-f]+-0x([0-9a-f]+)\\)");
    private static final Pattern CLASS_SPACE =
            Pattern.compile("Compressed class space mapped at: 0x([0-9a-f]+)-0x([0-9a-f]+)");
    private static final Pattern CODE = Pattern.compile("bounds \\[0x([0-9a-f]+), 0x[0-9a-f]+, 0x([0-9a-f]+)\\]");
    private static final Pattern METASPACE =
            Pattern.compile("^\\s*Metaspace\\s+used \\d+K, committed (\\d+)K", Pattern.MULTILINE);

    /** Parses {@code VM.info} output; ranges it does not print are simply absent. */
    static JvmRegions parse(String vmInfo) {
        List<Region> out = new ArrayList<>();
        Matcher m = HEAP.matcher(vmInfo);
        if (m.find()) {
            long start = Long.parseUnsignedLong(m.group(1), 16);
            out.add(new Region(Category.JAVA_HEAP, start, start + Long.parseLong(m.group(2)) * (1L << 20)));
        }
        m = CDS.matcher(vmInfo);
        if (m.find()) {
            out.add(new Region(Category.CDS, hex(m.group(1)), hex(m.group(2))));
        }
        m = CLASS_SPACE.matcher(vmInfo);
        if (m.find()) {
            out.add(new Region(Category.CLASS_SPACE, hex(m.group(1)), hex(m.group(2))));
        }
        m = CODE.matcher(vmInfo);
        while (m.find()) {
            out.add(new Region(Category.CODE_CACHE, hex(m.group(1)), hex(m.group(2))));
        }
        m = METASPACE.matcher(vmInfo);
        OptionalLong meta = m.find() ? OptionalLong.of(Long.parseLong(m.group(1)) * 1024) : OptionalLong.empty();
        return new JvmRegions(List.copyOf(out), meta);
    }

    /** The category of {@code address}, or null when it is in none of the ranges. */
    String categoryOf(long address) {
        for (Region r : regions) {
            if (Long.compareUnsigned(address, r.start()) >= 0 && Long.compareUnsigned(address, r.end()) < 0) {
                return r.category();
            }
        }
        return null;
    }

    /** Asks {@code jcmd} of the given JDK; {@link #NONE} for a process that is no JVM or when jcmd fails. */
    static JvmRegions of(long pid, Path jcmd) {
        if (!HeapProbe.isJvm(pid)) {
            return NONE;
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "VM.info")
                    .redirectErrorStream(true)
                    .start();
            p.getOutputStream().close();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return NONE;
            }
            return parse(new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return NONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NONE;
        }
    }

    private static long hex(String s) {
        return Long.parseUnsignedLong(s, 16);
    }
}
