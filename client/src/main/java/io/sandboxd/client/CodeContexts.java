package io.sandboxd.client;

import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.code.v1alpha1.CodeContextServiceGrpc;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.CreateContextRequest;
import io.sandboxd.api.code.v1alpha1.DeleteRequest;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecuteRequest;
import io.sandboxd.api.code.v1alpha1.ExecutionStatus;
import io.sandboxd.api.code.v1alpha1.InterruptRequest;
import io.sandboxd.api.code.v1alpha1.ListRequest;
import io.sandboxd.api.code.v1alpha1.RestartRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Code contexts ({@code sandboxd.code.v1alpha1.CodeContextService}) of one client view: stateful
 * kernels (Python via ipykernel) that run code and return rich outputs (runtime-contract §4.4).
 *
 * <pre>{@code
 * CodeContexts code = client.code();
 * String id = code.create("python").getId();
 * code.run(id, "x = 41", null);
 * CodeContexts.Result r = code.run(id, "print(x + 1)", Duration.ofSeconds(10)); // r.stdout() == "42\n"
 * try (CodeContexts.Execution e = code.execute(id, "plot()", null)) {             // streamed
 *     for (ExecuteEvent ev; (ev = e.next()) != null; ) { ... }                      // status last
 * }
 * code.delete(id);
 * }</pre>
 */
public final class CodeContexts {
    private final SandboxdClient client;

    CodeContexts(SandboxdClient client) {
        this.client = client;
    }

    /**
     * A context on the first kernelspec of {@code language} (null or empty: python). Waits for
     * the kernel (a second or two) within the view's call timeout.
     *
     * @throws GrpcCallException NOT_FOUND naming the installed kernels, RESOURCE_EXHAUSTED, ...
     */
    public ContextInfo create(String language) {
        return create(CreateContextRequest.newBuilder()
                .setLanguage(language == null ? "" : language)
                .build());
    }

    public ContextInfo create(CreateContextRequest request) {
        return client.unary(CodeContextServiceGrpc.getCreateContextMethod(), request, null, null, kernelStart())
                .getContext();
    }

    /** A kernel takes 1-2 s to start, far more on a loaded machine: its calls get at least 2 minutes. */
    private Duration kernelStart() {
        Duration t = client.settings.callTimeout();
        return t == null ? null : t.compareTo(KERNEL_START) < 0 ? KERNEL_START : t;
    }

    private static final Duration KERNEL_START = Duration.ofMinutes(2);

    /**
     * Streams one execution's events (pull mode); the last is the {@link ExecutionStatus}.
     * {@code timeout}: the daemon's limit on the execution (null: none). No client deadline
     * unless the view's stream deadline is set.
     */
    public Execution execute(String contextId, String code, Duration timeout) {
        ExecuteRequest.Builder b =
                ExecuteRequest.newBuilder().setContextId(contextId).setCode(code);
        if (timeout != null) {
            b.setTimeoutMillis(Math.max(1, timeout.toMillis()));
        }
        return new Execution(b.build());
    }

    /** {@link #execute} to its end: the outputs and the status. */
    public Result run(String contextId, String code, Duration timeout) {
        try (Execution e = execute(contextId, code, timeout)) {
            List<ExecuteEvent> outputs = new ArrayList<>();
            for (ExecuteEvent ev; (ev = e.next()) != null; ) {
                if (ev.hasStatus()) {
                    // The daemon ends the call right behind the status (both arrive together):
                    // reading that end lets close() leave the call alone instead of cancelling it,
                    // which cost a RST_STREAM and a cancellation on the daemon per Execute.
                    if (e.next() != null) {
                        throw new SandboxdException(
                                "Execute at " + client.grpcTarget() + ": an event came after the status");
                    }
                    return new Result(List.copyOf(outputs), ev.getStatus());
                }
                outputs.add(ev);
            }
            throw new SandboxdException("Execute at " + client.grpcTarget() + ": the stream ended without a status");
        }
    }

    /** Interrupts the running execution of the context (OK when nothing runs). */
    public void interrupt(String contextId) {
        client.unary(
                CodeContextServiceGrpc.getInterruptMethod(),
                InterruptRequest.newBuilder().setContextId(contextId).build(),
                null,
                null);
    }

    /** A fresh kernel under the same id; returns once it answers. */
    public ContextInfo restart(String contextId) {
        return client.unary(
                        CodeContextServiceGrpc.getRestartMethod(),
                        RestartRequest.newBuilder().setContextId(contextId).build(),
                        null,
                        null,
                        kernelStart())
                .getContext();
    }

    public void delete(String contextId) {
        client.unary(
                CodeContextServiceGrpc.getDeleteMethod(),
                DeleteRequest.newBuilder().setContextId(contextId).build(),
                null,
                null);
    }

    public List<ContextInfo> list() {
        return client.unary(CodeContextServiceGrpc.getListMethod(), ListRequest.getDefaultInstance(), null, null)
                .getContextsList();
    }

    /** What one execution produced. */
    public record Result(List<ExecuteEvent> outputs, ExecutionStatus status) {
        /** Everything written to stdout, in order. */
        public String stdout() {
            return stream(1);
        }

        public String stderr() {
            return stream(2);
        }

        private String stream(int name) {
            StringBuilder b = new StringBuilder();
            for (ExecuteEvent e : outputs) {
                if (e.hasStream() && e.getStream().getNameValue() == name) {
                    b.append(e.getStream().getText());
                }
            }
            return b.toString();
        }
    }

    /** One Execute stream; {@link #close()} cancels it unless it ended (a running execution is then interrupted). */
    public final class Execution implements AutoCloseable {
        private final Context.CancellableContext context = Context.current().withCancellation();
        private final PrefetchingStream<ExecuteRequest, ExecuteEvent> events;

        private Execution(ExecuteRequest request) {
            CallOptions o = CallOptions.DEFAULT;
            Duration deadline = client.settings.streamDeadline();
            if (deadline != null) {
                o = o.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
            }
            Context previous = context.attach();
            try {
                events = new PrefetchingStream<>(
                        client.channel(), CodeContextServiceGrpc.getExecuteMethod(), o, request);
            } finally {
                context.detach(previous);
            }
        }

        /**
         * The next event, blocking; null after the status.
         *
         * @throws GrpcCallException NOT_FOUND, FAILED_PRECONDITION (a dead context), ...
         */
        public ExecuteEvent next() {
            try {
                return events.next();
            } catch (StatusRuntimeException e) {
                throw client.grpcFailure("Execute", e.getStatus(), e.getTrailers());
            }
        }

        /** Cancels the call unless it has ended (a running execution is then interrupted). */
        @Override
        public void close() {
            if (!events.ended()) {
                context.cancel(null);
            }
        }
    }
}
