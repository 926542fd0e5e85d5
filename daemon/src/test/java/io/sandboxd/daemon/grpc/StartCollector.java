package io.sandboxd.daemon.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.StartResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** Records a Start stream's events and its final status. */
final class StartCollector implements StreamObserver<StartResponse> {
    final List<StartResponse> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Integer> processId = new CompletableFuture<>();
    final CompletableFuture<Status> status = new CompletableFuture<>();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @Override
    public void onNext(StartResponse value) {
        events.add(value);
        switch (value.getEventCase()) {
            case INIT -> processId.complete(value.getInit().getProcessId());
            case STDOUT -> {
                synchronized (stdout) {
                    stdout.writeBytes(value.getStdout().toByteArray());
                }
            }
            case STDERR -> {
                synchronized (stderr) {
                    stderr.writeBytes(value.getStderr().toByteArray());
                }
            }
            default -> {}
        }
    }

    @Override
    public void onError(Throwable t) {
        status.complete(Status.fromThrowable(t));
        processId.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
        status.complete(Status.OK);
    }

    int pid() throws Exception {
        return processId.get(30, TimeUnit.SECONDS);
    }

    Status await() throws Exception {
        return status.get(60, TimeUnit.SECONDS);
    }

    String stdout() {
        synchronized (stdout) {
            return stdout.toString(StandardCharsets.UTF_8);
        }
    }

    String stderr() {
        synchronized (stderr) {
            return stderr.toString(StandardCharsets.UTF_8);
        }
    }

    /** @return the exit code of the final event (asserting it is the last one) */
    int exitCode() {
        StartResponse last = events.get(events.size() - 1);
        if (last.getEventCase() != StartResponse.EventCase.EXIT) {
            throw new AssertionError("last event is " + last.getEventCase());
        }
        return last.getExit().getExitCode();
    }
}
