package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: sandboxed code cannot obtain the access token, by any route, in both deployments.
 * A probe run through Execute (and through a PTY Start) tries the daemon's /proc/PID/environ,
 * mem and cmdline, ptrace, the JVM attach mechanism and the token file. Same-uid mode: the
 * daemon itself runs as nobody (65534, via setpriv) and so do its children. --run-as-user mode:
 * the daemon runs as root, its children as a user with two supplementary groups (declared in a
 * passwd and group file bind-mounted over /etc in a mount namespace of the daemon's own, so the
 * machine's user database is not touched), the token file is root's 0600.
 */
class TokenSecrecyIT {
    static final String TOKEN = "s3cret-token-for-the-probe-" + Long.toHexString(System.nanoTime());
    static final int NOBODY = 65534;
    /** The --run-as-user user of the mount namespace: uid = primary gid = 4242, also in 4300 and 4301. */
    static final int PROBE_UID = 4242;

    static final String PROBE_ID =
            "uid=4242(sbxprobe) gid=4242(sbxprobe) groups=4242(sbxprobe),4300(sbxextra),4301(sbxmore)";

    @TempDir
    Path tmp;

    /** Everything the probe tries; it prints one line per route. */
    static String probe(Path tokenFile) {
        return "import os, ctypes, subprocess\n"
                + "p = os.getppid()\n"
                + "def read(path):\n"
                + "    try:\n"
                + "        return open(path, 'rb').read().decode('latin-1').replace('\\0', ' ')\n"
                + "    except Exception as e:\n"
                + "        return 'refused ' + type(e).__name__\n"
                + "print('environ:', read('/proc/%d/environ' % p))\n"
                + "print('cmdline:', read('/proc/%d/cmdline' % p))\n"
                + "try:\n"
                + "    open('/proc/%d/mem' % p, 'rb'); print('mem: opened')\n"
                + "except Exception as e:\n"
                + "    print('mem: refused', type(e).__name__)\n"
                + "libc = ctypes.CDLL(None, use_errno=True)\n"
                + "libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]\n"
                + "if libc.ptrace(16, p, None, None) == 0:\n"
                + "    print('ptrace: attached'); os.waitpid(p, 0x40000000); libc.ptrace(17, p, None, None)\n"
                + "else:\n"
                + "    print('ptrace: refused errno', ctypes.get_errno())\n"
                + "print('tokenfile:', read('" + tokenFile + "'))\n"
                + "j = subprocess.run(['jcmd', '-J-Dsun.tools.attach.attachTimeout=3000', str(p), 'VM.system_properties'],"
                + " capture_output=True, timeout=30)\n"
                + "print('attach:', 'rc', j.returncode, (j.stdout + j.stderr).decode('latin-1')[-300:].replace('\\n', ' '))\n"
                + "print('id:', subprocess.run(['id'], capture_output=True).stdout.decode().strip())\n";
    }

    /** From a {@code SigIgn:} line of /proc/PID/status: whether signal 3 is ignored. */
    static boolean ignoresSigquit(String status) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("SigIgn:\\s+([0-9a-f]+)").matcher(status);
        assertThat(m.find()).as(status).isTrue();
        return (Long.parseUnsignedLong(m.group(1), 16) & (1L << (3 - 1))) != 0;
    }

    /** The jar {@link DaemonSpec#packagedJar()} runs (copied where a daemon running as nobody can read it). */
    static Path packagedJar() {
        String p = System.getProperty("sandboxd.jar");
        return p != null ? Path.of(p) : DaemonSpec.repoRoot().resolve("daemon/target/sandboxd.jar");
    }

    private static Path worldReadableDir(Path parent, String name) throws Exception {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
        return d;
    }

    @Test
    void sameUidModeClosesProcAndPtraceAndAttach() throws Exception {
        // /tmp/<junit>/ is root's 0700: the daemon running as nobody needs its own world-traversable place
        Path base = Files.createTempDirectory(Path.of("/tmp"), "sandboxd-sameuid-");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        try {
            Path jar = Files.copy(packagedJar(), base.resolve("sandboxd.jar"));
            Path root = worldReadableDir(base, "root");
            Files.setAttribute(root, "unix:uid", NOBODY);
            Path tokenFile = base.resolve("token"); // same-uid mode: a file nobody could read is the operator's choice
            try (RunningDaemon d = DaemonSpec.jar(jar)
                    .withWrapper("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--")
                    .withRootDir(root)
                    .withEnv("SANDBOXD_AUTH_TOKEN", TOKEN)
                    .withLogs(tmp, "daemon")
                    .withReadyTimeout(Duration.ofSeconds(60))
                    .start()) {
                String out = execute(d, probe(tokenFile));
                System.out.println("same-uid probe:\n" + out);
                assertThat(out).contains("id: uid=" + NOBODY);
                assertThat(startupLine(d)).contains(" auth=on processes-run-as=daemon-user");
                assertThat(out)
                        .contains("environ: refused PermissionError")
                        .contains("mem: refused PermissionError")
                        .contains("ptrace: refused errno 1")
                        .doesNotContain(TOKEN);
                assertThat(out).containsPattern("cmdline: \\S*java"); // readable by design, and holds no token
                assertThat(out).containsPattern("attach: rc [1-9]");
                // the daemon ignores SIGQUIT for that; its children, pipe and PTY, must not inherit it
                assertThat(ignoresSigquit(execute(
                                d,
                                "import subprocess\nprint(subprocess.run(['grep', 'SigIgn',"
                                        + " '/proc/self/status'], capture_output=True).stdout.decode())\n")))
                        .isFalse();
                assertThat(ignoresSigquit(startWithPty(d, List.of("sh", "-c", "grep SigIgn /proc/self/status"))))
                        .isFalse();
            }
        } finally {
            new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor();
        }
    }

    @Test
    void runAsUserModeAlsoClosesTheTokenFileAndOwnsUploads() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
        Path passwd = Files.writeString(
                tmp.resolve("passwd"),
                "root:x:0:0:root:/root:/bin/sh\nsbxprobe:x:4242:4242::/nonexistent:/usr/sbin/nologin\n");
        Path group = Files.writeString(
                tmp.resolve("group"),
                "root:x:0:\nsbxprobe:x:4242:\nsbxextra:x:4300:sbxprobe\nsbxmore:x:4301:sbxprobe\n");
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withWrapper(
                        "unshare",
                        "--mount",
                        "--propagation",
                        "private",
                        "--",
                        "sh",
                        "-c",
                        "mount --bind \"$1\" /etc/passwd && mount --bind \"$2\" /etc/group && shift 2 && exec \"$@\"",
                        "sh",
                        passwd.toString(),
                        group.toString())
                .withRootDir(root)
                .withArgs("--auth-token-file", tokenFile.toString(), "--run-as-user", Integer.toString(PROBE_UID))
                .withLogs(tmp, "daemon")
                .withReadyTimeout(Duration.ofSeconds(60))
                .start()) {
            assertThat(startupLine(d)).contains(" auth=on processes-run-as=4242:4242 groups [4242, 4300, 4301]");
            String out = execute(d, probe(tokenFile));
            System.out.println("run-as-user probe:\n" + out);
            // the user's primary group and both supplementary groups from the user database
            assertThat(out).contains("id: " + PROBE_ID);
            assertThat(out)
                    .contains("environ: refused PermissionError")
                    .contains("mem: refused PermissionError")
                    .contains("ptrace: refused errno 1")
                    .contains("tokenfile: refused PermissionError")
                    .containsPattern("attach: rc [1-9]")
                    .doesNotContain(TOKEN);
            // a terminal process runs as the user too, groups included
            assertThat(startWithPty(d, List.of("id"))).contains(PROBE_ID);

            // what the API writes belongs to the user, who can then change and remove it
            HttpResponse<String> put = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + d.restPort() + "/v1/files/up/loaded.txt"))
                                    .header("Authorization", "Bearer " + TOKEN)
                                    .PUT(HttpRequest.BodyPublishers.ofString("x"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).isEqualTo(204);
            for (Path p : List.of(root, root.resolve("up"), root.resolve("up/loaded.txt"))) {
                assertThat(Files.getAttribute(p, "unix:uid"))
                        .as("owner of %s", p)
                        .isEqualTo(PROBE_UID);
                assertThat(Files.getAttribute(p, "unix:gid"))
                        .as("group of %s", p)
                        .isEqualTo(PROBE_UID);
            }
            assertThat(execute(
                            d,
                            "import os\nopen('up/loaded.txt', 'a').write('y')\nos.remove('up/loaded.txt')\n"
                                    + "open('mine', 'w').write('z')\nprint('ok')\n"))
                    .contains("ok");
        }
    }

    /** The daemon's "listening" line (printed just after the ports answer). */
    static String startupLine(RunningDaemon d) {
        Poll.await(Duration.ofSeconds(30), () -> d.stderr().contains("sandboxd: listening"), d::stderr);
        return d.stderr()
                .lines()
                .filter(l -> l.startsWith("sandboxd: listening"))
                .findFirst()
                .orElseThrow();
    }

    private static ManagedChannel channel(RunningDaemon d) {
        return NettyChannelBuilder.forAddress("127.0.0.1", d.grpcPort())
                .usePlaintext()
                .build();
    }

    private static ProcessServiceGrpc.ProcessServiceBlockingStub stub(ManagedChannel ch) {
        Metadata m = new Metadata();
        m.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKEN);
        return ProcessServiceGrpc.newBlockingStub(ch)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m))
                .withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    static String execute(RunningDaemon d, String python) {
        ManagedChannel ch = channel(d);
        try {
            ExecuteResponse r = stub(ch).execute(ExecuteRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder()
                            .addCommand("/usr/bin/python3")
                            .addCommand("-c")
                            .addCommand(python))
                    .build());
            return r.getStdout().toStringUtf8() + r.getStderr().toStringUtf8();
        } finally {
            ch.shutdownNow();
        }
    }

    static String startWithPty(RunningDaemon d, List<String> command) {
        ManagedChannel ch = channel(d);
        try {
            Iterator<StartResponse> it = stub(ch).start(StartRequest.newBuilder()
                    .setConfig(ProcessConfig.newBuilder().addAllCommand(command))
                    .setPty(io.sandboxd
                            .api
                            .process
                            .v1
                            .PTY
                            .newBuilder()
                            .setCols(80)
                            .setRows(24))
                    .build());
            List<String> out = new ArrayList<>();
            it.forEachRemaining(e -> out.add(e.getStdout().toString(StandardCharsets.UTF_8)));
            return String.join("", out);
        } finally {
            ch.shutdownNow();
        }
    }
}
