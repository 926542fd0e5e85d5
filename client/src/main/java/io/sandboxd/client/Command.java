package io.sandboxd.client;

import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.StartRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What to run: the argv (no shell unless you ask for one), extra environment variables (merged
 * over the daemon's), a working directory (relative to the sandbox root) and, for Start only, a
 * pseudo-terminal size. Immutable; every {@code with…}/setter-like method returns a copy.
 */
public final class Command {
    private final List<String> argv;
    private final Map<String, String> env;
    private final String cwd;
    private final PTY pty;

    private Command(List<String> argv, Map<String, String> env, String cwd, PTY pty) {
        this.argv = List.copyOf(argv);
        this.env = Map.copyOf(env);
        this.cwd = cwd;
        this.pty = pty;
    }

    public static Command of(String... argv) {
        return of(List.of(argv));
    }

    public static Command of(List<String> argv) {
        return new Command(argv, Map.of(), null, null);
    }

    /** {@code sh -c script}. */
    public static Command shell(String script) {
        return of("sh", "-c", script);
    }

    public Command cwd(String dir) {
        return new Command(argv, env, Objects.requireNonNull(dir), pty);
    }

    public Command env(String key, String value) {
        Map<String, String> all = new LinkedHashMap<>(env);
        all.put(key, value);
        return new Command(argv, all, cwd, pty);
    }

    public Command env(Map<String, String> vars) {
        Map<String, String> all = new LinkedHashMap<>(env);
        all.putAll(vars);
        return new Command(argv, all, cwd, pty);
    }

    /** Runs under a pseudo-terminal of this size (Start only; 0 means the daemon's 80x24). */
    public Command tty(int cols, int rows) {
        return new Command(
                argv, env, cwd, PTY.newBuilder().setCols(cols).setRows(rows).build());
    }

    public List<String> argv() {
        return argv;
    }

    public Map<String, String> env() {
        return env;
    }

    public Optional<String> cwd() {
        return Optional.ofNullable(cwd);
    }

    public Optional<PTY> pty() {
        return Optional.ofNullable(pty);
    }

    public ProcessConfig toConfig() {
        ProcessConfig.Builder b = ProcessConfig.newBuilder().addAllCommand(argv).putAllEnvVars(env);
        if (cwd != null) {
            b.setCwd(cwd);
        }
        return b.build();
    }

    public StartRequest toStartRequest() {
        StartRequest.Builder b = StartRequest.newBuilder().setConfig(toConfig());
        if (pty != null) {
            b.setPty(pty);
        }
        return b.build();
    }

    /** @throws IllegalStateException with a TTY: Execute has none (use Start) */
    public ExecuteRequest toExecuteRequest() {
        if (pty != null) {
            throw new IllegalStateException("Execute runs without a terminal; use start() for a TTY");
        }
        return ExecuteRequest.newBuilder().setConfig(toConfig()).build();
    }

    @Override
    public String toString() {
        return String.join(" ", argv);
    }
}
