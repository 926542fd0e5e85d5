package io.sandboxd.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** VmRSS, VmHWM (peak RSS) and thread count of a live process from /proc/&lt;pid&gt;/status. */
record ProcStatus(long rssKb, long hwmKb, long anonKb, int threads) {

    static ProcStatus read(long pid) {
        try {
            long rss = -1;
            long hwm = -1;
            long anon = -1;
            int threads = -1;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kb(line);
                } else if (line.startsWith("VmHWM:")) {
                    hwm = kb(line);
                } else if (line.startsWith("RssAnon:")) {
                    anon = kb(line);
                } else if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.substring(8).trim());
                }
            }
            return new ProcStatus(rss, hwm, anon, threads);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    double rssMiB() {
        return rssKb / 1024.0;
    }

    /** The private (anonymous) part of the RSS; the rest is file-backed and shareable between Pods. */
    double anonMiB() {
        return anonKb / 1024.0;
    }

    double hwmMiB() {
        return hwmKb / 1024.0;
    }

    private static long kb(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }

    /** Samples a process in the background and keeps the maxima. */
    static final class Sampler implements AutoCloseable {
        private final long pid;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long maxRssKb;
        private volatile int maxThreads;

        Sampler(long pid) {
            this.pid = pid;
            this.thread = new Thread(this::loop, "proc-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            while (running) {
                ProcStatus s = read(pid);
                if (s != null) {
                    maxRssKb = Math.max(maxRssKb, s.rssKb);
                    maxThreads = Math.max(maxThreads, s.threads);
                }
                try {
                    Thread.sleep(25);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        int maxThreads() {
            return maxThreads;
        }

        double maxRssMiB() {
            return maxRssKb / 1024.0;
        }

        @Override
        public void close() {
            running = false;
            thread.interrupt();
        }
    }
}
