package io.sandboxd.client.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The CLI as users run it: {@code java -jar target/sandboxd-cli.jar ARGS} in its own process, with
 * an environment free of the developer's {@code SANDBOXD_*} variables, chosen stdin, captured
 * stdout and stderr, and the exit code.
 */
final class CliProcess {
    record Result(int exitCode, byte[] stdoutBytes, String stderr) {
        String stdout() {
            return new String(stdoutBytes, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "exit " + exitCode + ", stdout " + excerpt(stdout()) + ", stderr " + excerpt(stderr);
        }

        private static String excerpt(String s) {
            return "\"" + (s.length() > 600 ? s.substring(0, 600) + "..." : s) + "\"";
        }
    }

    private final List<String> args;
    private final List<String> jvm = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    private final Map<String, String> env = new LinkedHashMap<>();
    private byte[] stdin = new byte[0];
    private Path stdinFile;
    private Path dir;
    private Path stdoutFile;
    private Duration timeout = Duration.ofSeconds(60);

    private CliProcess(List<String> args) {
        this.args = args;
    }

    static CliProcess cli(String... args) {
        return new CliProcess(List.of(args));
    }

    static Path jar() {
        String p = System.getProperty("sandboxd.cli.jar");
        if (p == null || !Files.isRegularFile(Path.of(p))) {
            throw new IllegalStateException("sandboxd.cli.jar not built: " + p + " (run through ./mvnw verify)");
        }
        return Path.of(p);
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    CliProcess jvm(String... options) {
        jvm.addAll(List.of(options));
        return this;
    }

    CliProcess env(String key, String value) {
        env.put(key, value);
        return this;
    }

    CliProcess stdin(String text) {
        this.stdin = text.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    CliProcess stdin(Path file) {
        this.stdinFile = file;
        return this;
    }

    CliProcess stdoutTo(Path file) {
        this.stdoutFile = file;
        return this;
    }

    CliProcess timeout(Duration t) {
        this.timeout = t;
        return this;
    }

    /** The working directory (default: the test's). */
    CliProcess dir(Path d) {
        this.dir = d;
        return this;
    }

    List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", jar().toString()));
        cmd.addAll(args);
        return cmd;
    }

    ProcessBuilder builder() {
        ProcessBuilder pb = new ProcessBuilder(command());
        pb.environment().keySet().removeIf(k -> k.startsWith("SANDBOXD_"));
        pb.environment().putAll(env);
        if (stdinFile != null) {
            pb.redirectInput(stdinFile.toFile());
        }
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        if (stdoutFile != null) {
            pb.redirectOutput(stdoutFile.toFile());
        }
        return pb;
    }

    /** Starts it; stdin stays an open pipe (for tests that signal it). */
    Process start() throws IOException {
        return builder().start();
    }

    /** Runs it to the end: stdin written and closed (EOF), output collected. */
    Result run() throws Exception {
        Process p = builder().start();
        CompletableFuture<byte[]> out = drain(p.getInputStream());
        CompletableFuture<byte[]> err = drain(p.getErrorStream());
        if (stdinFile == null) {
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin);
            } catch (IOException e) {
                // the CLI may exit without reading its stdin
            }
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("CLI did not exit within " + timeout + ": " + command() + "\nstderr so far: "
                    + new String(err.getNow(new byte[0]), StandardCharsets.UTF_8));
        }
        return new Result(
                p.exitValue(),
                out.get(30, TimeUnit.SECONDS),
                new String(err.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8));
    }

    static CompletableFuture<byte[]> drain(InputStream in) {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    ByteArrayOutputStream b = new ByteArrayOutputStream();
                    try (in) {
                        in.transferTo(b);
                    } catch (IOException e) {
                        // closed
                    }
                    f.complete(b.toByteArray());
                },
                "cli-output");
        t.setDaemon(true);
        t.start();
        return f;
    }
}
