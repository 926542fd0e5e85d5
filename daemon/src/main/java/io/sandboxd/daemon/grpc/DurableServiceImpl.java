package io.sandboxd.daemon.grpc;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.AttachRequest;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.ListRequest;
import io.sandboxd.api.durable.v1alpha1.ListResponse;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.durable.v1alpha1.Started;
import io.sandboxd.api.durable.v1alpha1.TreeUsage;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.DurableProcess;
import io.sandboxd.daemon.process.DurableProcesses;
import io.sandboxd.daemon.process.OutputKind;
import io.sandboxd.daemon.process.os.SessionUsage;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The thin gRPC adapter of {@code sandboxd.durable.v1alpha1.DurableProcessService} (issue 18) over
 * the core's {@link DurableProcesses}. Handlers run on the transport's event loops like
 * {@link ProcessServiceImpl}; attach streams read the journal on their own small pool.
 */
final class DurableServiceImpl extends DurableProcessServiceGrpc.DurableProcessServiceImplBase {
    private final DurableProcesses processes;
    private final Executor ptySpawns;
    private final long heartbeatNanos;
    private final ExecutorService readers = Executors.newFixedThreadPool(
            Math.max(2, Runtime.getRuntime().availableProcessors()), daemonThreads("sandboxd-attach"));
    private final ScheduledExecutorService heartbeats =
            Executors.newSingleThreadScheduledExecutor(daemonThreads("sandboxd-attach-heartbeat"));

