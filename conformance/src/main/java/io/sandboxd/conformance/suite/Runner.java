package io.sandboxd.conformance.suite;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** Runs the selected checks one after another, each in its own thread with a time bound. */
public final class Runner {
    /** No check needs this long against a conforming runtime; a hang is reported as a failure. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(60);

    private final Suite suite;
    private final Map<CheckId, Check> implementations;
    private final Duration checkTimeout;

    public Runner(Suite suite, Map<CheckId, Check> implementations) {
        this(suite, implementations, CHECK_TIMEOUT);
    }

    Runner(Suite suite, Map<CheckId, Check> implementations, Duration checkTimeout) {
        this.suite = suite;
        this.implementations = implementations;
        this.checkTimeout = checkTimeout;
    }

    public List<CheckResult> run(List<CheckId> selected, Consumer<CheckResult> onResult) {
        List<CheckResult> results = new ArrayList<>();
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "conformance-check");
            t.setDaemon(true);
            return t;
        });
        try {
            for (CheckId id : selected) {
                CheckResult r = runOne(pool, id);
                results.add(r);
                onResult.accept(r);
            }
        } finally {
            pool.shutdownNow();
        }
        return results;
    }

    private CheckResult runOne(ExecutorService pool, CheckId id) {
        Check check = implementations.get(id);
        long t0 = System.nanoTime();
        if (check == null) {
            return new CheckResult(id, Outcome.FAIL, "suite defect: no implementation for " + id.id(), Duration.ZERO);
        }
        CheckContext ctx = new CheckContext(suite, id);
        AtomicReference<Thread> runs = new AtomicReference<>();
        Future<?> f = pool.submit(() -> {
            runs.set(Thread.currentThread());
            check.run(ctx);
            return null;
        });
        Outcome outcome;
        String message;
        try {
            f.get(checkTimeout.toMillis(), TimeUnit.MILLISECONDS);
            outcome = Outcome.PASS;
            message = "";
        } catch (TimeoutException e) {
            Thread t = runs.get();
            String site = t == null ? "" : HangSite.describe(t.getStackTrace());
            f.cancel(true);
            outcome = Outcome.FAIL;
            message = "check did not finish within " + checkTimeout.toSeconds() + " s: the runtime hangs on it"
                    + (site.isEmpty() ? "" : " (" + site + ")");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof CheckSkipped s) {
                outcome = Outcome.SKIP;
                message = s.getMessage();
            } else if (c instanceof CheckFailed cf) {
                outcome = Outcome.FAIL;
                message = cf.getMessage();
            } else if (c instanceof FixtureFailed ff) {
                outcome = Outcome.FAIL;
                message = "fixture: " + ff.getMessage();
            } else {
                outcome = Outcome.FAIL;
                message = "error talking to the runtime: " + c;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = Outcome.FAIL;
            message = "interrupted";
        } finally {
            ctx.cleanup();
        }
        return new CheckResult(id, outcome, message, Duration.ofNanos(System.nanoTime() - t0));
    }
}
