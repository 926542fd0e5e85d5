package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.daemon.security.JvmAttach;
import io.sandboxd.daemon.security.Prctl;
import io.sandboxd.logging.LogLevel;
import io.sandboxd.logging.LogSetup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/** Entry point: parse, validate (exit 2 on a bad value), run until SIGTERM/SIGINT, exit 0. */
public final class Main {
    public static final int EXIT_USAGE = 2;

    private Main() {}

    public static void main(String[] args) {
        // Before anything reads the token: from here on no process of the sandbox (same uid by
        // default) can read it from /proc/<pid>/environ or mem, or ptrace the daemon.
        Prctl.makeNonDumpable();
        defaultSystemProperties();
        StartupPreloader preloader = wantsHelpOrVersion(args) ? StartupPreloader.none() : StartupPreloader.start();
        System.exit(run(args, System.getenv(), preloader));
    }

    /** Library settings the daemon wants unless the operator set them (-D wins). */
    static void defaultSystemProperties() {
        // Netty 4.2 registers its buffer-allocator JFR event types when the JDK has JFR, even with
        // no recording running: ~50 ms of the first call and ~1.7 MiB of JFR metadata classes.
        setDefault("io.netty.jfr.enabled", "false");
        // Netty's default leak detector records a stack trace for one buffer in 128 (a full stack
        // walk on the request path); a debugging aid, opt-in with -Dio.netty.leakDetection.level.
        setDefault("io.netty.leakDetection.level", "disabled");
        // The gRPC server's connections use Netty's unpooled allocator (GrpcServer); so that
        // grpc-java does not also build its own pooled allocator at start (its arenas serve the
        // listening channel) and Netty's default is unpooled for anything else: RSS with 500 live
        // Start streams 91.3 -> 90.5 MiB (bench, issue 22, 3 interleaved runs each).
        setDefault("io.netty.allocator.type", "unpooled");
        JettyTuning.skipPlatformMBeanServer();
    }

    static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** --help/--version print and exit: no warm-up for them. */
    static boolean wantsHelpOrVersion(String[] args) {
        for (String a : args) {
            if (a.equals("-h") || a.equals("--help") || a.equals("-V") || a.equals("--version")) {
                return true;
            }
        }
        return false;
    }

    /** Outcome of parsing: a config to run, or an exit code (help/version: 0, bad value: 2). */
    record Parsed(
            DaemonConfig config,
            io.sandboxd.daemon.config.DurableConfig durable,
            io.sandboxd.daemon.code.CodeSettings code,
            io.sandboxd.daemon.fs.ArchiveLimits archives,
            io.sandboxd.daemon.fs.watch.WatchSettings watch,
            LogLevel logLevel,
            int exitCode) {
        Parsed(DaemonConfig config, int exitCode) {
            this(config, null, null, null, null, null, exitCode);
        }
    }

    static Parsed parse(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        SandboxdCommand options = new SandboxdCommand();
        CommandLine cmd = new CommandLine(options);
        SandboxdCommand.UPSTREAM_ONLY.addTo(cmd.getCommandSpec());
        cmd.setDefaultValueProvider(new EnvDefaults(env));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        try {
            CommandLine.ParseResult parsed = cmd.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) {
                return new Parsed(null, 0);
            }
            DaemonConfig config = options.toConfig(cmd, env);
            LogLevel logLevel = options.logLevel(cmd);
            if (!parsed.hasMatchedOption("--root-dir") && !env.containsKey(EnvDefaults.variableFor("--root-dir"))) {
                err.println("sandboxd: no --root-dir (or SANDBOXD_ROOT_DIR) given: using " + config.rootDir());
            }
            for (String warning : SandboxdCommand.UPSTREAM_ONLY.warnings(parsed)) {
                err.println("sandboxd: " + warning);
            }
            err.flush();
            return new Parsed(
                    config,
                    options.toDurableConfig(cmd, config.rootDir()),
                    options.toCodeSettings(cmd),
                    options.toArchiveLimits(cmd),
                    options.watch.toSettings(cmd, config.httpIdleTimeout()),
                    logLevel,
                    0);
        } catch (CommandLine.ParameterException e) {
            err.println("sandboxd: " + oneLine(e.getMessage()) + " (see --help)");
            err.flush();
            return new Parsed(null, EXIT_USAGE);
        }
    }

    static int run(String[] args, Map<String, String> env, StartupPreloader preloader) {
        // The log format is a flag: what parsing says waits until the format is known. A usage
        // error (no config) is printed as the plain text it is.
        ByteArrayOutputStream parseNotes = new ByteArrayOutputStream();
        Parsed p = parse(args, env, System.out, new PrintStream(parseNotes, true, StandardCharsets.UTF_8));
        if (p.config() == null) {
            System.err.print(parseNotes.toString(StandardCharsets.UTF_8));
            System.err.flush();
            return p.exitCode();
        }
        // after the warm-up, which initialised logback on its thread: never two threads at once
        io.sandboxd.daemon.metrics.Metrics metrics = preloader.metrics();
        LogSetup.install(p.config().logFormat(), p.logLevel());
        Logger log = LoggerFactory.getLogger(LogSetup.DAEMON);
        parseNotes.toString(StandardCharsets.UTF_8).lines().forEach(log::warn);
        if (p.config().runAs().inherits() && !JvmAttach.runningAsRoot()) {
            JvmAttach.refuseSameUserAttach(); // the children share our uid: no jcmd/attach for them
        }
        ShutdownSignals signals = ShutdownSignals.install();
        Daemon daemon;
        try {
            daemon =
                    new Daemon(p.config(), p.durable(), p.code(), p.archives(), p.watch(), metrics, RequestLog.slf4j());
        } catch (java.io.UncheckedIOException e) {
            log.error("sandboxd: failed to start: {}", oneLine(String.valueOf(e.getMessage())));
            return 1;
        }
        try {
            daemon.start();
        } catch (Exception e) {
            log.error("sandboxd: failed to start: {}", oneLine(String.valueOf(e.getMessage())));
            daemon.shutdown();
            return 1;
        }
        DaemonConfig c = p.config();
        String auth = c.authToken().isPresent() ? "on" : "off";
        String runAs = c.runAs().inherits() ? "daemon-user" : c.runAs().toString();
        log.atInfo()
                .addKeyValue("listen_host", c.listenHost())
                .addKeyValue("rest_port", daemon.restPort())
                .addKeyValue("grpc_port", daemon.grpcPort())
                .addKeyValue("root", c.rootDir().toString())
                .addKeyValue("auth", auth)
                .addKeyValue("processes_run_as", runAs)
                .log("sandboxd: listening rest=" + c.listenHost() + ":" + daemon.restPort() + " grpc="
                        + c.listenHost() + ":" + daemon.grpcPort() + " root=" + c.rootDir() + " auth=" + auth
                        + " processes-run-as=" + runAs);
        signals.onTermination(() -> {
            log.info("sandboxd: stopping (signal received)");
            daemon.shutdown();
        });
        daemon.awaitTermination();
        log.info("sandboxd: stopped");
        return 0;
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ').strip();
    }
}
