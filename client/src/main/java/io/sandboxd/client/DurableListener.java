package io.sandboxd.client;

import io.grpc.Metadata;
import io.grpc.Status;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;

/**
 * Push-mode consumer of a durable Start or Attach stream. Called on a gRPC thread, one event at
 * a time; the next event is asked for only when {@link #onEvent} returns (flow control), and a
 * throw cancels the stream (the attach only; a detached process keeps running).
 */
public interface DurableListener {
    /** An event: started, output (stream, offset, bytes), gap, heartbeat or exit. */
    void onEvent(AttachEvent event);

    /** The stream ended: OK after the exit record, else the failure (NOT_FOUND, OUT_OF_RANGE, …). */
    default void onEnd(Status status, Metadata trailers) {}
}
