package io.sandboxd.testkit.proc;

import java.time.Duration;

/** Samples a process's {@code /proc/PID/status} in the background and keeps the maxima, until closed. */
public final class ResourceSampler implements AutoCloseable {
    private final long pid;
    private final long intervalMillis;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long maxRssBytes;
    private volatile int maxThreads;
    private volatile int samples;

    public ResourceSampler(long pid, Duration interval) {
        this.pid = pid;
        this.intervalMillis = Math.max(1, interval.toMillis());
        this.thread = new Thread(this::loop, "resource-sampler-" + pid);
        thread.setDaemon(true);
        thread.start();
    }

    /** Every 25 ms. */
    public ResourceSampler(long pid) {
        this(pid, Duration.ofMillis(25));
    }

    private void loop() {
        while (running) {
            ProcStatus.read(pid).ifPresent(s -> {
                maxRssBytes = Math.max(maxRssBytes, s.rssBytes());
                maxThreads = Math.max(maxThreads, s.threads());
                samples++;
            });
            try {
                Thread.sleep(intervalMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public long maxRssBytes() {
        return maxRssBytes;
    }

    public int maxThreads() {
        return maxThreads;
    }

    /** How many samples were taken (0: the process was never seen). */
    public int samples() {
        return samples;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
