package io.sandboxd.client.cli;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.client.Command;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code exec}: Start, with this process's stdin, stdout and stderr joined to the remote
 * process's, its signals forwarded, and its exit code as ours.
 */
@CommandLine.Command(
        name = "exec",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Runs CMD in the sandbox: streams its stdout and stderr here as they arrive, forwards this "
                    + "stdin (EOF included) and SIGINT/SIGTERM (and, with --tty, the terminal size on SIGWINCH), and "
                    + "exits with its exit code (128+N after death by signal N).",
            "A second SIGINT/SIGTERM gives up: the stream is cancelled (the daemon kills the process) and "
                    + "sandboxd-cli exits with 128+N."
        },
        footer = {"", "Example: sandboxd-cli exec --env LANG=C.UTF-8 --cwd work -- sh -c 'make test'"})
final class ExecCommand implements Callable<Integer> {
    private static final Duration NO_DEADLINE = Duration.ofDays(3650);

    @Mixin
    ConnectionOptions conn;

    @Option(
            names = "--tty",
            description = "Run under a pseudo-terminal of the local terminal's size; the local "
                    + "terminal is in raw mode meanwhile (restored on every exit).")
    boolean tty;

    @Option(names = "--cwd", paramLabel = "DIR", description = "Working directory, relative to the sandbox root.")
    String cwd;

    @Option(
            names = "--env",
            paramLabel = "K=V",
            description = "Environment variable (repeatable), merged over the daemon's.")
    Map<String, String> env = new LinkedHashMap<>();

    @Parameters(arity = "1..*", paramLabel = "CMD", description = "The command and its arguments (no shell).")
    List<String> command;

    private final AtomicInteger interrupts = new AtomicInteger();
    private volatile int givenUp = -1;

    @Override
    public Integer call() {
        try (SandboxdClient client = conn.client()) {
            return run(client);
        }
    }

    private int run(SandboxdClient client) {
        Command cmd = Command.of(command).env(env);
        if (cwd != null) {
            cmd = cmd.cwd(cwd);
        }
        if (tty) {
            int[] size = Terminal.size().orElse(new int[] {80, 24});
            cmd = cmd.tty(size[0], size[1]);
        }
        // Handlers first, so that no signal is missed; they act once the process has an id.
        CompletableFuture<RemoteProcess> started = new CompletableFuture<>();
        forward("INT", Signal.SIGNAL_SIGINT, 2, client, started);
        forward("TERM", Signal.SIGNAL_SIGTERM, 15, client, started);
        // Stdin writes wait for the process to read: no deadline on them (nor on the stream).
        RemoteProcess p = client.withCallTimeout(NO_DEADLINE).start(cmd);
        started.complete(p);
        Terminal raw = null;
        Thread stdin = null;
        try {
            int pid = p.pid();
            if (tty) {
                Signals.handle("WINCH", () -> Terminal.size()
                        .ifPresent(s -> quietly(() -> client.resizeTty(pid, s[0], s[1]))));
                raw = Terminal.enterRaw().orElse(null);
            }
            stdin = pumpStdin(p);
            return pumpOutput(p);
        } catch (GrpcCallException e) {
            if (givenUp >= 0 && e.code() == Status.Code.CANCELLED) {
                return givenUp;
            }
            throw e;
        } finally {
            if (raw != null) {
                raw.restore();
            }
            if (stdin != null) {
                stdin.interrupt(); // closes fd 0: after the terminal is restored
                join(stdin);
            }
        }
    }

    private int pumpOutput(RemoteProcess p) {
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        FileOutputStream err = new FileOutputStream(FileDescriptor.err);
        Integer code = null;
        for (StartResponse ev; (ev = p.next()) != null; ) {
            switch (ev.getEventCase()) {
                case STDOUT -> {
                    if (!write(ev.getStdout(), out)) {
                        p.cancel(); // stdout is a closed pipe: end like a shell pipeline would, by SIGPIPE
                        return 128 + 13;
                    }
                }
                case STDERR -> write(ev.getStderr(), err);
                case EXIT -> code = ev.getExit().getExitCode();
                default -> {}
            }
        }
        if (code == null) {
            throw new SandboxdException("the stream ended without an exit code");
        }
        return code;
    }

    private static boolean write(ByteString data, FileOutputStream to) {
        try {
            data.writeTo(to);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Forwards our stdin, then its EOF; stops quietly once the process is gone. Reads through a
     * FileChannel so that {@link Thread#interrupt()} ends a read blocked on a terminal or pipe:
     * a thread left in a native read delays the JVM's exit by ~300 ms.
     */
    private static Thread pumpStdin(RemoteProcess p) {
        Thread t = new Thread(
                () -> {
                    FileChannel in = new FileInputStream(FileDescriptor.in).getChannel();
                    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
                    try {
                        while (in.read(buf.clear()) >= 0) {
                            if (buf.position() > 0) {
                                p.writeStdin(ByteString.copyFrom(buf.flip()));
                            }
                        }
                        p.closeStdin();
                    } catch (IOException | RuntimeException e) {
                        // stdin failed or was interrupted at exit, or the process ended: nothing more to forward
                    }
                },
                "stdin-forwarder");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        try {
            t.join(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void forward(
            String name, Signal signal, int number, SandboxdClient client, CompletableFuture<RemoteProcess> started) {
        Signals.handle(name, () -> {
            RemoteProcess p = started.join();
            if (interrupts.incrementAndGet() > 1) {
                givenUp = 128 + number;
                p.cancel();
                return;
            }
            quietly(() -> client.sendSignal(p.pid(), signal));
        });
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // the process may have ended meanwhile
        }
    }
}
