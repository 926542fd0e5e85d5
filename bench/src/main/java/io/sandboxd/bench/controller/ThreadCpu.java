package io.sandboxd.bench.controller;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

/**
 * The controller's CPU by what its threads do, from /proc/PID/task (no instrumentation in the
 * controller): Linux shows each Java thread's name, cut to 15 bytes, and the controller names
 * each controller's reconcile workers after it. CPU of threads that ended between two samples
 * is only in the process total; it lands in {@code other} with the unnamed threads.
 *
 * <p>JOSDK renames a reconcile worker to {@code ReconcilerExecutor-<controller>-<id>} while it
 * reconciles, and Linux shows only its first 15 bytes, which name no controller. Such a thread is
 * matched by its id and counted under the name it had at the other sample; caught reconciling at
 * both, it counts as {@code reconcile_workers_unknown}. (Matched by name, a worker caught so at one
 * sample had its CPU moved to {@code other}, or all its CPU since it started counted as the
 * burst's: in a paced warm burst {@code perf} put 29 % of the controller's CPU in such threads.)
 */
final class ThreadCpu {
    static final List<String> GROUPS = List.of(
            "claim_workers",
            "sandbox_workers",
            "warm_pool_workers",
            "template_workers",
            "reconcile_workers_unknown",
            "informer_dispatch",
            "http_io",
            "jit",
            "gc",
            "other");

    /** A reconcile worker's name while JOSDK runs a reconcile on it, as Linux shows it. */
    static final String RECONCILING = "ReconcilerExecu";

    /**
     * One thread's name, its user+system CPU in clock ticks, how long it has waited, runnable, for a
     * CPU (the second field of /proc/.../schedstat, in nanoseconds), and how many times it was put on
     * a CPU (the third field: a wake-up, or a return after it was preempted).
     */
    record Sample(String name, long ticks, long runQueueNanos, long timeslices) {}

    private ThreadCpu() {}

    /** The thread group a /proc comm name belongs to. */
    static String group(String comm) {
        if (comm.startsWith("sandboxclaim-wo")) return "claim_workers";
        if (comm.startsWith("sandbox-worker")) return "sandbox_workers";
        if (comm.startsWith("sandboxwarmpool")) return "warm_pool_workers";
        if (comm.startsWith("sandboxtemplate")) return "template_workers";
        if (comm.startsWith(RECONCILING)) return "reconcile_workers_unknown";
        // The controller's executor for fabric8's informer callbacks (store updates, event handlers).
        if (comm.startsWith("fabric8-tasks")) return "informer_dispatch";
        // fabric8's HTTP client: vert.x event loops carry every request, response and watch byte.
        if (comm.startsWith("vert.x-eventloo")) return "http_io";
        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) return "jit";
        if (comm.startsWith("GC Thread") || comm.equals("VM Thread") || comm.startsWith("G1 ")) return "gc";
        return "other";
    }

    /** utime + stime of one /proc/.../stat line (the name in parentheses may itself hold spaces or ')'). */
    static long ticks(String stat) {
        String[] f = fieldsAfterName(stat);
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** stime alone: the CPU spent in the kernel on the thread's or process's behalf. */
    static long systemTicks(String stat) {
        return Long.parseLong(fieldsAfterName(stat)[12]);
    }

    /** The fields after "(comm) ": the state is [0], so utime (field 14 of proc(5)) is [11], stime [12]. */
    private static String[] fieldsAfterName(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    }

    /** The run-queue wait of a schedstat line: "cpu-ns wait-ns timeslices". */
    static long runQueueNanos(String schedstat) {
        return Long.parseLong(schedstat.strip().split(" ")[1]);
    }

    /** The times a thread was put on a CPU, from a schedstat line: "cpu-ns wait-ns timeslices". */
    static long timeslices(String schedstat) {
        return Long.parseLong(schedstat.strip().split(" ")[2]);
    }

    /**
     * Milliseconds the process's threads spent runnable but waiting for a CPU between two samples:
     * on a machine whose cores the bench and the stand-in share, the part of a claim's latency
     * that is the machine's, not the controller's. Threads that ended in between are not counted.
     */
    static double runQueueMillis(Map<Long, Sample> before, Map<Long, Sample> after) {
        long nanos = 0;
        for (Map.Entry<Long, Sample> e : after.entrySet()) {
            Sample now = e.getValue();
            Sample was = before.get(e.getKey());
            nanos += now.runQueueNanos() - (sameThread(was, now) ? was.runQueueNanos() : 0);
        }
        return nanos / 1e6;
    }

    /**
     * Whether two samples of one thread id are of the same thread: Linux reuses ids, and a worker
     * renamed while it reconciles is still the same thread.
     */
    private static boolean sameThread(Sample was, Sample now) {
        return was != null
                && (was.name().equals(now.name())
                        || was.name().startsWith(RECONCILING)
                        || now.name().startsWith(RECONCILING));
    }

    /** Every live thread of the process, by thread id. */
    static Map<Long, Sample> read(long pid) {
        Map<Long, Sample> out = new LinkedHashMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (Stream<Path> s = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) s::iterator) {
                try {
                    String schedstat = Files.readString(t.resolve("schedstat"));
                    out.put(
                            Long.parseLong(t.getFileName().toString()),
                            new Sample(
                                    Files.readString(t.resolve("comm")).strip(),
                                    ticks(Files.readString(t.resolve("stat"))),
                                    runQueueNanos(schedstat),
                                    timeslices(schedstat)));
                } catch (NoSuchFileException gone) {
                    // the thread ended while we listed: its CPU shows in the process total only
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * CPU milliseconds per group between two samples; {@code other} is the process's CPU over the
     * same span minus the named groups, so the groups add up to the process total.
     */
    static Map<String, Double> millisByGroup(
            Map<Long, Sample> before, Map<Long, Sample> after, double processMillis, double ticksPerSecond) {
        Map<String, Double> out = new LinkedHashMap<>();
        double named = 0;
        for (Map.Entry<String, Long> e : byGroup(before, after, Sample::ticks).entrySet()) {
            double ms = e.getValue() * 1000.0 / ticksPerSecond;
            out.put(e.getKey(), ms);
            if (!e.getKey().equals("other")) named += ms;
        }
        out.put("other", Math.max(0, processMillis - named));
        return out;
    }

    /**
     * Times each group's threads were put on a CPU between two samples: how often the work was
     * handed from one thread to another. {@code other} counts the unnamed threads alive at the
     * second sample; a thread that ended in between is not counted.
     */
    static Map<String, Long> timeslicesByGroup(Map<Long, Sample> before, Map<Long, Sample> after) {
        return byGroup(before, after, Sample::timeslices);
    }

    /** The growth of one counter between two samples, summed by thread group, every group present. */
    private static Map<String, Long> byGroup(
            Map<Long, Sample> before, Map<Long, Sample> after, ToLongFunction<Sample> counter) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String g : GROUPS) out.put(g, 0L);
        for (Map.Entry<Long, Sample> e : after.entrySet()) {
            Sample now = e.getValue();
            Sample was = before.get(e.getKey());
            boolean same = sameThread(was, now);
            long from = same ? counter.applyAsLong(was) : 0;
            String g = group(same && now.name().startsWith(RECONCILING) ? was.name() : now.name());
            out.merge(g, counter.applyAsLong(now) - from, Long::sum);
        }
        return out;
    }
}
