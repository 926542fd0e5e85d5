package io.sandboxd.daemon.grpc;

import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.code.v1alpha1.ClearOutput;
import io.sandboxd.api.code.v1alpha1.CodeContextServiceGrpc;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.ContextState;
import io.sandboxd.api.code.v1alpha1.CreateContextRequest;
import io.sandboxd.api.code.v1alpha1.CreateContextResponse;
import io.sandboxd.api.code.v1alpha1.DeleteRequest;
import io.sandboxd.api.code.v1alpha1.DeleteResponse;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecuteRequest;
import io.sandboxd.api.code.v1alpha1.ExecutionError;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.api.code.v1alpha1.ExecutionStatus;
import io.sandboxd.api.code.v1alpha1.InterruptRequest;
import io.sandboxd.api.code.v1alpha1.InterruptResponse;
import io.sandboxd.api.code.v1alpha1.ListRequest;
import io.sandboxd.api.code.v1alpha1.ListResponse;
import io.sandboxd.api.code.v1alpha1.MimeData;
import io.sandboxd.api.code.v1alpha1.RestartRequest;
import io.sandboxd.api.code.v1alpha1.RestartResponse;
import io.sandboxd.api.code.v1alpha1.RichOutput;
import io.sandboxd.api.code.v1alpha1.RichOutputKind;
import io.sandboxd.api.code.v1alpha1.StreamName;
import io.sandboxd.api.code.v1alpha1.StreamOutput;
import io.sandboxd.api.code.v1alpha1.Truncated;
import io.sandboxd.daemon.code.CodeContext;
import io.sandboxd.daemon.code.CodeContexts;
import io.sandboxd.daemon.code.CodeExecution;
import io.sandboxd.daemon.code.CodeOutput;
import io.sandboxd.daemon.code.ContextSnapshot;
import io.sandboxd.daemon.code.ExecutionOutcome;
import io.sandboxd.daemon.code.ExecutionSink;
import io.sandboxd.daemon.code.MimeValue;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The thin gRPC adapter of {@code sandboxd.code.v1alpha1.CodeContextService} (issue 20) over the
 * core's {@link CodeContexts}. Handlers run on the transport's event loops and never wait:
 * kernel start, restart and delete complete through futures, and Execute's events are sent on the
 * kernel loop (holding its lock, so one at a time and in order), the only place that touches the
 * call afterwards. An Execute's output in flight is bounded by {@code --code-output-limit}, so it
 * needs no flow control of its own.
 */
final class CodeServiceImpl extends CodeContextServiceGrpc.CodeContextServiceImplBase {
    private final CodeContexts contexts;

    CodeServiceImpl(CodeContexts contexts) {
        this.contexts = contexts;
    }

    @Override
    public void createContext(CreateContextRequest request, StreamObserver<CreateContextResponse> observer) {
        CompletableFuture<CodeContext> f;
        try {
            f = contexts.create(request.getKernel(), request.getLanguage(), request.getCwd(), request.getEnvMap());
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
            return;
        }
        reply(f, observer, c -> CreateContextResponse.newBuilder()
                .setContext(info(c.snapshot()))
                .build());
    }

