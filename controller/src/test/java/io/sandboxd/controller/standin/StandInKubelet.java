package io.sandboxd.controller.standin;

import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The scheduler and kubelet of the stand-in: every new Pod is bound to a node, then reported
 * Running and Ready with an IP after {@code startDelay} (two writes, as a binding and a kubelet
 * status update are). Runs inside the server process, so it adds no client traffic to measure.
 */
public final class StandInKubelet implements ObjectStore.WriteListener, AutoCloseable {
    private final ObjectStore store;
    private final Kind pods;
    private final Duration startDelay;
    private final AtomicInteger ipSeq = new AtomicInteger();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "standin-kubelet");
        t.setDaemon(true);
        return t;
    });
    public final AtomicInteger podsStarted = new AtomicInteger();

    public StandInKubelet(ObjectStore store, Duration startDelay) {
        this.store = store;
        this.pods = store.kindOf("pods");
        this.startDelay = startDelay;
        store.addListener(this);
    }

    @Override
    public void onWrite(Kind kind, JsonNode before, JsonNode after) {
        if (kind != pods || before != null || after == null) return;
        String ns = after.path("metadata").path("namespace").asString();
        String name = after.path("metadata").path("name").asString();
        timer.schedule(() -> start(ns, name), startDelay.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void start(String ns, String name) {
        int n = ipSeq.incrementAndGet();
        String ip = "10.244." + (n / 250) + "." + (n % 250 + 1);
        try {
            store.update(
                    pods,
                    ns,
                    name,
                    o -> {
                        o.withObjectProperty("spec").put("nodeName", "node-1");
                        return o;
                    },
                    false);
            store.update(
                    pods,
                    ns,
                    name,
                    o -> {
                        ObjectNode st = o.putObject("status");
                        if (store.podDefaults()) {
                            PodDefaults.running(
                                    o,
                                    st,
                                    ip,
                                    Instant.now()
                                            .truncatedTo(ChronoUnit.SECONDS)
                                            .toString());
                            return o;
                        }
                        st.put("phase", "Running");
                        st.put("podIP", ip);
                        st.putArray("podIPs").addObject().put("ip", ip);
                        var conds = st.putArray("conditions");
                        conds.addObject().put("type", "PodScheduled").put("status", "True");
                        conds.addObject().put("type", "Ready").put("status", "True");
                        return o;
                    },
                    true);
            podsStarted.incrementAndGet();
        } catch (ObjectStore.ApiException e) {
            // deleted before it started
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
