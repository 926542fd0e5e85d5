package io.sandboxd.conformance.suite;

import io.grpc.Status;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.RestCallException;
import io.sandboxd.client.SandboxdClient;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The shared state of one run: the client library's view of the runtime (gRPC calls and the
 * fixtures' REST calls), the raw REST side the checks examine, the scratch directory every fixture
 * lives in, and facts about the runtime learned once through its own API (root path, environment,
 * uid).
 */
public final class Suite implements AutoCloseable {
    /** Unary calls: the bound every call had before the suite used the client library. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** Start streams (unless a check sets its own) and fixture uploads. */
    static final Duration STREAM_DEADLINE = Duration.ofSeconds(60);

    private final SuiteOptions options;
    private final Rest rest;
    private final SandboxdClient client;
    private final String scratch;
    private String rootAbs;
    private Map<String, String> daemonEnv;
    private String uid;

    public Suite(SuiteOptions options) {
        this.options = options;
        this.rest = new Rest(options.restBase(), options.token(), CALL_TIMEOUT);
        this.client = SandboxdClient.builder()
                .grpcTarget(options.grpcTarget())
                .restBase(options.restBase().toString())
                .token(options.token())
                .callTimeout(CALL_TIMEOUT)
                .streamDeadline(STREAM_DEADLINE)
                .build();
        byte[] r = new byte[4];
        new SecureRandom().nextBytes(r);
        this.scratch = "conformance-" + HexFormat.of().formatHex(r);
    }

    public SuiteOptions options() {
        return options;
    }

    public Rest rest() {
        return rest;
    }

    public SandboxdClient client() {
        return client;
    }

    /** Relative path (from the runtime's root) of this run's scratch directory. */
    public String scratch() {
        return scratch;
    }

    /** Creates the scratch directory through REST (PUT creates parents), tolerating any 2xx. */
    public void createScratch() {
        try {
            client.write(scratch + "/.created-by-conformance", new byte[0]);
        } catch (RestCallException e) {
            throw new FixtureFailed("cannot create the scratch directory " + scratch + ": " + e.getMessage());
        }
        try {
            client.delete(scratch + "/.created-by-conformance");
        } catch (RestCallException e) {
            // the marker stays; the scratch directory exists, which is what counts
        }
    }

    /** Removes the scratch directory (recursive DELETE); returns a warning or null. */
    public String removeScratch() {
        try {
            // Undo permission fixtures first so a non-root runtime can delete everything (whatever it answers).
            Expect.statusOf(() -> client.withCallTimeout(Duration.ofSeconds(20))
                    .execute(Command.shell("chmod -R u+rwx " + Paths.q(scratch) + " 2>/dev/null; true")));
            client.delete(scratch, true);
            return null;
        } catch (RestCallException e) {
            return e.httpStatus() == 404
                    ? null
                    : "could not remove scratch directory " + scratch + ": " + e.getMessage();
        } catch (Exception e) {
            return "could not remove scratch directory " + scratch + ": " + e;
        }
    }

    /** Runs {@code sh -c script} in the root; fixture failure unless it exits 0. Returns stdout. */
    public String sh(String script) {
        AtomicReference<ExecResult> result = new AtomicReference<>();
        Status s = Expect.statusOf(() -> result.set(client.execute(Command.shell(script))));
        if (!s.isOk()) {
            throw new FixtureFailed("fixture command `" + script + "` failed: Execute returned " + Expect.describe(s));
        }
        ExecResult r = result.get();
        if (r.exitCode() != 0) {
            throw new FixtureFailed("fixture command `" + script + "` exited " + r.exitCode() + ", stderr "
                    + Expect.excerpt(r.stderr().toByteArray(), 200));
        }
        return r.stdout().toString(StandardCharsets.UTF_8);
    }

    /** The root's absolute real path as processes see it (Execute `pwd -P` without cwd). */
    public synchronized String rootAbs() {
        if (rootAbs == null) {
            rootAbs = sh("pwd -P").strip();
        }
        return rootAbs;
    }

    /** The daemon's environment, as an Execute child without env_vars inherits it. */
    public synchronized Map<String, String> daemonEnv() {
        if (daemonEnv == null) {
            String out = sh("env -0");
            Map<String, String> env = new LinkedHashMap<>();
            for (String kv : out.split("\0")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            daemonEnv = env;
        }
        return daemonEnv;
    }

    public synchronized String uid() {
        if (uid == null) {
            uid = sh("id -u").strip();
        }
        return uid;
    }

    /** True when the OS process {@code pid} is gone or a zombie, as seen from inside the runtime. */
    public boolean processGone(long pid) {
        String out = sh("if [ -r /proc/" + pid + "/stat ]; then read -r a b c rest < /proc/" + pid
                        + "/stat 2>/dev/null && echo \"$c\" || echo gone; else echo gone; fi")
                .strip();
        return out.equals("gone") || out.equals("Z") || out.equals("X");
    }

    /** Polls {@link #processGone} until true or the timeout passes. */
    public boolean awaitGone(long pid, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (processGone(pid)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
