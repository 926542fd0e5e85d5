package io.sandboxd.conformance.cli;

import io.grpc.Status;
import io.sandboxd.api.GoDuration;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.client.DaemonUnreachableException;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.conformance.checks.Registry;
import io.sandboxd.conformance.report.ConsoleReport;
import io.sandboxd.conformance.report.JsonReport;
import io.sandboxd.conformance.report.JunitXmlReport;
import io.sandboxd.conformance.report.RunSummary;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckResult;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Outcome;
import io.sandboxd.conformance.suite.Reply;
import io.sandboxd.conformance.suite.Runner;
import io.sandboxd.conformance.suite.Suite;
import io.sandboxd.conformance.suite.SuiteOptions;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The command line of the suite. Exit codes: 0 all selected checks passed, 1 a check failed, 2 usage or connection error. */
@Command(
        name = "sandboxd-conformance",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        versionProvider = ConformanceCommand.Version.class,
        description =
                "Checks a KEP-539.2 runtime (gRPC process.v1.ProcessService + REST /v1 API) against the sandboxd runtime contract "
                        + "(docs/runtime-contract.md), over the network only.",
        exitCodeOnInvalidInput = 2,
        exitCodeOnExecutionException = 2)
public final class ConformanceCommand implements Callable<Integer> {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    @Option(names = "--grpc", paramLabel = "HOST:PORT", description = "gRPC address of the runtime (ProcessService).")
    String grpc;

    @Option(
            names = "--rest",
            paramLabel = "URL",
            description = "Base URL of the runtime's REST API, e.g. http://127.0.0.1:8080.")
    String rest;

    @Option(
            names = "--level",
            defaultValue = "core",
            paramLabel = "core|recommended|extended|all",
            description = "core: [wire] checks only (compatibility); recommended: [ours] checks only; extended: "
                    + "[extended] checks of services beyond upstream's (runtime-contract §4); all: every check. "
                    + "Default ${DEFAULT-VALUE}.")
    String level;

    @Option(
            names = "--only",
            split = ",",
            paramLabel = "ID",
            description = "Run only these check ids (a trailing * matches a prefix, e.g. FS-PUT-*); overrides --level.")
    List<String> only;

    @Option(
            names = "--report-dir",
            paramLabel = "DIR",
            description = "Write conformance-junit.xml and conformance-report.json here.")
    Path reportDir;

