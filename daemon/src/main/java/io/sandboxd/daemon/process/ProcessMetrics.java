package io.sandboxd.daemon.process;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Process meters: started (by mode and kind), running, exits by code, output bytes. */
final class ProcessMetrics {
    private final MeterRegistry registry;
    private final Map<String, Counter> started = new ConcurrentHashMap<>();
    private final Map<Integer, Counter> exits = new ConcurrentHashMap<>();
    private final Counter stdoutBytes;
    private final Counter stderrBytes;
    final AtomicInteger running = new AtomicInteger();

    ProcessMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("sandboxd.processes.running", running, AtomicInteger::get)
                .description("Processes started by the daemon whose stream or call has not ended")
                .register(registry);
        stdoutBytes = Counter.builder("sandboxd.process.output.bytes")
                .tag("stream", "stdout")
                .description("Output bytes read from processes")
                .register(registry);
        stderrBytes = Counter.builder("sandboxd.process.output.bytes")
                .tag("stream", "stderr")
                .description("Output bytes read from processes")
                .register(registry);
    }

    void started(String rpc, SpawnMode mode) {
        started.computeIfAbsent(rpc + "/" + mode.label(), k -> Counter.builder("sandboxd.processes.started")
                        .tag("rpc", rpc)
                        .tag("mode", mode.label())
                        .description("Processes started")
                        .register(registry))
                .increment();
    }

    void exited(int code) {
        int bucket = code < -1 || code > 255 ? -1 : code;
        exits.computeIfAbsent(bucket, c -> Counter.builder("sandboxd.processes.exited")
                        .tag("exit_code", Integer.toString(c))
                        .description("Processes that exited, by exit code (128+N: signal N)")
                        .register(registry))
                .increment();
    }

    void bytes(OutputKind kind, int n) {
        (kind == OutputKind.STDOUT ? stdoutBytes : stderrBytes).increment(n);
    }
}
