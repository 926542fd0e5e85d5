package io.sandboxd.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts our daemon the way it is deployed — through the launcher script (so its JVM options,
 * AppCDS/AOT archive and all apply) or from a jar with explicit JVM options — on free loopback
 * ports, and measures exec → both ports accepting, and exec → both ports answering a request.
 */
final class DaemonUnderTest implements AutoCloseable {
    final Process process;
    final long javaPid;
    final int grpcPort;
    final int restPort;
    final double acceptMs;
    final double servingMs;

    private DaemonUnderTest(Process process, long javaPid, int grpcPort, int restPort, double acceptMs, double servingMs) {
        this.process = process;
        this.javaPid = javaPid;
        this.grpcPort = grpcPort;
        this.restPort = restPort;
        this.acceptMs = acceptMs;
        this.servingMs = servingMs;
    }

    String grpcTarget() {
        return "127.0.0.1:" + grpcPort;
    }

    URI restBase() {
        return URI.create("http://127.0.0.1:" + restPort);
    }

    /**
     * @param launch   a launcher script (anything not ending in .jar) or a jar
     * @param jvmOpts  JVM options when {@code launch} is a jar
     */
    static DaemonUnderTest start(String launch, List<String> jvmOpts, Path root, Path log, String token)
            throws IOException, InterruptedException {
        int grpc = freePort();
        int rest = freePort();
        while (rest == grpc) {
            rest = freePort();
        }
        List<String> cmd = new ArrayList<>();
        if (launch.endsWith(".jar")) {
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(jvmOpts);
            cmd.add("-jar");
            cmd.add(launch);
        } else {
            cmd.add(launch);
        }
        cmd.addAll(List.of("--listen-host", "127.0.0.1", "--grpc-port", Integer.toString(grpc),
                "--rest-port", Integer.toString(rest), "--root-dir", root.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        if (token != null) {
            pb.environment().put("SANDBOXD_AUTH_TOKEN", token);
        }
        long t0 = System.nanoTime();
        Process p = pb.start();
        long deadline = t0 + TimeUnit.SECONDS.toNanos(180); // generous: a first launch may build a CDS archive
        boolean g = false;
        boolean r = false;
        while (!(g && r)) {
            if (!p.isAlive()) {
                throw new IOException("daemon exited with " + p.exitValue() + " before serving; log: " + tail(log));
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("daemon did not open both ports within 180 s; log: " + tail(log));
            }
            g = g || accepts(grpc);
            r = r || accepts(rest);
            if (!(g && r)) {
                Thread.sleep(1);
            }
        }
        double acceptMs = (System.nanoTime() - t0) / 1e6;
        RestBench rb = new RestBench(URI.create("http://127.0.0.1:" + rest), token);
        double servingMs;
        try (GrpcBench gb = new GrpcBench("127.0.0.1:" + grpc, token)) {
            boolean restOk = false;
            boolean grpcOk = false;
            while (!(restOk && grpcOk)) {
                if (System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new IOException("daemon accepted but did not answer within 180 s; log: " + tail(log));
                }
                restOk = restOk || rb.healthy();
                grpcOk = grpcOk || gb.answers();
            }
            servingMs = (System.nanoTime() - t0) / 1e6;
        }
        return new DaemonUnderTest(p, findJava(p.pid()), grpc, rest, acceptMs, servingMs);
    }

    /** The JVM options of the running daemon (from /proc/pid/cmdline), minus the app-specific archive flags. */
    List<String> jvmOptionsForTrivialProgram() throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(javaPid), "cmdline"));
        String[] parts = new String(raw, StandardCharsets.UTF_8).split("\0");
        List<String> opts = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            String a = parts[i];
            if (a.equals("-jar") || a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path")
                    || !a.startsWith("-")) {
                break;
            }
            if (a.startsWith("-XX:SharedArchiveFile") || a.startsWith("-XX:AOTCache") || a.startsWith("-XX:AOTMode")
                    || a.startsWith("-XX:ArchiveClassesAtExit") || a.startsWith("-XX:AOTCacheOutput")
                    || a.startsWith("-XX:+AutoCreateSharedArchive") || a.startsWith("-Dsandboxd.")) {
                continue;
            }
            opts.add(a);
        }
        return opts;
    }

    String javaBinary() throws IOException {
        return Files.readSymbolicLink(Path.of("/proc", Long.toString(javaPid), "exe")).toString();
    }

    List<String> fullCommandLine() {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(javaPid), "cmdline"));
            return List.of(new String(raw, StandardCharsets.UTF_8).split("\0"));
        } catch (IOException e) {
            return List.of();
        }
    }

    ProcStatus status() {
        return ProcStatus.read(javaPid);
    }

    /** SIGTERM, then SIGKILL after 20 s. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        Optional<ProcessHandle> java = ProcessHandle.of(javaPid);
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            java.ifPresent(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        java.ifPresent(ph -> ph.onExit().join());
    }

    /** Median exec→exit ms of a trivial Java program with the given JVM options. */
    static double[] trivialJava(String java, List<String> opts, int warmup, int n) throws IOException, InterruptedException {
        String cp;
        try {
            cp = Path.of(TrivialMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(opts);
        cmd.addAll(List.of("-cp", cp, TrivialMain.class.getName()));
        double[] out = new double[n];
        for (int i = -warmup; i < n; i++) {
            long t = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            int rc = p.waitFor();
            double ms = (System.nanoTime() - t) / 1e6;
            if (rc != 0) {
                throw new IOException("trivial Java program failed (exit " + rc + "): " + cmd);
            }
            if (i >= 0) {
                out[i] = ms;
            }
        }
        return out;
    }

    private static long findJava(long pid) {
        // The launcher execs java, so normally pid is the JVM; otherwise look for a java child.
        if (isJava(pid)) {
            return pid;
        }
        return ProcessHandle.of(pid).flatMap(ph -> ph.descendants().filter(d -> isJava(d.pid())).findFirst())
                .map(ProcessHandle::pid).orElse(pid);
    }

    private static boolean isJava(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip().equals("java");
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 100);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
