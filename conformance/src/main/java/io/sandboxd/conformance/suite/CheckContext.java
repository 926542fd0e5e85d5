package io.sandboxd.conformance.suite;

import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.client.Command;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.RestCallException;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What one check sees: the suite, its own directory under the scratch dir, and streams to clean up. */
public final class CheckContext {
    private final Suite suite;
    private final CheckId id;
    private final Map<StartRecorder, RemoteProcess> streams = new IdentityHashMap<>();

    public CheckContext(Suite suite, CheckId id) {
        this.suite = suite;
        this.id = id;
    }

    public Suite suite() {
        return suite;
    }

    public Rest rest() {
        return suite.rest();
    }

    /** The client library's view of the runtime: ProcessService calls, which throw on a non-OK status. */
    public SandboxdClient client() {
        return suite.client();
    }

    public SuiteOptions options() {
        return suite.options();
    }

    /** This check's own directory, relative to the root (not created until a fixture needs it). */
    public String dir() {
        return suite.scratch() + "/" + id.id().toLowerCase(Locale.ROOT);
    }

    /** {@code dir()/name}. */
    public String path(String name) {
        return dir() + "/" + name;
    }

    /** Writes a fixture file through PUT (parents created). */
    public void putFixture(String relPath, byte[] content) {
        try {
            suite.client().write(relPath, content);
        } catch (RestCallException e) {
            throw new FixtureFailed("fixture PUT " + relPath + " failed: " + e.getMessage());
        }
    }

    /** Creates this check's directory through Execute (`mkdir -p`) and returns its relative path. */
    public String mkdir() {
        suite.sh("mkdir -p " + Paths.q(dir()));
        return dir();
    }

    public String sh(String script) {
        return suite.sh(script);
    }

    /** Starts a stream, recorded; it is cancelled after the check if it is still open. */
    public StartRecorder start(StartRequest request, Duration deadline) {
        StartRecorder recorder = new StartRecorder();
        RemoteProcess p = client().withStreamDeadline(deadline).start(request, recorder);
        synchronized (streams) {
            streams.put(recorder, p);
        }
        return recorder;
    }

    public StartRecorder start(Command command, Duration deadline) {
        return start(command.toStartRequest(), deadline);
    }

    /** Starts a stream with the suite's default deadline (60 s). */
    public StartRecorder start(Command command) {
        return start(command, Suite.STREAM_DEADLINE);
    }

    /** Cancels a stream this context started (the runtime must then kill the process group). */
    public void cancel(StartRecorder stream) {
        RemoteProcess p;
        synchronized (streams) {
            p = streams.get(stream);
        }
        p.cancel();
    }

    /** Waits for the first message, which must be init with a process id > 0, or fails with what the stream did instead. */
    public int init(StartRecorder s) {
        s.await(r -> r.eventCount() > 0, Duration.ofSeconds(10));
        List<StartRecorder.Event> ev = s.events();
        StartResponse first = ev.isEmpty() ? null : ev.get(0).message();
        int pid = first != null && first.hasInit() ? first.getInit().getProcessId() : 0;
        if (pid <= 0) {
            throw Expect.fail("Start: expected a first message init{process_id > 0} within 10 s, got " + s.describe());
        }
        return pid;
    }

    /** Waits for the end of the stream or fails. */
    public void end(StartRecorder s, Duration timeout) {
        if (!s.awaitEnd(timeout)) {
            throw Expect.fail("Start: stream did not end within " + timeout.toSeconds() + " s; so far " + s.describe());
        }
    }

    void cleanup() {
        synchronized (streams) {
            for (RemoteProcess p : streams.values()) {
                if (!p.isEnded()) {
                    try {
                        p.cancel();
                    } catch (RuntimeException ignored) {
                        // best effort
                    }
                }
            }
        }
    }
}
