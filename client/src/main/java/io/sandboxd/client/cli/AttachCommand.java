package io.sandboxd.client.cli;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.Gap;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.client.DurableAttachment;
import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code attach}: replays a durable process's retained output from the given offsets, follows it
 * live, and exits with the process's exit code. SIGINT detaches (the process keeps running).
 */
@CommandLine.Command(
        name = "attach",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Attaches to a durable process (by ID or --tag): replays what is retained of its output "
                    + "from the given offsets (default: from the start of what is retained), then follows it, and "
                    + "exits with its exit code (128+N after signal N, 124 after a server-side timeout).",
            "Its stdout and stderr go to ours; bytes no longer retained are reported on stderr as a gap. "
                    + "Ctrl-C (SIGINT) detaches without killing the process (exit 130)."
        },
        footer = {"", "Example: sandboxd-cli attach --tag build --stdout-offset 1048576"})
final class AttachCommand implements Callable<Integer> {
    private static final Duration NO_DEADLINE = Duration.ofDays(3650);
    static final int DETACHED = 130;

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions conn;

    @Parameters(arity = "0..1", paramLabel = "ID", description = "The process id (or use --tag).")
    String id;

    @Option(names = "--tag", paramLabel = "T", description = "The process's tag instead of its id.")
    String tag;

    @Option(names = "--stdout-offset", paramLabel = "N", description = "First stdout byte wanted (default 0).")
    long stdoutOffset;

    @Option(names = "--stderr-offset", paramLabel = "N", description = "First stderr byte wanted (default 0).")
    long stderrOffset;

    @Option(
            names = "--stdin",
            description = "Forward our stdin to the process, EOF included (without it the "
                    + "process's stdin is left alone).")
    boolean stdin;

    @Option(
            names = "--json",
            description = "Print every event as one JSON object per line: output (stream, "
                    + "offset, bytes in base64), gap, heartbeat, exit.")
    boolean json;

    private volatile boolean detached;

    @Override
    public Integer call() {
        ProcessRef ref = DurableCli.ref(spec, id, tag);
        if (stdoutOffset < 0 || stderrOffset < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "offsets must be >= 0");
        }
        try (SandboxdClient client = conn.client()) {
            DurableProcesses d = client.durable();
            Thread in = null;
            try {
                DurableAttachment a = d.attach(ref, stdoutOffset, stderrOffset);
                Signals.handle("INT", () -> {
                    detached = true;
                    a.detach();
                });
                if (stdin) {
                    int pid = ref.hasTag() ? d.get(ref).getProcessId() : ref.getProcessId();
                    in = pumpStdin(client.withCallTimeout(NO_DEADLINE), pid);
                }
                return follow(a, json, () -> detached, DurableProcesses.describe(ref));
            } finally {
                if (in != null) {
                    in.interrupt();
                    try {
                        in.join(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
    }

    interface Flag {
        boolean isSet();
    }

    /** Writes the stream's events to ours until the exit record; returns the exit code to use. */
    static int follow(DurableAttachment a, boolean json, Flag detached, String what) {
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        FileOutputStream err = new FileOutputStream(FileDescriptor.err);
        Integer code = null;
        try {
            for (AttachEvent ev; (ev = a.next()) != null; ) {
                if (json) {
                    if (!write((DurableCli.toJson(ev) + "\n").getBytes(StandardCharsets.UTF_8), out)) {
                        a.detach();
                        return 128 + 13;
                    }
                }
                switch (ev.getEventCase()) {
                    case OUTPUT -> {
                        if (!json) {
                            boolean toErr = ev.getOutput().getStream() == Stream.STREAM_STDERR;
                            if (!write(ev.getOutput().getData(), toErr ? err : out) && !toErr) {
                                a.detach(); // stdout is a closed pipe: end like a pipeline would
                                return 128 + 13;
                            }
                        }
                    }
                    case GAP -> {
                        if (!json) {
                            Gap g = ev.getGap();
                            System.err.println("sandboxd-cli: attach: " + g.getLength() + " bytes of "
                                    + DurableCli.stream(g) + " at offset " + g.getOffset() + " not retained ("
                                    + DurableCli.gapReason(g).replace('_', ' ') + ")");
                            System.err.flush();
                        }
                    }
                    case EXIT -> code = DurableProcesses.shellExitCode(ev.getExit());
                    default -> {}
                }
            }
        } catch (GrpcCallException e) {
            if (detached.isSet() && e.code() == Status.Code.CANCELLED) {
                System.err.println("sandboxd-cli: attach: detached from process " + what + "; it keeps running");
                System.err.flush();
                return DETACHED;
            }
            throw e;
        }
        if (code == null) {
            throw new SandboxdException("the stream of process " + what + " ended without an exit record");
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

    private static boolean write(byte[] data, FileOutputStream to) {
        try {
            to.write(data);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Forwards our stdin, then its EOF (interruptible: a FileChannel, as exec does). */
    private static Thread pumpStdin(SandboxdClient client, int pid) {
        Thread t = new Thread(
                () -> {
                    FileChannel in = new FileInputStream(FileDescriptor.in).getChannel();
                    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
                    try {
                        while (in.read(buf.clear()) >= 0) {
                            if (buf.position() > 0) {
                                client.writeStdin(pid, ByteString.copyFrom(buf.flip()));
                            }
                        }
                        client.closeStdin(pid);
                    } catch (IOException | RuntimeException e) {
                        // stdin failed or was interrupted at exit, or the process ended
                    }
                },
                "stdin-forwarder");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
