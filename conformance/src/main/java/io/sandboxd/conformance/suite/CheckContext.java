package io.sandboxd.conformance.suite;

import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.conformance.client.HttpResult;
import io.sandboxd.conformance.client.ProcessClient;
import io.sandboxd.conformance.client.RawHttpClient;
import io.sandboxd.conformance.client.StartStream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What one check sees: the suite, its own directory under the scratch dir, and streams to clean up. */
public final class CheckContext {
    private final Suite suite;
    private final CheckId id;
    private final List<StartStream> streams = new ArrayList<>();

    public CheckContext(Suite suite, CheckId id) {
        this.suite = suite;
        this.id = id;
    }

    public Suite suite() {
        return suite;
    }

    public RawHttpClient rest() {
        return suite.rest();
    }

    public ProcessClient proc() {
        return suite.process();
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

    /** Writes a fixture file through PUT (parents created); any 2xx is accepted. */
    public void putFixture(String relPath, byte[] content) throws Exception {
        HttpResult r = rest().put(Paths.enc(relPath), content, "Content-Type", "application/octet-stream");
        if (r.status() / 100 != 2) {
            throw new FixtureFailed("fixture PUT " + relPath + " failed: " + r.describe());
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

    /** Starts a stream that is cancelled after the check if it is still open. */
    public StartStream start(ProcessConfig config, PTY pty, Duration deadline) {
        StartStream s = proc().start(config, pty, deadline);
        synchronized (streams) {
            streams.add(s);
        }
        return s;
    }

    public StartStream start(ProcessConfig config) {
        return start(config, null, Duration.ofSeconds(60));
    }

    /** Waits for init or fails with what the stream did instead. */
    public int init(StartStream s) throws InterruptedException {
        int pid = s.awaitInit(Duration.ofSeconds(10));
        if (pid <= 0) {
            throw Expect.fail("Start: expected a first message init{process_id > 0} within 10 s, got " + s.describe());
        }
        return pid;
    }

    /** Waits for the end of the stream or fails. */
    public void end(StartStream s, Duration timeout) throws InterruptedException {
        if (!s.awaitEnd(timeout)) {
            throw Expect.fail("Start: stream did not end within " + timeout.toSeconds() + " s; so far " + s.describe());
        }
    }

    void cleanup() {
        synchronized (streams) {
            for (StartStream s : streams) {
                if (!s.isEnded()) {
                    try {
                        s.cancel();
                    } catch (RuntimeException ignored) {
                        // best effort
                    }
                }
            }
        }
    }
}
