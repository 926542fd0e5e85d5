package io.sandboxd.daemon.cli;

/** Jetty settings that must be in place before the first Jetty class initialises. */
final class JettyTuning {
    static final String REFERENCES_PER_CACHE_LINE = "org.eclipse.jetty.util.referencesPerCacheLine";

    private JettyTuning() {}

    /**
     * Jetty 12.1's {@code MemoryUtils} asks the platform MBean server whether compressed oops are
     * on, only to size the padding of its queues against false sharing. Creating that server
     * (JMX, every platform MXBean, JFR's MXBean) cost ~40 ms of startup on 2 cores and ~1 MiB
     * that stays for the daemon's life. We answer from the heap size instead: the JVM uses
     * compressed oops below 32 GiB of heap unless told otherwise, and a wrong guess only changes
     * padding. An explicit {@code -D} setting wins.
     */
    static void skipPlatformMBeanServer() {
        Main.setDefault(
                REFERENCES_PER_CACHE_LINE,
                Integer.toString(referencesPerCacheLine(Runtime.getRuntime().maxMemory())));
    }

    /** 64-byte cache lines: 16 compressed (4-byte) references, or 8 full ones from 32 GiB of heap. */
    static int referencesPerCacheLine(long maxHeapBytes) {
        return maxHeapBytes < (32L << 30) ? 16 : 8;
    }
}
