package io.sandboxd.daemon.code;

/**
 * One Execute on a context: queued, then running, then finished. Its fields belong to the kernel
 * loop; {@link #cancel()} may be called from any thread.
 */
public final class CodeExecution {
    final String code;
    final long timeoutMillis;
    final ExecutionSink sink;
    final OutputWindow window;
    private final CodeContext context;

    String msgId;
    boolean replied;
    boolean idle;
    String replyStatus = "";
    int executionCount;
    boolean timedOut;
    boolean cancelled;
    int oversized;
    boolean done;
    KernelLoop.Timer timeout;
    KernelLoop.Timer lateIdle;

    CodeExecution(CodeContext context, String code, long timeoutMillis, long outputLimit, ExecutionSink sink) {
        this.context = context;
        this.code = code;
        this.timeoutMillis = timeoutMillis;
        this.sink = sink;
        this.window = new OutputWindow(outputLimit, o -> {
            if (!cancelled) {
                sink.output(o);
            }
        });
    }

    /**
     * The caller went away: a queued execution never runs, a running one is interrupted; nothing
     * more is delivered to the sink but the final outcome.
     */
    public void cancel() {
        context.cancel(this);
    }

    void cancelTimers() {
        if (timeout != null) {
            timeout.cancel();
        }
        if (lateIdle != null) {
            lateIdle.cancel();
        }
    }
}
