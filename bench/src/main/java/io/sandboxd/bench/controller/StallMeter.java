package io.sandboxd.bench.controller;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;

/**
 * The process {@link MachineStalls} starts on each CPU at real-time priority: it sleeps {@value
 * #SLEEP_MS} ms at a time and prints each oversleep of at least {@value #REPORT_MS} ms as "{@code
 * wakeDueNanos oversleepNanos}" ({@code System.nanoTime}, which every process on the machine reads
 * from the same monotonic clock). At that priority no thread of the bench or the controller can keep
 * it from running, so an oversleep is time in which its CPU ran none of them. It exits when its
 * standard input closes, so it never outlives the benchmark.
 */
public final class StallMeter {
    static final int SLEEP_MS = 2;
    static final int REPORT_MS = 5;
    static final String READY = "ready";

    private StallMeter() {}

    public static void main(String[] args) throws InterruptedException {
        Thread parentGone = new Thread(StallMeter::exitAtEndOfInput, "stall-meter-stdin");
        parentGone.setDaemon(true);
        parentGone.start();
        PrintStream out = System.out;
        out.println(READY);
        out.flush();
        long sleep = SLEEP_MS * 1_000_000L;
        long report = REPORT_MS * 1_000_000L;
        while (true) {
            long before = System.nanoTime();
            Thread.sleep(SLEEP_MS);
            long over = System.nanoTime() - before - sleep;
            if (over >= report) {
                out.println((before + sleep) + " " + over);
                out.flush();
            }
        }
    }

    private static void exitAtEndOfInput() {
        InputStream in = System.in;
        try {
            while (in.read() >= 0) {
                // nothing is sent; only the end matters
            }
        } catch (IOException e) {
            // the parent is gone either way
        }
        System.exit(0);
    }
}
