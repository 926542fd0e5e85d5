package io.sandboxd.conformance.suite;

import io.grpc.Status;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.conformance.client.GrpcResult;
import io.sandboxd.conformance.client.HttpResult;
import io.sandboxd.conformance.client.ProcessClient;
import io.sandboxd.conformance.client.RawHttpClient;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shared state of one run: the two clients, the scratch directory every fixture lives in, and
 * facts about the runtime learned once through its own API (root path, environment, uid).
 */
public final class Suite implements AutoCloseable {
    private final SuiteOptions options;
    private final RawHttpClient rest;
    private final ProcessClient process;
    private final String scratch;
    private String rootAbs;
    private Map<String, String> daemonEnv;
    private String uid;

    public Suite(SuiteOptions options) {
        this.options = options;
        this.rest = new RawHttpClient(options.restBase(), options.token(), 30_000);
        this.process = new ProcessClient(options.grpcTarget(), options.token());
        byte[] r = new byte[4];
        new SecureRandom().nextBytes(r);
        this.scratch = "conformance-" + HexFormat.of().formatHex(r);
    }

    public SuiteOptions options() {
        return options;
    }

    public RawHttpClient rest() {
        return rest;
    }

    public ProcessClient process() {
        return process;
    }

    /** Relative path (from the runtime's root) of this run's scratch directory. */
    public String scratch() {
        return scratch;
    }

    /** Creates the scratch directory through REST (PUT creates parents), tolerating any 2xx. */
    public void createScratch() throws Exception {
        HttpResult put = rest.put(Paths.enc(scratch + "/.created-by-conformance"), new byte[0]);
        if (put.status() / 100 != 2) {
            throw new FixtureFailed("cannot create the scratch directory " + scratch + ": " + put.describe());
        }
        rest.delete(Paths.enc(scratch + "/.created-by-conformance"));
    }

    /** Removes the scratch directory (recursive DELETE); returns a warning or null. */
    public String removeScratch() {
        try {
            // Undo permission fixtures first so a non-root runtime can delete everything.
            process.execute(ProcessClient.sh("chmod -R u+rwx " + Paths.q(scratch) + " 2>/dev/null; true"), Duration.ofSeconds(20));
            HttpResult r = rest.delete(Paths.enc(scratch) + "?recursive=true");
            if (r.status() / 100 != 2 && r.status() != 404) {
                return "could not remove scratch directory " + scratch + ": " + r.describe();
            }
            return null;
        } catch (Exception e) {
            return "could not remove scratch directory " + scratch + ": " + e;
        }
    }

    /** Runs {@code sh -c script} in the root; fixture failure unless it exits 0. Returns stdout. */
    public String sh(String script) {
        GrpcResult<ExecuteResponse> r = process.execute(ProcessClient.sh(script), Duration.ofSeconds(30));
        if (!r.ok()) {
            throw new FixtureFailed("fixture command `" + script + "` failed: Execute returned " + r.describe());
        }
        if (r.value().getExitCode() != 0) {
            throw new FixtureFailed("fixture command `" + script + "` exited " + r.value().getExitCode() + ", stderr "
                    + io.sandboxd.conformance.client.Bytes.excerpt(r.value().getStderr().toByteArray(), 200));
        }
        return r.value().getStdout().toString(StandardCharsets.UTF_8);
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
                + "/stat 2>/dev/null && echo \"$c\" || echo gone; else echo gone; fi").strip();
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

    public static boolean isUnavailable(Status s) {
        return s.getCode() == Status.Code.UNAVAILABLE;
    }

    @Override
    public void close() {
        process.close();
    }
}
