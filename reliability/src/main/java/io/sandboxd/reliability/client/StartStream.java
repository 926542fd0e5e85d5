package io.sandboxd.reliability.client;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * One Start stream, collected as it arrives: the init pid, stdout and stderr bytes, the exit
 * code, the final status, and any protocol violation (e.g. an event before init or after exit).
 * With {@code manualFlow} the client requests no message beyond the first until told to, which
 * simulates a client that stops reading.
 */
public final class StartStream implements ClientResponseObserver<StartRequest, StartResponse> {
    private final CompletableFuture<Integer> pid = new CompletableFuture<>();
    private final CompletableFuture<Status> done = new CompletableFuture<>();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final List<String> violations = new ArrayList<>();
    private final boolean manualFlow;
    private boolean keepOutput = true;
    private long stdoutCount;
    private volatile ClientCallStreamObserver<StartRequest> call;
    private Integer exitCode;
    private int events;

    private StartStream(boolean manualFlow) {
        this.manualFlow = manualFlow;
    }

    public static StartStream open(Grpc grpc, StartRequest request, Duration deadline) {
        return open(grpc, request, deadline, false);
    }

    public static StartStream open(Grpc grpc, StartRequest request, Duration deadline, boolean manualFlow) {
        StartStream s = new StartStream(manualFlow);
        grpc.async().withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS).start(request, s);
        return s;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<StartRequest> requestStream) {
        this.call = requestStream;
        if (manualFlow) {
            requestStream.disableAutoRequestWithInitial(1);
        }
    }

    @Override
    public synchronized void onNext(StartResponse r) {
        events++;
        if (exitCode != null) {
            violations.add("event after exit: " + r.getEventCase());
        }
        switch (r.getEventCase()) {
            case INIT -> {
                if (events != 1) {
                    violations.add("init is event #" + events);
                }
                if (r.getInit().getProcessId() <= 0) {
                    violations.add("non-positive process id " + r.getInit().getProcessId());
                }
                pid.complete(r.getInit().getProcessId());
            }
            case STDOUT -> {
                checkAfterInit(r);
                stdoutCount += r.getStdout().size();
                if (keepOutput) {
                    stdout.writeBytes(r.getStdout().toByteArray());
                }
            }
            case STDERR -> {
                checkAfterInit(r);
                stderr.writeBytes(r.getStderr().toByteArray());
            }
            case EXIT -> {
                checkAfterInit(r);
                exitCode = r.getExit().getExitCode();
            }
            default -> violations.add("event without oneof");
        }
        notifyAll();
    }

    private void checkAfterInit(StartResponse r) {
        if (!pid.isDone()) {
            violations.add(r.getEventCase() + " before init");
        }
    }

    @Override
    public void onError(Throwable t) {
        Status s = Status.fromThrowable(t);
        pid.completeExceptionally(s.asRuntimeException());
        done.complete(s);
        synchronized (this) {
            notifyAll();
        }
    }

    @Override
    public void onCompleted() {
        synchronized (this) {
            if (exitCode == null) {
                violations.add("stream ended OK without exit");
            }
            notifyAll();
        }
        pid.complete(-1);
        done.complete(Status.OK);
    }

    /** Asks for {@code n} more messages (manual flow only). */
    public void request(int n) {
        call.request(n);
    }

    public void cancel() {
        call.cancel("client cancelled", null);
    }

    /** @throws io.grpc.StatusRuntimeException if the stream failed before init */
    public int awaitInit(Duration timeout) throws TimeoutException {
        try {
            return pid.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new TimeoutException("no init event within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    public Status awaitDone(Duration timeout) throws TimeoutException {
        try {
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            synchronized (this) {
                throw new TimeoutException("stream not ended within " + timeout + " (pid " + pid.getNow(null)
                        + ", " + events + " events, exit " + exitCode + ", " + stdoutCount + " stdout bytes)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until stdout satisfies {@code test}; false on timeout or end of stream. */
    public synchronized boolean awaitStdout(Predicate<String> test, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!test.test(stdoutText())) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || done.isDone()) {
                return test.test(stdoutText());
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, 100_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    public boolean isDone() {
        return done.isDone();
    }

    public synchronized byte[] stdout() {
        return stdout.toByteArray();
    }

    public synchronized String stdoutText() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    public synchronized String stderrText() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    /** Bytes of stdout received so far, kept or not. */
    public synchronized long stdoutBytes() {
        return stdoutCount;
    }

    /** Stops keeping stdout (it is still counted): for streams that print without end. */
    public synchronized void discardOutput() {
        keepOutput = false;
        stdout.reset();
    }

    public synchronized Integer exitCode() {
        return exitCode;
    }

    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }
}
