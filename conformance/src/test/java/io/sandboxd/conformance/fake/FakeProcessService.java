package io.sandboxd.conformance.fake;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ExitEvent;
import io.sandboxd.api.process.v1.InitEvent;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.ResizeTTYResponse;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.SendSignalResponse;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.api.process.v1.WriteStdinResponse;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small, test-only ProcessService: real processes via ProcessBuilder, a pty via util-linux
 * {@code script}. Enough of runtime-contract §1 for the suite's basic process checks, plus switches that
 * break one behaviour at a time.
 */
final class FakeProcessService extends ProcessServiceGrpc.ProcessServiceImplBase {
    private final Path root;
    private final Set<Breakage> broken;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, Running> running = new ConcurrentHashMap<>();

    private record Running(Process process, OutputStream stdin, boolean pty, long startedNanos) {}

    FakeProcessService(Path root, Set<Breakage> broken) throws IOException {
        this.root = root.toRealPath();
        this.broken = broken;
    }

    private Status notFound(String message) {
        return broken.contains(Breakage.NOT_FOUND_AS_INTERNAL)
                ? Status.INTERNAL.withDescription(message)
                : Status.NOT_FOUND.withDescription(message);
    }

    private ProcessBuilder builder(ProcessConfig cfg, List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.directory(directory(cfg.hasCwd() ? cfg.getCwd() : ""));
        pb.environment().putAll(cfg.getEnvVarsMap());
        return pb;
    }

    /**
     * As upstream does: an absolute cwd is cleaned, then re-rooted (so "/../.." is the root); a
     * relative one that leaves the root is PERMISSION_DENIED (unless {@link Breakage#CWD_ESCAPES}).
     */
    private File directory(String cwd) {
        if (cwd.startsWith("/")) {
            return root.resolve(Path.of(cwd).normalize().toString().substring(1))
                    .toFile();
        }
        Path dir = root.resolve(cwd).normalize();
        if (!dir.startsWith(root) && !broken.contains(Breakage.CWD_ESCAPES)) {
            throw Status.PERMISSION_DENIED
                    .withDescription("cwd escapes the root")
                    .asRuntimeException();
        }
        return dir.toFile();
    }

