package io.sandboxd.bench.controller;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * This JVM's stop-the-world GC pauses, as the JVM reports each one. The API stand-in runs here:
 * while it is paused, a request the controller sent waits in its socket before the stand-in
 * stamps its arrival, so that wait counts as the controller's; and the claim events held back
 * reach the controller together and queue there. With G1 this JVM paused for 100-210 ms in the
 * measured burst (its store and watch history are hundreds of MiB that young collections copy),
 * and such a pause was the worst claim of that burst (measured 2026-12-04, issue 23).
 *
 * <p>Collectors report concurrent cycles through beans of their own ("Shenandoah Cycles", "ZGC
 * Cycles", "G1 Concurrent GC"): those are not pauses and are left out.
 */
final class OwnGcPauses implements AutoCloseable {
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = (n, handback) -> {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (pause(info.getGcName())) record(info.getGcInfo().getDuration());
    };
    private long count;
    private long totalMs;
    private long longestMs;

    /** Starts recording pauses; {@link #close} stops. */
    OwnGcPauses() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(listener, null, null);
                emitters.add(e);
            }
        }
    }

    /** Whether a collector bean of this name reports pauses (not concurrent cycles). */
    static boolean pause(String gcName) {
        return !gcName.contains("Cycles") && !gcName.contains("Concurrent");
    }

    private synchronized void record(long ms) {
        count++;
        totalMs += ms;
        longestMs = Math.max(longestMs, ms);
    }

    /** The pauses recorded so far. */
    synchronized Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("collector", ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
        m.put("count", count);
        m.put("total_ms", totalMs);
        m.put("longest_ms", longestMs);
        return m;
    }

    @Override
    public void close() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(listener);
            } catch (javax.management.ListenerNotFoundException ignored) {
                // never added to this one
            }
        }
    }
}
