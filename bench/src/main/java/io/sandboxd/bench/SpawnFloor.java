package io.sandboxd.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The process-spawn floor: raw {@code posix_spawn} + {@code waitpid} timed in C with
 * CLOCK_MONOTONIC by a helper compiled at run time with the machine's C compiler. Without a
 * compiler it falls back to Java's ProcessBuilder (which is slower than raw posix_spawn, so every
 * ratio against it flatters the runtime) and says so in {@link #method()}.
 */
final class SpawnFloor {
    private static final String SOURCE = """
            #include <spawn.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <fcntl.h>
            #include <time.h>
            #include <sys/wait.h>
            extern char **environ;
            int main(int argc, char **argv) {
              int n = atoi(argv[1]);
              posix_spawn_file_actions_t fa;
              posix_spawn_file_actions_init(&fa);
              posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
              for (int i = 0; i < n; i++) {
                struct timespec a, b; pid_t pid; int st;
                clock_gettime(CLOCK_MONOTONIC, &a);
                if (posix_spawn(&pid, argv[2], &fa, NULL, argv + 2, environ) != 0) { perror("posix_spawn"); return 1; }
                if (waitpid(pid, &st, 0) < 0) { perror("waitpid"); return 1; }
                clock_gettime(CLOCK_MONOTONIC, &b);
                printf("%ld\\n", (long) ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)));
              }
              return 0;
            }
            """;

    private final Path helper;

    private SpawnFloor(Path helper) {
        this.helper = helper;
    }

    static SpawnFloor prepare(Path workDir) {
        for (String cc : new String[] {"cc", "gcc", "clang"}) {
            try {
                Path src = workDir.resolve("spawnfloor.c");
                Path bin = workDir.resolve("spawnfloor");
                Files.writeString(src, SOURCE);
                Process p = new ProcessBuilder(cc, "-O2", "-o", bin.toString(), src.toString())
                        .redirectErrorStream(true)
                        .start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return new SpawnFloor(bin);
                }
            } catch (IOException e) {
                // try the next compiler
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return new SpawnFloor(null);
    }

    String method() {
        return helper != null ? "posix_spawn+waitpid (C helper)" : "ProcessBuilder.start+waitFor (no C compiler found)";
    }

    /** Per-spawn latencies in ms of {@code n} sequential spawns of {@code argv}. */
    double[] sequential(int n, String... argv) throws IOException, InterruptedException {
        if (helper == null) {
            double[] out = new double[n];
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                Process p = new ProcessBuilder(argv)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                p.waitFor();
                out[i] = (System.nanoTime() - t) / 1e6;
            }
            return out;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(helper.toString());
        cmd.add(Integer.toString(n));
        cmd.addAll(List.of(argv));
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<Double> vals = new ArrayList<>();
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = r.readLine()) != null) {
                vals.add(Long.parseLong(line.trim()) / 1e6);
            }
        }
        if (p.waitFor() != 0 || vals.size() != n) {
            throw new IOException("spawn floor helper failed (exit " + p.exitValue() + ")");
        }
        return vals.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Spawns per second with {@code clients} concurrent spawners, one window per element of the
     * result; each window lasts about {@code windowMs}.
     */
    double[] concurrentRates(int clients, int windows, long windowMs) throws IOException, InterruptedException {
        double perSpawnMs = Stats.of(sequential(20, "/bin/true")).p50();
        int perClient = Math.max(2, (int) (windowMs / perSpawnMs * 2 / clients));
        double[] rates = new double[windows];
        for (int w = 0; w < windows; w++) {
            long t = System.nanoTime();
            List<Process> ps = new ArrayList<>();
            if (helper != null) {
                for (int c = 0; c < clients; c++) {
                    ps.add(new ProcessBuilder(helper.toString(), Integer.toString(perClient), "/bin/true")
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start());
                }
                for (Process p : ps) {
                    p.waitFor();
                }
            } else {
                Thread[] ts = new Thread[clients];
                for (int c = 0; c < clients; c++) {
                    ts[c] = new Thread(() -> {
                        try {
                            sequential(perClient, "/bin/true");
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    });
                    ts[c].start();
                }
                for (Thread th : ts) {
                    th.join();
                }
            }
            rates[w] = clients * (double) perClient / ((System.nanoTime() - t) / 1e9);
        }
        return rates;
    }
}
