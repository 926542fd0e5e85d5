package io.sandboxd.client;

import com.google.protobuf.ByteString;
import io.grpc.Metadata;
import io.sandboxd.api.process.v1.ExecuteResponse;
import java.nio.charset.StandardCharsets;

/**
 * The outcome of an Execute: exit code (128+N after death by signal N), stdout and stderr as kept
 * by the daemon (head and tail beyond {@code --execute-output-limit}), how many bytes it dropped
 * from the middle of each (trailers {@code sandboxd-stdout-truncated-bytes} /
 * {@code sandboxd-stderr-truncated-bytes}), and the response headers and trailers.
 */
public final class ExecResult {
    static final Metadata.Key<String> STDOUT_TRUNCATED =
            Metadata.Key.of("sandboxd-stdout-truncated-bytes", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> STDERR_TRUNCATED =
            Metadata.Key.of("sandboxd-stderr-truncated-bytes", Metadata.ASCII_STRING_MARSHALLER);

    private final ExecuteResponse response;
    private final Metadata headers;
    private final Metadata trailers;

    ExecResult(ExecuteResponse response, Metadata headers, Metadata trailers) {
        this.response = response;
        this.headers = headers == null ? new Metadata() : headers;
        this.trailers = trailers == null ? new Metadata() : trailers;
    }

    public int exitCode() {
        return response.getExitCode();
    }

    public ByteString stdout() {
        return response.getStdout();
    }

    public ByteString stderr() {
        return response.getStderr();
    }

    public String stdoutText() {
        return response.getStdout().toString(StandardCharsets.UTF_8);
    }

    public String stderrText() {
        return response.getStderr().toString(StandardCharsets.UTF_8);
    }

    /** Bytes of stdout the daemon dropped (0 when none, or when the runtime does not say). */
    public long stdoutTruncatedBytes() {
        return count(STDOUT_TRUNCATED);
    }

    public long stderrTruncatedBytes() {
        return count(STDERR_TRUNCATED);
    }

    public ExecuteResponse response() {
        return response;
    }

    public Metadata headers() {
        return headers;
    }

    public Metadata trailers() {
        return trailers;
    }

    private long count(Metadata.Key<String> key) {
        String v = trailers.get(key);
        try {
            return v == null ? 0 : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public String toString() {
        return "exit " + exitCode() + ", stdout " + stdout().size() + " bytes, stderr " + stderr().size() + " bytes";
    }
}