    private Status startError(IOException e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("error=2,")) {
            return notFound("command not found");
        }
        if (m.contains("error=13,")) {
            return Status.PERMISSION_DENIED.withDescription("permission denied");
        }
        return Status.INTERNAL.withDescription("cannot start");
    }

    @Override
    public void execute(ExecuteRequest request, StreamObserver<ExecuteResponse> out) {
        if (request.getConfig().getCommandCount() == 0) {
            out.onError(Status.INVALID_ARGUMENT
                    .withDescription("command is required")
                    .asRuntimeException());
            return;
        }
        try {
            ProcessBuilder pb = builder(request.getConfig(), request.getConfig().getCommandList());
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            Process p = pb.start();
            byte[][] err = new byte[1][];
            Thread t = new Thread(() -> {
                try {
                    err[0] = p.getErrorStream().readAllBytes();
                } catch (IOException e) {
                    err[0] = new byte[0];
                }
            });
            t.start();
            byte[] stdout = p.getInputStream().readAllBytes();
            t.join();
            int code = p.waitFor();
            out.onNext(ExecuteResponse.newBuilder()
                    .setExitCode(code)
                    .setStdout(ByteString.copyFrom(stdout))
                    .setStderr(ByteString.copyFrom(err[0]))
                    .build());
            out.onCompleted();
        } catch (IOException e) {
            out.onError(startError(e).asRuntimeException());
        } catch (io.grpc.StatusRuntimeException e) {
            out.onError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.onError(Status.CANCELLED.asRuntimeException());
        }
    }

    @Override
    public void start(StartRequest request, StreamObserver<StartResponse> responses) {
        ServerCallStreamObserver<StartResponse> out = (ServerCallStreamObserver<StartResponse>) responses;
        ProcessConfig cfg = request.getConfig();
        if (cfg.getCommandCount() == 0) {
            out.onError(Status.INVALID_ARGUMENT
                    .withDescription("command is required")
                    .asRuntimeException());
            return;
        }
        boolean pty = request.hasPty() && !broken.contains(Breakage.PTY_IGNORED);
        List<String> command = new ArrayList<>(cfg.getCommandList());
        if (pty) {
            int cols = request.getPty().getCols() == 0 ? 80 : request.getPty().getCols();
            int rows = request.getPty().getRows() == 0 ? 24 : request.getPty().getRows();
            StringBuilder script = new StringBuilder("stty rows " + rows + " cols " + cols + "; exec");
            for (String a : cfg.getCommandList()) {
                script.append(" '").append(a.replace("'", "'\\''")).append('\'');
            }
            command = List.of("script", "-qefc", script.toString(), "/dev/null");
        }
        Process p;
        try {
            ProcessBuilder pb = builder(cfg, command);
            if (pty) {
                pb.environment().putIfAbsent("TERM", "xterm-256color");
            }
            p = pb.start();
        } catch (IOException e) {
            out.onError(startError(e).asRuntimeException());
            return;
        } catch (io.grpc.StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        int id = ids.incrementAndGet();
        running.put(id, new Running(p, p.getOutputStream(), pty, System.nanoTime()));
        out.setOnCancelHandler(p::destroyForcibly);
        Object lock = new Object();
        if (!broken.contains(Breakage.NO_INIT)) {
            out.onNext(StartResponse.newBuilder()
                    .setInit(InitEvent.newBuilder().setProcessId(id))
                    .build());
        }
        Thread o = pty && broken.contains(Breakage.PTY_OUTPUT_LOST)
                ? daemon(() -> {
                    try {
                        p.getInputStream().transferTo(OutputStream.nullOutputStream());
                    } catch (IOException ignored) {
                        // the process ended
                    }
                })
                : pump(p.getInputStream(), out, lock, false);
        Thread e = pump(p.getErrorStream(), out, lock, !broken.contains(Breakage.STDERR_AS_STDOUT));
        daemon(() -> {
            try {
                int code = p.waitFor();
                o.join();
                e.join();
                synchronized (lock) {
                    if (!out.isCancelled()) {
                        out.onNext(StartResponse.newBuilder()
                                .setExit(ExitEvent.newBuilder().setExitCode(code))
                                .build());
                        if (broken.contains(Breakage.EXIT_NOT_LAST)) {
                            out.onNext(StartResponse.newBuilder()
                                    .setStdout(ByteString.EMPTY)
                                    .build());
                        }
                        out.onCompleted();
                    }
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                running.remove(id);
            }
        });
    }

    private static Thread pump(
            InputStream in, ServerCallStreamObserver<StartResponse> out, Object lock, boolean asStderr) {
        return daemon(() -> {
            byte[] buf = new byte[4096];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    ByteString chunk = ByteString.copyFrom(buf, 0, n);
                    synchronized (lock) {
                        if (out.isCancelled()) {
                            return;
                        }
                        out.onNext(
                                asStderr
                                        ? StartResponse.newBuilder()
                                                .setStderr(chunk)
                                                .build()
                                        : StartResponse.newBuilder()
                                                .setStdout(chunk)
                                                .build());
                    }
                }
            } catch (IOException ignored) {
                // process gone
            }
        });
    }

    private static Thread daemon(Runnable r) {
        Thread t = new Thread(r, "fake-process");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void writeStdin(WriteStdinRequest request, StreamObserver<WriteStdinResponse> out) {
        Running r = running.get(request.getProcessId());
        if (r == null) {
            out.onError(
                    notFound("process " + request.getProcessId() + " not found").asRuntimeException());
            return;
        }
        try {
            if (request.hasEof()) {
                r.stdin().close();
            } else if (request.hasInput()) {
                r.stdin().write(request.getInput().toByteArray());
                r.stdin().flush();
            }
            out.onNext(WriteStdinResponse.getDefaultInstance());
            out.onCompleted();
        } catch (IOException e) {
            out.onError(
                    Status.FAILED_PRECONDITION.withDescription("stdin closed").asRuntimeException());
        }
    }

    @Override
    public void sendSignal(SendSignalRequest request, StreamObserver<SendSignalResponse> out) {
        Running r = running.get(request.getProcessId());
        if (r == null) {
            out.onError(
                    notFound("process " + request.getProcessId() + " not found").asRuntimeException());
            return;
        }
        int sig = request.getSignalValue();
        if (sig != 2 && sig != 9 && sig != 15) {
            out.onError(Status.INVALID_ARGUMENT
                    .withDescription("unsupported signal " + sig)
                    .asRuntimeException());
            return;
        }
        if (broken.contains(Breakage.EARLY_SIGNAL_LOST) && System.nanoTime() - r.startedNanos() < 500_000_000L) {
            out.onNext(SendSignalResponse.getDefaultInstance());
            out.onCompleted();
            return;
        }
        try {
            new ProcessBuilder("kill", "-" + sig, String.valueOf(r.process().pid()))
                    .start()
                    .waitFor();
        } catch (IOException | InterruptedException e) {
            out.onError(Status.INTERNAL.withDescription("kill failed").asRuntimeException());
            return;
        }
        out.onNext(SendSignalResponse.getDefaultInstance());
        out.onCompleted();
    }

    @Override
    public void resizeTTY(ResizeTTYRequest request, StreamObserver<ResizeTTYResponse> out) {
        Running r = running.get(request.getProcessId());
        if (r == null) {
            out.onError(
                    notFound("process " + request.getProcessId() + " not found").asRuntimeException());
            return;
        }
        if (!r.pty()) {
            out.onError(Status.FAILED_PRECONDITION
                    .withDescription("process has no pty")
                    .asRuntimeException());
            return;
        }
        out.onNext(ResizeTTYResponse.getDefaultInstance());
        out.onCompleted();
    }
}
