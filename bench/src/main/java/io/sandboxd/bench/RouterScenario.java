package io.sandboxd.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sandboxd-bench router [--router-jar JAR] [router benchmark options]}: the router's
 * loopback benchmark (req/s, p50, p99 at each concurrency, straight to the backend and through
 * the router, in the same run) as a scenario of this tool. It runs in its own JVM from the
 * router's jar, so the bench jar does not carry the router and its Kubernetes client.
 */
final class RouterScenario {
    static final String DEFAULT_JAR = "router/target/sandboxd-router.jar";
    static final String MAIN = "io.sandboxd.router.bench.RouterBenchmark";

    private RouterScenario() {
    }

    /** @return the java command line, or null (after a message on {@code err}) when the jar is missing */
    static List<String> command(String[] args, PrintStream err) {
        Path jar = Path.of(DEFAULT_JAR);
        List<String> pass = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--router-jar")) {
                if (i + 1 >= args.length) {
                    err.println("sandboxd-bench router: --router-jar needs a path");
                    return null;
                }
                jar = Path.of(args[++i]);
            } else {
                pass.add(args[i]);
            }
        }
        if (!Files.isRegularFile(jar)) {
            err.println("sandboxd-bench router: " + jar + " not found; build it with "
                    + "./mvnw -B -q -pl router -am -DskipTests package, or pass --router-jar");
            return null;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-cp", jar.toString(), MAIN));
        cmd.addAll(pass);
        return cmd;
    }

    static int run(String[] args, PrintStream err) throws java.io.IOException, InterruptedException {
        List<String> cmd = command(args, err);
        if (cmd == null) {
            return 2;
        }
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }
}
