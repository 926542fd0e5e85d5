package io.sandboxd.bench.footprint;

import io.sandboxd.client.Command;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code n} Start streams held open at once (one channel per 100, as the bench's streams mode),
 * each of {@code sh -c 'read x'}: our daemon runs a process per stream, a floor only keeps the
 * call open. The process's memory is read once every stream got its init event; then all are
 * cancelled.
 */
final class LiveStreams {
    private LiveStreams() {}

    static ProcFigures.Memory measure(String grpcTarget, String token, long pid, int n)
            throws IOException, InterruptedException {
        List<SandboxdClient> owners = new ArrayList<>();
        List<SandboxdClient> clients = new ArrayList<>();
        List<RemoteProcess> calls = new ArrayList<>();
        CountDownLatch inits = new CountDownLatch(n);
        StartListener listener = new StartListener() {
            @Override
            public void onInit(int processId) {
                inits.countDown();
            }
        };
        try {
            for (int i = 0; i < (n + 99) / 100; i++) {
                SandboxdClient c = SandboxdClient.builder()
                        .grpcTarget(grpcTarget)
                        .token(token)
                        .callTimeout(Duration.ofSeconds(30))
                        .build();
                owners.add(c);
                clients.add(c.withStreamDeadline(Duration.ofSeconds(300)));
            }
            Command cmd = Command.of("/bin/sh", "-c", "read x");
            for (int i = 0; i < n; i++) {
                calls.add(clients.get(i % clients.size()).start(cmd, listener));
            }
            if (!inits.await(120, TimeUnit.SECONDS)) {
                throw new IOException((n - inits.getCount()) + " of " + n + " streams started within 120 s");
            }
            return ProcFigures.memory(pid);
        } finally {
            calls.forEach(RemoteProcess::cancel);
            owners.forEach(SandboxdClient::close); // a view's close does nothing
        }
    }
}
