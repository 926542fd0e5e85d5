package io.sandboxd.reliability.it;

import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.time.Duration;

/**
 * One request on its own connection to a daemon's REST port, the whole response read: for the
 * assertions on an exact status or header (the client library folds a status into success or an
 * exception). The target goes as written, e.g. {@code /v1/files/dir/f.txt}.
 */
final class Http {
    private Http() {}

    static RawResponse exchange(RunningDaemon daemon, RawRequest request) throws IOException {
        return RawHttp.exchange("127.0.0.1", daemon.restPort(), request, Duration.ofSeconds(60));
    }

    /** A file upload as the SDKs send it: raw bytes, {@code Content-Type: application/octet-stream}. */
    static RawRequest put(String target, byte[] content) {
        return RawRequest.put(target, content).header("Content-Type", "application/octet-stream");
    }
}
