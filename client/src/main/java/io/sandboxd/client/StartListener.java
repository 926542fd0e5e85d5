package io.sandboxd.client;

import com.google.protobuf.ByteString;
import io.grpc.Metadata;
import io.grpc.Status;
import io.sandboxd.api.process.v1.StartResponse;

/**
 * Receives a Start stream's events, one at a time and in order, on a gRPC thread. The next
 * message is requested from the daemon only when a callback returns, so a slow listener slows
 * the stream (and, through the pipe, the process) instead of filling memory. A callback that
 * throws cancels the stream. Override {@link #onEvent} to see every message as sent (also one
 * with no event set), or the typed callbacks it dispatches to.
 */
public interface StartListener {
    default void onEvent(StartResponse event) {
        switch (event.getEventCase()) {
            case INIT -> onInit(event.getInit().getProcessId());
            case STDOUT -> onStdout(event.getStdout());
            case STDERR -> onStderr(event.getStderr());
            case EXIT -> onExit(event.getExit().getExitCode());
            default -> {}
        }
    }

    default void onInit(int processId) {}

    default void onStdout(ByteString data) {}

    default void onStderr(ByteString data) {}

    /** The exit code: the process's own, or 128+N after death by signal N. */
    default void onExit(int exitCode) {}

    /** The last call: the stream's status (OK after the exit event) and its trailers. */
    default void onEnd(Status status, Metadata trailers) {}
}
