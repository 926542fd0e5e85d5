package io.sandboxd.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.AttachRequest;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.ListRequest;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.process.v1.Signal;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Durable processes ({@code sandboxd.durable.v1alpha1.DurableProcessService}) of one client view:
 * processes that outlive the connection that started them, attachable any number of times from
 * any byte offset of their journalled output. Ids are the same space as {@code process.v1}'s, so
 * {@link SandboxdClient#writeStdin}, {@link SandboxdClient#sendSignal} and
 * {@link SandboxdClient#resizeTty} work on them. A reference is an id or a tag ({@link #ref}).
 *
 * <pre>{@code
 * DurableProcesses d = client.durable();
 * int id = d.start(Command.shell("make build"), DurableOptions.detached().tag("build"));
 * try (DurableAttachment a = d.attach(DurableProcesses.byTag("build"), 0, 0)) {
 *     for (AttachEvent ev; (ev = a.next()) != null; ) { ... }
 * }
 * ExitRecord r = d.waitFor(DurableProcesses.byId(id));
 * }</pre>
 */
public final class DurableProcesses {
    /** Start and Attach stream output events: parsed with one copy of their data. */
    private static final MethodDescriptor<StartRequest, AttachEvent> START = OwnedBytesMarshaller.responsesOf(
            DurableProcessServiceGrpc.getStartMethod(), AttachEvent.getDefaultInstance());

    private static final MethodDescriptor<AttachRequest, AttachEvent> ATTACH = OwnedBytesMarshaller.responsesOf(
            DurableProcessServiceGrpc.getAttachMethod(), AttachEvent.getDefaultInstance());

    private final SandboxdClient client;

    DurableProcesses(SandboxdClient client) {
        this.client = client;
    }

    public static ProcessRef byId(int processId) {
        return ProcessRef.newBuilder().setProcessId(processId).build();
    }

    public static ProcessRef byTag(String tag) {
        if (tag == null || tag.isEmpty()) {
            throw new IllegalArgumentException("a tag must not be empty");
        }
        return ProcessRef.newBuilder().setTag(tag).build();
    }

    /** An id when {@code text} is all digits, else a tag. */
    public static ProcessRef ref(String text) {
        if (!text.isEmpty() && text.length() <= 10 && text.chars().allMatch(Character::isDigit)) {
            long v = Long.parseLong(text);
            if (v <= Integer.MAX_VALUE) {
                return byId((int) v);
            }
        }
        return byTag(text);
    }

    /** {@code 42} or {@code tag "build"}, for messages. */
    public static String describe(ProcessRef ref) {
        return ref.hasTag() ? "tag \"" + ref.getTag() + "\"" : Integer.toString(ref.getProcessId());
    }

    /**
     * Starts {@code command} detached and returns its id once the daemon has said it (the starting
     * stream is then closed; the process keeps running).
     *
     * @throws IllegalArgumentException if {@code options} are not detached (use {@link #startAttached})
     * @throws GrpcCallException ALREADY_EXISTS for a live tag, NOT_FOUND for a missing binary, …
     */
    public int start(Command command, DurableOptions options) {
        if (!options.detach()) {
            throw new IllegalArgumentException("start() returns at once and needs detach; use startAttached()");
        }
        try (DurableAttachment a = startAttached(options.toStartRequest(command), null)) {
            for (AttachEvent ev; (ev = a.next()) != null; ) {
                if (ev.hasStarted()) {
                    return ev.getStarted().getProcessId();
                }
            }
            throw new SandboxdException(
                    "Start at " + client.grpcTarget() + ": the stream ended without a started event");
        }
    }

    /** Starts and streams like Attach from offset 0, first event {@code started}; pull mode. */
    public DurableAttachment startAttached(Command command, DurableOptions options) {
        return startAttached(options.toStartRequest(command), null);
    }

    public DurableAttachment startAttached(Command command, DurableOptions options, DurableListener listener) {
        return startAttached(options.toStartRequest(command), listener);
    }

    /** Start exactly as given; {@code listener} null: pull mode. */
    public DurableAttachment startAttached(StartRequest request, DurableListener listener) {
        DurableAttachment a = new DurableAttachment(client, "Start", listener);
        ClientCall<StartRequest, AttachEvent> call = channel(a).newCall(START, streamOptions());
        ClientCalls.asyncServerStreamingCall(call, request, a.observer());
        return a;
    }

    /** Attaches from these offsets (0, 0: all that is retained); pull mode ({@link DurableAttachment#next()}). */
    public DurableAttachment attach(ProcessRef ref, long stdoutOffset, long stderrOffset) {
        return attach(ref, stdoutOffset, stderrOffset, null);
    }

    /**
     * Attaches from these offsets; events to {@code listener} (null: pull mode). A failure
     * (NOT_FOUND, OUT_OF_RANGE for an offset beyond what was written) ends the stream: from
     * {@link DurableAttachment#next()} as a {@link GrpcCallException}, or {@link DurableListener#onEnd}.
     */
    public DurableAttachment attach(ProcessRef ref, long stdoutOffset, long stderrOffset, DurableListener listener) {
        if (stdoutOffset < 0 || stderrOffset < 0) {
            throw new IllegalArgumentException("offsets must be >= 0, got " + stdoutOffset + ", " + stderrOffset);
        }
        return attach(
                AttachRequest.newBuilder()
                        .setProcess(ref)
                        .setStdoutOffset(stdoutOffset)
                        .setStderrOffset(stderrOffset)
                        .build(),
                listener);
    }

    public DurableAttachment attach(AttachRequest request, DurableListener listener) {
        DurableAttachment a = new DurableAttachment(client, "Attach", listener);
        ClientCall<AttachRequest, AttachEvent> call = channel(a).newCall(ATTACH, streamOptions());
        ClientCalls.asyncServerStreamingCall(call, request, a.observer());
        return a;
    }

    /** Live processes; with {@code all}, ended ones still retained too. */
    public List<ProcessInfo> list(boolean all) {
        return client.unary(
                        DurableProcessServiceGrpc.getListMethod(),
                        ListRequest.newBuilder().setAll(all).build(),
                        null,
                        null)
                .getProcessesList();
    }

    /** @throws GrpcCallException NOT_FOUND for an unknown or forgotten process */
    public ProcessInfo get(ProcessRef ref) {
        return client.unary(DurableProcessServiceGrpc.getGetMethod(), ref, null, null);
    }

    /** Waits for the exit record (no deadline unless the view's stream deadline is set). */
    public ExitRecord waitFor(ProcessRef ref) {
        return client.unary(
                DurableProcessServiceGrpc.getWaitMethod(), ref, null, null, client.settings.streamDeadline());
    }

    /** Signals the process group (process.v1 SendSignal; a tag is resolved through Get first). */
    public void kill(ProcessRef ref, Signal signal) {
        int id = ref.hasTag() ? get(ref).getProcessId() : ref.getProcessId();
        client.sendSignal(id, signal);
    }

    /**
     * The shell's exit code for an exit record: the code when it exited, 128+N after signal N,
     * 124 for a server-side timeout.
     */
    public static int shellExitCode(ExitRecord r) {
        if (r.getTimedOut() || r.getKind() == ExitKind.EXIT_KIND_TIMED_OUT) {
            return 124;
        }
        if (r.getKind() == ExitKind.EXIT_KIND_SIGNALED && r.getSignal() > 0) {
            return 128 + r.getSignal();
        }
        int c = r.getExitCode();
        return c < 0 ? 128 - c : c; // -N: killed by signal N, as some reports have it
    }

    private Channel channel(DurableAttachment a) {
        return ClientInterceptors.intercept(
                client.channel(), MetadataUtils.newCaptureMetadataInterceptor(a.headers, a.trailers));
    }

    private CallOptions streamOptions() {
        CallOptions o = CallOptions.DEFAULT;
        if (client.settings.streamDeadline() != null) {
            o = o.withDeadlineAfter(client.settings.streamDeadline().toNanos(), TimeUnit.NANOSECONDS);
        }
        return o;
    }
}
