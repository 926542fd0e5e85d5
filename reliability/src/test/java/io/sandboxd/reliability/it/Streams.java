package io.sandboxd.reliability.it;

import io.grpc.Status;
import io.sandboxd.client.StartRecorder;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/** Waits on recorded Start streams, failing with what arrived when they take too long. */
final class Streams {
    private Streams() {}

    /** The process id of the init event. @throws TimeoutException if none came (the stream may have failed first) */
    static int pid(StartRecorder r, Duration timeout) throws TimeoutException {
        return r.awaitInit(timeout)
                .orElseThrow(() -> new TimeoutException("no init event within " + timeout + ": " + r.describe()));
    }

    /** The stream's final status. @throws TimeoutException if it has not ended within {@code timeout} */
    static Status ended(StartRecorder r, Duration timeout) throws TimeoutException {
        if (!r.awaitEnd(timeout)) {
            throw new TimeoutException("stream not ended within " + timeout + ": " + r.describe());
        }
        return r.status();
    }
}