    DurableServiceImpl(DurableProcesses processes, Executor ptySpawns, Duration heartbeat) {
        this.processes = processes;
        this.ptySpawns = ptySpawns;
        this.heartbeatNanos = heartbeat.toNanos();
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void start(StartRequest request, StreamObserver<AttachEvent> observer) {
        ServerCallStreamObserver<AttachEvent> out = (ServerCallStreamObserver<AttachEvent>) observer;
        AttachPump pump = new AttachPump(out, readers, heartbeats, heartbeatNanos);
        Runnable spawn = () -> {
            DurableProcess d;
            try {
                io.sandboxd.api.process.v1.StartRequest.Builder v1 =
                        io.sandboxd.api.process.v1.StartRequest.newBuilder().setConfig(request.getConfig());
                if (request.hasPty()) {
                    v1.setPty(request.getPty());
                }
                d = processes.start(
                        ProcessRequests.of(v1.build()),
                        request.getTag(),
                        request.getDetach(),
                        request.getTimeoutMillis(),
                        request.getRetentionBytes());
                d.attachViewer();
            } catch (SandboxException | RuntimeException e) {
                out.onError(StatusMapper.toStatus(e));
                return;
            }
            if (!request.getDetach()) {
                pump.onCancel(d::killTree);
            }
            pump.begin(
                    d,
                    0,
                    0,
                    AttachEvent.newBuilder()
                            .setStarted(
                                    Started.newBuilder().setProcessId(d.id()).setTag(d.tag()))
                            .build());
        };
        if (request.hasPty()) {
            ptySpawns.execute(Context.current().wrap(spawn));
        } else {
            spawn.run();
        }
    }

    @Override
    public void attach(AttachRequest request, StreamObserver<AttachEvent> observer) {
        ServerCallStreamObserver<AttachEvent> out = (ServerCallStreamObserver<AttachEvent>) observer;
        AttachPump pump = new AttachPump(out, readers, heartbeats, heartbeatNanos);
        DurableProcess d;
        try {
            d = resolve(request.getProcess());
            checkOffset(d, OutputKind.STDOUT, request.getStdoutOffset(), "stdout_offset");
            checkOffset(d, OutputKind.STDERR, request.getStderrOffset(), "stderr_offset");
            d.attachViewer();
        } catch (SandboxException | RuntimeException e) {
            out.onError(StatusMapper.toStatus(e));
            return;
        } catch (OutOfRange e) {
            out.onError(Status.OUT_OF_RANGE.withDescription(e.getMessage()).asRuntimeException());
            return;
        }
        pump.replaying(d.stream(OutputKind.STDOUT).written()
                - request.getStdoutOffset()
                + d.stream(OutputKind.STDERR).written()
                - request.getStderrOffset());
        pump.begin(d, request.getStdoutOffset(), request.getStderrOffset(), null);
    }

    /** An offset beyond what the stream has written. */
    private static final class OutOfRange extends Exception {
        OutOfRange(String m) {
            super(m);
        }
    }

    private static void checkOffset(DurableProcess d, OutputKind kind, long offset, String field) throws OutOfRange {
        long written = d.stream(kind).written();
        if (offset < 0 || offset > written) {
            throw new OutOfRange(
                    field + " " + Long.toUnsignedString(offset) + " is beyond the " + written + " bytes process "
                            + d.id() + " has written to " + kind.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    private DurableProcess resolve(ProcessRef ref) throws SandboxException {
        return switch (ref.getRefCase()) {
            case PROCESS_ID -> processes.find(ref.getProcessId());
            case TAG -> processes.findTag(ref.getTag());
            default -> throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "process id or tag required");
        };
    }

    @Override
    public void list(ListRequest request, StreamObserver<ListResponse> observer) {
        ListResponse.Builder b = ListResponse.newBuilder();
        java.util.List<DurableProcess> ps = processes.list(request.getAll());
        java.util.Map<Integer, SessionUsage.Usage> usage = processes.treeUsage(ps);
        for (DurableProcess d : ps) {
            b.addProcesses(info(d, usage.get(d.id())));
        }
        observer.onNext(b.build());
        observer.onCompleted();
    }

    @Override
    public void get(ProcessRef request, StreamObserver<ProcessInfo> observer) {
        try {
            DurableProcess d = resolve(request);
            observer.onNext(info(d, processes.treeUsage(java.util.List.of(d)).get(d.id())));
            observer.onCompleted();
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
        }
    }

    @Override
    public void wait(ProcessRef request, StreamObserver<ExitRecord> observer) {
        DurableProcess d;
        try {
            d = resolve(request);
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
            return;
        }
        d.exit().whenComplete((e, t) -> {
            try {
                observer.onNext(exitRecord(d, e));
                observer.onCompleted();
            } catch (RuntimeException ignored) {
                // the caller went away meanwhile
            }
        });
    }

    /** @param usage the tree's usage while it runs, else null */
    static ProcessInfo info(DurableProcess d, SessionUsage.Usage usage) {
        ProcessInfo.Builder b = ProcessInfo.newBuilder()
                .setProcessId(d.id())
                .setTag(d.tag())
                .addAllCommand(d.command())
                .setPty(d.pty())
                .setV1Start(d.v1Start())
                .setDetached(d.detached())
                .setStartTimeUnixMillis(d.startMillis())
                .setStdoutWritten(d.journal().stdout().written())
                .setStderrWritten(d.journal().stderr().written());
        DurableProcess.Exit e = d.exit().getNow(null);
        b.setState(
                switch (d.state()) {
                    case RUNNING -> ProcessState.PROCESS_STATE_RUNNING;
                    case EXITED -> ProcessState.PROCESS_STATE_EXITED;
                    case KILLED -> ProcessState.PROCESS_STATE_KILLED;
                    case TIMED_OUT -> ProcessState.PROCESS_STATE_TIMED_OUT;
                });
        if (e == null) {
            b.setPid(d.pid()).setPgid(d.pid());
            if (usage != null) {
                b.setTree(TreeUsage.newBuilder()
                        .setProcesses(usage.processes())
                        .setCpuMillis(usage.cpuMillis())
                        .setRssBytes(usage.rssBytes()));
            }
        } else {
            b.setEndTimeUnixMillis(e.endMillis()).setExit(exitRecord(d, e));
        }
        return b.build();
    }

    static ExitRecord exitRecord(DurableProcess d, DurableProcess.Exit e) {
        ExitKind kind = e.timedOut()
                ? ExitKind.EXIT_KIND_TIMED_OUT
                : e.signal() != 0 ? ExitKind.EXIT_KIND_SIGNALED : ExitKind.EXIT_KIND_EXITED;
        return ExitRecord.newBuilder()
                .setProcessId(d.id())
                .setKind(kind)
                .setExitCode(e.code())
                .setSignal(e.signal())
                .setTimedOut(e.timedOut())
                .setEndTimeUnixMillis(e.endMillis())
                .setStdoutWritten(e.stdoutWritten())
                .setStderrWritten(e.stderrWritten())
                .build();
    }

    void close() {
        readers.shutdownNow();
        heartbeats.shutdownNow();
    }
}
