package io.sandboxd.client;

import io.sandboxd.api.process.v1.PTY;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How to start a durable process: a tag (unique among live processes), detach (it outlives the
 * starting stream), a server-side timeout, retention bytes per stream, a PTY size. Immutable;
 * each method returns a copy.
 */
public final class DurableOptions {
    private final String tag;
    private final boolean detach;
    private final Duration timeout;
    private final long retentionBytes;
    private final PTY pty;

    private DurableOptions(String tag, boolean detach, Duration timeout, long retentionBytes, PTY pty) {
        this.tag = tag;
        this.detach = detach;
        this.timeout = timeout;
        this.retentionBytes = retentionBytes;
        this.pty = pty;
    }

    /** No tag, not detached, no timeout, the daemon's retention, the command's own PTY setting. */
    public static DurableOptions defaults() {
        return new DurableOptions(null, false, null, 0, null);
    }

    /** Detached: the usual way to start one. */
    public static DurableOptions detached() {
        return defaults().detach(true);
    }

    public DurableOptions tag(String tag) {
        return new DurableOptions(tag == null || tag.isEmpty() ? null : tag, detach, timeout, retentionBytes, pty);
    }

    public DurableOptions detach(boolean detach) {
        return new DurableOptions(tag, detach, timeout, retentionBytes, pty);
    }

    /** Server-side deadline (null or zero: none): SIGTERM to the tree, a grace, then SIGKILL. */
    public DurableOptions timeout(Duration timeout) {
        if (timeout != null && (timeout.isNegative() || (!timeout.isZero() && timeout.toMillis() == 0))) {
            throw new IllegalArgumentException("timeout must be 0 (none) or at least 1 ms, got " + timeout);
        }
        return new DurableOptions(
                tag, detach, timeout == null || timeout.isZero() ? null : timeout, retentionBytes, pty);
    }

    /** Bytes retained per stream (0: the daemon's default; the daemon caps it). */
    public DurableOptions retentionBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("retentionBytes must be >= 0, got " + bytes);
        }
        return new DurableOptions(tag, detach, timeout, bytes, pty);
    }

    /** A pseudo-terminal of this size (overrides the command's {@link Command#tty}). */
    public DurableOptions pty(int cols, int rows) {
        return new DurableOptions(
                tag,
                detach,
                timeout,
                retentionBytes,
                PTY.newBuilder().setCols(cols).setRows(rows).build());
    }

    public Optional<String> tag() {
        return Optional.ofNullable(tag);
    }

    public boolean detach() {
        return detach;
    }

    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    public long retentionBytes() {
        return retentionBytes;
    }

    public Optional<PTY> pty() {
        return Optional.ofNullable(pty);
    }

    /** The wire request for {@code command} with these options. */
    public io.sandboxd.api.durable.v1alpha1.StartRequest toStartRequest(Command command) {
        Objects.requireNonNull(command);
        io.sandboxd.api.durable.v1alpha1.StartRequest.Builder b =
                io.sandboxd.api.durable.v1alpha1.StartRequest.newBuilder()
                        .setConfig(command.toConfig())
                        .setDetach(detach)
                        .setRetentionBytes(retentionBytes);
        if (tag != null) {
            b.setTag(tag);
        }
        if (timeout != null) {
            b.setTimeoutMillis(timeout.toMillis());
        }
        PTY p = pty != null ? pty : command.pty().orElse(null);
        if (p != null) {
            b.setPty(p);
        }
        return b.build();
    }
}