    @Override
    public void execute(ExecuteRequest request, StreamObserver<ExecuteEvent> observer) {
        ServerCallStreamObserver<ExecuteEvent> out = (ServerCallStreamObserver<ExecuteEvent>) observer;
        // Set before the execution exists: the kernel loop may send events as soon as it does.
        AtomicReference<CodeExecution> running = new AtomicReference<>();
        out.setOnCancelHandler(() -> {
            CodeExecution x = running.get();
            if (x != null) {
                x.cancel();
            }
        });
        CodeExecution e;
        try {
            if (request.getTimeoutMillis() < 0) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "timeout_millis is too large");
            }
            CodeContext c = contexts.find(request.getContextId());
            e = c.execute(request.getCode(), request.getTimeoutMillis(), new EventSink(out));
        } catch (SandboxException | RuntimeException ex) {
            out.onError(StatusMapper.toStatus(ex));
            return;
        }
        running.set(e);
        if (out.isCancelled()) {
            e.cancel();
        }
    }

    /** Sends an execution's events on its call; on the kernel loop only. */
    private static final class EventSink implements ExecutionSink {
        private final ServerCallStreamObserver<ExecuteEvent> out;

        EventSink(ServerCallStreamObserver<ExecuteEvent> out) {
            this.out = out;
        }

        @Override
        public void output(CodeOutput output) {
            send(event(output));
        }

        @Override
        public void finished(ExecutionOutcome outcome) {
            if (send(ExecuteEvent.newBuilder().setStatus(status(outcome)).build())) {
                try {
                    out.onCompleted();
                } catch (RuntimeException cancelled) {
                    // the caller went away meanwhile
                }
            }
        }

        private boolean send(ExecuteEvent ev) {
            if (out.isCancelled()) {
                return false;
            }
            try {
                out.onNext(ev);
                return true;
            } catch (RuntimeException cancelled) {
                return false;
            }
        }
    }

    @Override
    public void interrupt(InterruptRequest request, StreamObserver<InterruptResponse> observer) {
        try {
            reply(
                    contexts.find(request.getContextId()).interrupt(),
                    observer,
                    v -> InterruptResponse.getDefaultInstance());
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
        }
    }

    @Override
    public void restart(RestartRequest request, StreamObserver<RestartResponse> observer) {
        try {
            CodeContext c = contexts.find(request.getContextId());
            reply(c.restart(), observer, v -> RestartResponse.newBuilder()
                    .setContext(info(c.snapshot()))
                    .build());
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
        }
    }

    @Override
    public void delete(DeleteRequest request, StreamObserver<DeleteResponse> observer) {
        try {
            reply(contexts.delete(request.getContextId()), observer, v -> DeleteResponse.getDefaultInstance());
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
        }
    }

    @Override
    public void list(ListRequest request, StreamObserver<ListResponse> observer) {
        ListResponse.Builder b = ListResponse.newBuilder();
        contexts.list().forEach(s -> b.addContexts(info(s)));
        observer.onNext(b.build());
        observer.onCompleted();
    }

    private static <T, R> void reply(CompletableFuture<T> f, StreamObserver<R> observer, Function<T, R> toReply) {
        f.whenComplete((v, err) -> {
            Throwable failure = err;
            R r = null;
            if (failure == null) {
                try {
                    r = toReply.apply(v);
                } catch (RuntimeException e) {
                    failure = e; // never leave the call without an answer
                }
            }
            try {
                if (failure != null) {
                    observer.onError(StatusMapper.toStatus(failure));
                } else {
                    observer.onNext(r);
                    observer.onCompleted();
                }
            } catch (RuntimeException cancelled) {
                // the caller went away meanwhile
            }
        });
    }

    static ContextInfo info(ContextSnapshot s) {
        return ContextInfo.newBuilder()
                .setId(s.id())
                .setLanguage(s.language())
                .setKernel(s.kernel())
                .setCwd(s.cwd())
                .setState(
                        switch (s.state()) {
                            case STARTING -> ContextState.CONTEXT_STATE_STARTING;
                            case IDLE -> ContextState.CONTEXT_STATE_IDLE;
                            case BUSY -> ContextState.CONTEXT_STATE_BUSY;
                            case DEAD -> ContextState.CONTEXT_STATE_DEAD;
                        })
                .setCreatedUnixMillis(s.createdMillis())
                .setLastUsedUnixMillis(s.lastUsedMillis())
                .setKernelPid(s.kernelPid())
                .setKernelRssBytes(s.kernelRssBytes())
                .setQueued(s.queued())
                .setBadSignatures(s.badSignatures())
                .build();
    }

    static ExecuteEvent event(CodeOutput o) {
        ExecuteEvent.Builder b = ExecuteEvent.newBuilder();
        if (o instanceof CodeOutput.Stream s) {
            b.setStream(StreamOutput.newBuilder()
                    .setName(s.stderr() ? StreamName.STREAM_NAME_STDERR : StreamName.STREAM_NAME_STDOUT)
                    .setText(s.text()));
        } else if (o instanceof CodeOutput.Rich r) {
            RichOutput.Builder rb = RichOutput.newBuilder()
                    .setKind(
                            switch (r.kind()) {
                                case DISPLAY_DATA -> RichOutputKind.RICH_OUTPUT_KIND_DISPLAY_DATA;
                                case EXECUTE_RESULT -> RichOutputKind.RICH_OUTPUT_KIND_EXECUTE_RESULT;
                                case UPDATE_DISPLAY_DATA -> RichOutputKind.RICH_OUTPUT_KIND_UPDATE_DISPLAY_DATA;
                            })
                    .setMetadataJson(r.metadataJson())
                    .setExecutionCount(r.executionCount())
                    .setDisplayId(r.displayId());
            for (MimeValue v : r.data()) {
                MimeData.Builder m = MimeData.newBuilder().setMimeType(v.mimeType());
                switch (v.kind()) {
                    case TEXT -> m.setText(v.text());
                    case BINARY -> m.setBinary(ByteString.copyFrom(v.binary()));
                    case JSON -> m.setJson(v.text());
                }
                rb.addData(m);
            }
            b.setRich(rb);
        } else if (o instanceof CodeOutput.Error e) {
            b.setError(ExecutionError.newBuilder()
                    .setName(e.name())
                    .setValue(e.value())
                    .addAllTraceback(e.traceback()));
        } else if (o instanceof CodeOutput.Clear c) {
            b.setClear(ClearOutput.newBuilder().setWait(c.await()));
        } else if (o instanceof CodeOutput.Truncation t) {
            b.setTruncated(
                    Truncated.newBuilder().setDroppedOutputs(t.droppedOutputs()).setDroppedBytes(t.droppedBytes()));
        }
        return b.build();
    }

    static ExecutionStatus status(ExecutionOutcome o) {
        return ExecutionStatus.newBuilder()
                .setState(
                        switch (o.state()) {
                            case OK -> ExecutionState.EXECUTION_STATE_OK;
                            case ERROR -> ExecutionState.EXECUTION_STATE_ERROR;
                            case ABORTED -> ExecutionState.EXECUTION_STATE_ABORTED;
                            case TIMED_OUT -> ExecutionState.EXECUTION_STATE_TIMED_OUT;
                            case KERNEL_DIED -> ExecutionState.EXECUTION_STATE_KERNEL_DIED;
                        })
                .setExecutionCount(o.executionCount())
                .setMessage(o.message())
                .setOversizedMessages(o.oversizedMessages())
                .build();
    }
}