    @Option(
            names = "--token",
            paramLabel = "T",
            description = "Bearer token the runtime requires; also enables the AUTH-* checks. Visible in the process"
                    + " list: prefer --token-file or the environment (SANDBOXD_AUTH_TOKEN_FILE, SANDBOXD_AUTH_TOKEN).")
    String token;

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description = "File holding the token (as the daemon's --auth-token-file; env SANDBOXD_AUTH_TOKEN_FILE).")
    Path tokenFile;

    private Map<String, String> env = System.getenv();

    @Option(
            names = "--stream-chunk-size",
            paramLabel = "N",
            description = "The runtime's configured --stream-chunk-size; enables PROC-START-008.")
    Integer streamChunkSize;

    @Option(
            names = "--execute-output-limit",
            paramLabel = "N",
            defaultValue = "1048576",
            description = "The runtime's configured --execute-output-limit (default ${DEFAULT-VALUE}).")
    int executeOutputLimit;

    @Option(
            names = "--metadata-env-prefix",
            paramLabel = "P",
            defaultValue = "SANDBOX_",
            description = "The runtime's configured --metadata-env-prefix (default ${DEFAULT-VALUE}).")
    String metadataEnvPrefix;

    @Option(
            names = "--attach-heartbeat",
            paramLabel = "DURATION",
            description = "The runtime's configured --attach-heartbeat, e.g. 1s; enables DUR-ATTACH-006.")
    String attachHeartbeat;

    @Option(
            names = "--allow-root-wipe",
            description = "Run FS-DEL-008, which deletes everything under the runtime's root (last check).")
    boolean allowRootWipe;

    @Option(names = "--list", description = "Print every check (id, level, section, statement) and exit.")
    boolean list;

    private PrintStream out;
    private PrintStream err;

    public static int execute(String[] args, PrintStream out, PrintStream err) {
        return execute(args, System.getenv(), out, err);
    }

    /** As {@link #execute(String[], PrintStream, PrintStream)}, with the environment given (tests). */
    public static int execute(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        ConformanceCommand cmd = new ConformanceCommand();
        cmd.env = env;
        cmd.out = out;
        cmd.err = err;
        CommandLine cl = new CommandLine(cmd);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            for (CheckId c : CheckId.values()) {
                out.printf("%-15s %-11s §%-4s %s%n", c.id(), c.level().label(), c.section(), c.statement());
            }
            return OK;
        }
        if (grpc == null || rest == null) {
            return usage("both --grpc HOST:PORT and --rest URL are required");
        }
        if (!List.of("core", "recommended", "extended", "all").contains(level)) {
            return usage("--level must be core, recommended, extended or all (got \"" + level + "\")");
        }
        Optional<Duration> heartbeat;
        try {
            heartbeat = attachHeartbeat == null ? Optional.empty() : Optional.of(GoDuration.parse(attachHeartbeat));
        } catch (IllegalArgumentException e) {
            return usage("--attach-heartbeat: " + e.getMessage());
        }
        URI restUri;
        try {
            restUri = URI.create(rest);
            if (restUri.getHost() == null
                    || !(List.of("http", "https").contains(String.valueOf(restUri.getScheme())))) {
                return usage("--rest must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:8080 (got \""
                        + rest + "\")");
            }
        } catch (IllegalArgumentException e) {
            return usage("--rest is not a URL: " + e.getMessage());
        }
        if (!grpc.matches("[^/\\s]+:\\d+")) {
            return usage("--grpc must be HOST:PORT, e.g. 127.0.0.1:9090 (got \"" + grpc + "\")");
        }
        List<CheckId> selected;
        try {
            selected = Selection.select(level, only);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        String resolvedToken;
        try {
            resolvedToken = resolveToken();
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        if (reportDir != null) {
            Files.createDirectories(reportDir);
        }
        SuiteOptions options = new SuiteOptions(
                grpc,
                restUri,
                resolvedToken,
                streamChunkSize == null ? OptionalInt.empty() : OptionalInt.of(streamChunkSize),
                executeOutputLimit,
                metadataEnvPrefix,
                allowRootWipe,
                heartbeat);
        try (Suite suite = new Suite(options)) {
            String unreachable = preflight(suite);
            if (unreachable != null) {
                err.println("sandboxd-conformance: " + unreachable);
                return USAGE;
            }
            String selection =
                    only != null && !only.isEmpty() ? "--only " + String.join(",", only) : "--level " + level;
            // stdout carries only the per-check lines and the totals; this goes to stderr.
            err.println("sandboxd-conformance: " + selected.size() + " checks (" + selection + ") against gRPC " + grpc
                    + ", REST " + rest + "; scratch directory " + suite.scratch());
            try {
                suite.createScratch();
            } catch (RuntimeException e) {
                err.println(
                        "sandboxd-conformance: warning: " + e.getMessage() + " (checks needing fixtures will fail)");
            }
            // Interrupted (Ctrl-C)? Still remove the scratch directory from the runtime.
            Thread cleanup = new Thread(suite::removeScratch, "conformance-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            Instant started = Instant.now();
            long t0 = System.nanoTime();
            List<CheckResult> results =
                    new Runner(suite, Registry.all()).run(selected, r -> out.println(ConsoleReport.line(r)));
            Runtime.getRuntime().removeShutdownHook(cleanup);
            String warning = suite.removeScratch();
            if (warning != null) {
                err.println("sandboxd-conformance: warning: " + warning);
            }
            RunSummary run =
                    new RunSummary(grpc, rest, selection, started, Duration.ofNanos(System.nanoTime() - t0), results);
            out.println(run.line());
            if (reportDir != null) {
                JunitXmlReport.write(run, reportDir.resolve("conformance-junit.xml"));
                JsonReport.write(run, reportDir.resolve("conformance-report.json"));
            }
            return run.count(Outcome.FAIL) == 0 ? OK : FAILED;
        }
    }

    /** --token, else --token-file, else SANDBOXD_AUTH_TOKEN_FILE, else SANDBOXD_AUTH_TOKEN; null for none. */
    private String resolveToken() {
        if (token != null) {
            return token;
        }
        String file = tokenFile != null ? tokenFile.toString() : env.get("SANDBOXD_AUTH_TOKEN_FILE");
        if (file != null) {
            String t;
            try {
                t = Files.readString(Path.of(file), java.nio.charset.StandardCharsets.UTF_8)
                        .strip();
            } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                throw new IllegalArgumentException("the token file \"" + file + "\" cannot be read");
            }
            if (t.isEmpty()) {
                throw new IllegalArgumentException("the token file \"" + file + "\" is empty");
            }
            return t;
        }
        String fromEnv = env.get("SANDBOXD_AUTH_TOKEN");
        return fromEnv == null || fromEnv.isBlank() ? null : fromEnv.strip();
    }

    private int usage(String message) {
        err.println("sandboxd-conformance: " + message);
        err.println(
                "usage: java -jar sandboxd-conformance.jar --grpc HOST:PORT --rest http://HOST:PORT [--level core|recommended|extended|all] "
                        + "[--report-dir DIR] [--token T] [--only ID,...]   (--help for all options)");
        return USAGE;
    }

    /** Null when both endpoints answer; else a message saying which one does not and why. */
    static String preflight(Suite suite) {
        try {
            Reply r = suite.rest().get("/v1/health");
            if (r.status() <= 0) {
                return "the REST endpoint " + suite.options().restBase() + " did not answer HTTP";
            }
        } catch (Exception e) {
            return "cannot reach the REST API at " + suite.options().restBase() + ": " + e.getMessage()
                    + " (is the runtime running and the port forwarded?)";
        }
        String tokenHint = suite.options().token() == null
                ? "it requires a token: give --token-file FILE (or SANDBOXD_AUTH_TOKEN_FILE / SANDBOXD_AUTH_TOKEN)"
                : "the token given was refused";
        try {
            Reply r = suite.rest().get("/v1/metadata");
            if (r.status() == 401) {
                return "the runtime answered 401 Unauthorized to GET /v1/metadata: " + tokenHint;
            }
        } catch (Exception e) {
            return "cannot reach the REST API at " + suite.options().restBase() + ": " + e.getMessage();
        }
        String hint =
                " (is the runtime running and the port forwarded? --grpc takes HOST:PORT of the plaintext HTTP/2 port)";
        String target = suite.options().grpcTarget();
        try {
            suite.client()
                    .withCallTimeout(Duration.ofSeconds(15))
                    .writeStdin(WriteStdinRequest.newBuilder()
                            .setProcessId(2_000_000_007)
                            .build());
        } catch (DaemonUnreachableException e) {
            // "cannot reach sandboxd gRPC at HOST:PORT: connection refused": keep the reason
            String m = String.valueOf(e.getMessage());
            int at = m.indexOf(e.address() + ": ");
            return "cannot reach the gRPC ProcessService at " + target + ": "
                    + (at >= 0 ? m.substring(at + e.address().length() + 2) : m) + hint;
        } catch (GrpcCallException e) {
            Status.Code c = e.code();
            if (c == Status.Code.UNAUTHENTICATED) {
                return "the gRPC ProcessService at " + target + " answered UNAUTHENTICATED: " + tokenHint;
            }
            if (c == Status.Code.UNAVAILABLE || c == Status.Code.DEADLINE_EXCEEDED) {
                return "cannot reach the gRPC ProcessService at " + target + ": " + Expect.describe(e.status()) + hint;
            }
        }
        return null;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = ConformanceCommand.class.getPackage().getImplementationVersion();
            return new String[] {"sandboxd-conformance " + (v == null ? "dev" : v)};
        }
    }
}
