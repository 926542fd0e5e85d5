package io.sandboxd.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FootprintParsingTest {
    private static final String VM_INFO = """
            Heap address: 0x0000000687400000, size: 6028 MB, Compressed Oops mode: Zero based, Oop shift amount: 3
            CDS archive(s) mapped at: [0x0000000800000000-0x0000000800bc7000-0x0000000800bc7000), size 12349440, SharedBaseAddress: 0x0000000800000000, ArchiveRelocationMode: 0.
            Compressed class space mapped at: 0x0000000801000000-0x0000000841000000, reserved size: 1073741824
             Metaspace       used 6891K, committed 7040K, reserved 1114112K
              class space    used 853K, committed 960K, reserved 1048576K
            CodeCache: size=49152Kb used=1741Kb max_used=2191Kb free=47411Kb
             bounds [0x00007f7951400000, 0x00007f7951670000, 0x00007f7954400000]
            """;

    @Test
    void jvmRegionsFromVmInfo() {
        JvmRegions r = JvmRegions.parse(VM_INFO);
        assertThat(r.categoryOf(0x687400000L)).isEqualTo(Category.JAVA_HEAP);
        assertThat(r.categoryOf(0x687400000L + 6028L * 1048576 - 1)).isEqualTo(Category.JAVA_HEAP);
        assertThat(r.categoryOf(0x800000000L)).isEqualTo(Category.CDS);
        assertThat(r.categoryOf(0x800bc7000L)).isNull();
        assertThat(r.categoryOf(0x801000000L)).isEqualTo(Category.CLASS_SPACE);
        assertThat(r.categoryOf(0x7f7954000000L)).isEqualTo(Category.CODE_CACHE);
        assertThat(r.categoryOf(0x7f7954400000L)).isNull();
        assertThat(r.metaspaceCommittedBytes()).hasValue(7040L * 1024);
        assertThat(JvmRegions.parse("no jvm here").regions()).isEmpty();
    }

    @Test
    void smapsSummedByMapping() {
        String smaps = map("687400000-687800000 rw-p 00000000 00:00 0", 1000, 900)
                + map("800000000-800100000 rw-p 00001000 fe:00 12 /usr/lib/jvm/x/lib/server/classes.jsa", 500, 10)
                + map("7f0000000000-7f0000200000 r-xp 00000000 fe:00 13 /usr/lib/jvm/x/lib/server/libjvm.so", 8000, 0)
                + map("7f0000200000-7f0000204000 ---p 00000000 00:00 0", 0, 0) // guard
                + map("7f0000204000-7f0000284000 rw-p 00000000 00:00 0", 100, 100) // its stack
                + map("7f0004000000-7f0004100000 rw-p 00000000 00:00 0", 300, 300) // malloc arena
                + map("7f0004100000-7f0008000000 ---p 00000000 00:00 0", 0, 0) // its reserved tail
                + map("7f0008000000-7f0008100000 rw-p 00000000 00:00 0", 200, 200) // next arena: above a big ---p
                + map("7f0010000000-7f0010001000 r--p 00000000 fe:00 14 /app/sandboxd.jar", 4, 0)
                + map("7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]", 40, 40);
        Map<String, SmapsBreakdown.Usage> b = SmapsBreakdown.of(smaps, JvmRegions.parse(VM_INFO));
        assertThat(b.keySet()).containsExactlyElementsOf(Category.ALL);
        assertThat(b.get(Category.JAVA_HEAP)).isEqualTo(new SmapsBreakdown.Usage(1000 * 1024, 900 * 1024));
        assertThat(b.get(Category.CDS)).isEqualTo(new SmapsBreakdown.Usage(500 * 1024, 10 * 1024));
        assertThat(b.get(Category.LIBJVM).rssBytes()).isEqualTo(8000 * 1024);
        assertThat(b.get(Category.STACKS)).isEqualTo(new SmapsBreakdown.Usage(140 * 1024, 140 * 1024));
        assertThat(b.get(Category.OTHER_ANON)).isEqualTo(new SmapsBreakdown.Usage(500 * 1024, 500 * 1024));
        assertThat(b.get(Category.FILES).rssBytes()).isEqualTo(4 * 1024);
        // Without the JVM's ranges the heap is just anonymous memory and the archive still a file.
        Map<String, SmapsBreakdown.Usage> plain = SmapsBreakdown.of(smaps, JvmRegions.NONE);
        assertThat(plain.get(Category.JAVA_HEAP).rssBytes()).isZero();
        assertThat(plain.get(Category.OTHER_ANON).rssBytes()).isEqualTo(1500 * 1024);
        assertThat(plain.get(Category.CDS).rssBytes()).isEqualTo(500 * 1024);
    }

    @Test
    void cpuTicksAfterACommWithSpacesAndParens() {
        String stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 37 5 2 3 20 0 9 0 100 1000 50";
        assertThat(ProcFigures.cpuTicks(stat)).isEqualTo(42);
    }

    @Test
    void variantsAndOptions() {
        Variant v = Variant.parse("small=-Xss256k MALLOC_ARENA_MAX=2 -XX:+UseSerialGC");
        assertThat(v.name()).isEqualTo("small");
        assertThat(v.jvmOptions()).containsExactly("-Xss256k", "-XX:+UseSerialGC");
        assertThat(v.env()).isEqualTo(Map.of("MALLOC_ARENA_MAX", "2"));
        assertThatThrownBy(() -> Variant.parse("nospec")).hasMessageContaining("NAME=SPEC");
        assertThatThrownBy(() -> Variant.parse("x=oops")).hasMessageContaining("'oops'");

        Options o = Options.parse(new String[] {"--start-daemon", "d.jar", "--jvm-opts", "-Xmx64m"});
        assertThat(o.variants).extracting(Variant::name).containsExactly("default");
        assertThat(o.jarOpts()).isEqualTo(List.of("-Xmx64m"));
        assertThatThrownBy(() -> Options.parse(new String[] {"--starts", "0", "--start-daemon", "x"}))
                .hasMessageContaining("--starts must be between 1 and 1000");
        assertThatThrownBy(() -> Options.parse(new String[] {"--target-address", "h:1"}))
                .hasMessageContaining("--target-pid");
        assertThatThrownBy(() -> Options.parse(new String[] {"--starts", "3"})).hasMessageContaining("--start-daemon");
        assertThatThrownBy(() ->
                        Options.parse(new String[] {"--start-daemon", "x", "--variant", "a=-X", "--variant", "a=-Y"}))
                .hasMessageContaining("two variants named a");
    }

    @Test
    void floorsRunWithTheLaunchersOptionsFile() {
        Options o =
                Options.parse(new String[] {"--start-daemon", "/repo/sandboxd", "--floor", "netty", "--floor", "jdk"});
        assertThat(o.variants).extracting(Variant::name).containsExactly("default", "floor-netty", "floor-jdk");
        assertThat(o.variants.get(1).floor()).isEqualTo(Floor.NETTY);
        assertThat(o.variants.get(2).speaksGrpc()).isFalse();
        assertThat(o.jvmOptionsFile).isEqualTo(java.nio.file.Path.of("/repo/daemon/jvm.options"));
        assertThatThrownBy(() -> Options.parse(new String[] {"--start-daemon", "d.jar", "--floor", "netty"}))
                .hasMessageContaining("--jvm-options-file");
        assertThatThrownBy(() ->
                        Options.parse(new String[] {"--target-address", "h:1", "--target-pid", "1", "--floor", "jdk"}))
                .hasMessageContaining("--start-daemon");
        assertThatThrownBy(() -> Options.parse(new String[] {"--start-daemon", "x", "--floor", "quarkus"}))
                .hasMessageContaining("unknown floor 'quarkus'");
        assertThatThrownBy(
                        () -> Options.parse(new String[] {"--start-daemon", "x", "--floor", "jdk", "--floor", "jdk"}))
                .hasMessageContaining("two variants named floor-jdk");

        assertThat(FloorLauncher.readOptions("# comment\n-XX:+UseSerialGC -Xss512k # why\n\n  -XX:NewRatio=8\n"))
                .containsExactly("-XX:+UseSerialGC", "-Xss512k", "-XX:NewRatio=8");
    }

    @Test
    void classesCountedPerLibraryFromTheClassLoadLog() {
        ClassCounts c = ClassCounts.parse("""
                [0.010s][info][class,load] java.lang.Object source: shared objects file
                [0.050s][info][class,load] io.netty.channel.Channel source: shared objects file (top)
                [0.051s][info][class,load] io.netty.util.Recycler$1 source: shared objects file (top)
                [0.060s][info][class,load] org.eclipse.jetty.server.Server source: file:/x/floors.jar
                [0.061s][info][class,load] com.sun.jna.Native source: file:/x/daemon.jar
                [0.062s][info][class,load] io.sandboxd.daemon.cli.Main source: file:/x/daemon.jar
                [0.063s][info][class,load ] jdk.internal.misc.Unsafe source: jrt:/java.base
                [0.064s][info][gc] not a class line
                """);
        assertThat(c.total()).isEqualTo(7);
        assertThat(c.fromArchive()).isEqualTo(3);
        assertThat(c.byGroup())
                .containsExactly(
                        Map.entry("JDK", 2),
                        Map.entry("io.netty", 2),
                        Map.entry("com.sun", 1),
                        Map.entry("io.sandboxd.daemon", 1),
                        Map.entry("org.eclipse.jetty", 1));
    }

    @Test
    void guardComparesRatiosAndMemoryWithTheirOwnLimits() {
        Map<String, Double> base = FootprintGuard.figures(600, 200, 1.2, 40);
        assertThat(base.get(FootprintGuard.STARTUP)).isEqualTo(3.0);
        assertThat(FootprintGuard.compare(FootprintGuard.figures(1700, 200, 3.5, 49), base, 3))
                .isEmpty();
        assertThat(FootprintGuard.compare(FootprintGuard.figures(1900, 200, 3.5, 51), base, 3))
                .hasSize(2)
                .anySatisfy(p -> assertThat(p).startsWith(FootprintGuard.STARTUP))
                .anySatisfy(p -> assertThat(p).startsWith(FootprintGuard.MEMORY));
        assertThat(FootprintGuard.compare(Map.of(), base, 3))
                .allSatisfy(p -> assertThat(p).endsWith("not measured"));
        assertThat(FootprintGuard.bestOf(
                        FootprintGuard.figures(1900, 200, 1, 51), FootprintGuard.figures(600, 200, 2, 60)))
                .isEqualTo(FootprintGuard.figures(600, 200, 1, 51));
    }

    @Test
    void neverAttachesToAProcessThatIsNoJvm() throws Exception {
        // jcmd's attach sends SIGQUIT to a process that catches it (newer JDKs skip the others), and
        // a Go daemon catches it to dump its goroutines and exit. A Python process catching QUIT
        // stands in (the JDK does not see a shell's trap as a handler).
        Process quitCatcher = new ProcessBuilder(
                        "/usr/bin/python3",
                        "-c",
                        "import os, signal, time\n"
                                + "signal.signal(signal.SIGQUIT, lambda *a: os._exit(3))\n"
                                // a JVM's children inherit its blocked SIGQUIT: unblock it
                                + "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGQUIT])\n"
                                + "print('ready', flush=True)\n"
                                + "time.sleep(60)")
                .start();
        try {
            assertThat(quitCatcher.getInputStream().read()).isEqualTo('r');
            assertThat(JvmRegions.of(
                            quitCatcher.pid(), java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd")))
                    .isSameAs(JvmRegions.NONE);
            assertThat(quitCatcher.waitFor(2, TimeUnit.SECONDS))
                    .as("the QUIT-catching process is still running")
                    .isFalse();
        } finally {
            quitCatcher.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String map(String header, long rssKib, long pdKib) {
        return header + "\nSize: 4 kB\nRss: " + rssKib + " kB\nPss: " + rssKib + " kB\nPss_Dirty: 0 kB\n"
                + "Private_Dirty: " + pdKib + " kB\nVmFlags: rd wr\n";
    }
}
