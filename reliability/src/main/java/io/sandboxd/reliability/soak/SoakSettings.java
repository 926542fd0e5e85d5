package io.sandboxd.reliability.soak;

import java.time.Duration;
import java.util.Optional;

/**
 * One soak run: where the daemon is, how long and how wide to load it, and how far its resources
 * may be from the baseline at the end.
 *
 * @param daemonPid        the daemon's pid for /proc observations; empty = no resource checks
 * @param threadTolerance  threads allowed above the baseline after the run settles (at least; see {@link #threadSlack})
 * @param fdTolerance      open fds allowed above the baseline after the run settles
 * @param heapToleranceBytes heap-after-GC growth allowed (the larger of this and 20 % of the baseline)
 * @param maxRssBytes      resident memory the daemon may never exceed during the run
 */
public record SoakSettings(
        String grpcTarget,
        String restBase,
        Optional<String> token,
        Optional<Long> daemonPid,
        Duration duration,
        Duration warmup,
        int clients,
        long seed,
        int threadTolerance,
        int fdTolerance,
        long heapToleranceBytes,
        long maxRssBytes,
        Duration settleTimeout) {

    public static SoakSettings of(
            String grpcTarget, String restBase, Optional<Long> pid, Duration duration, int clients) {
        Duration warmup = Duration.ofMillis(Math.max(5_000, Math.min(30_000, duration.toMillis() / 6)));
        return new SoakSettings(
                grpcTarget,
                restBase,
                Optional.empty(),
                pid,
                duration,
                warmup,
                clients,
                System.nanoTime(),
                8,
                8,
                8L << 20,
                1L << 30,
                Duration.ofSeconds(90));
    }

    public SoakSettings withToken(Optional<String> t) {
        return new SoakSettings(
                grpcTarget,
                restBase,
                t,
                daemonPid,
                duration,
                warmup,
                clients,
                seed,
                threadTolerance,
                fdTolerance,
                heapToleranceBytes,
                maxRssBytes,
                settleTimeout);
    }

    public SoakSettings withWarmup(Duration w) {
        return new SoakSettings(
                grpcTarget,
                restBase,
                token,
                daemonPid,
                duration,
                w,
                clients,
                seed,
                threadTolerance,
                fdTolerance,
                heapToleranceBytes,
                maxRssBytes,
                settleTimeout);
    }

    public SoakSettings withSeed(long s) {
        return new SoakSettings(
                grpcTarget,
                restBase,
                token,
                daemonPid,
                duration,
                warmup,
                clients,
                s,
                threadTolerance,
                fdTolerance,
                heapToleranceBytes,
                maxRssBytes,
                settleTimeout);
    }

    /** Threads allowed above the baseline: the tolerance, or 10 % of the baseline if larger (pools shrink slowly). */
    public int threadSlack(io.sandboxd.testkit.proc.ResourceSnapshot base) {
        return Math.max(threadTolerance, base.threads() / 10);
    }
}
